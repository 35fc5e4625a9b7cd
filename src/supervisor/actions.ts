// The one-shot HELIX actions (contract §2, §8): align, design/plan, polish, review, backfill,
// experiment. Each builds its prompt, runs one agent call (or prints it under --dry-run) and
// judges the answer by the trailers the action file demands; a review files the findings its
// agent counted but did not file, as the review inside `helix run` does.
import { spawnSync } from 'node:child_process';
import { formatDryRun, parseTrailers } from '../agents/index.js';
import { EXIT, isHelixError } from '../errors.js';
import { excludeRuntimeFiles } from '../tracker/index.js';
import { judgeAction } from './action-verdict.js';
import { type Governing, acquireGoverningBead } from './governing.js';
import { answerOf } from './agent-call.js';
import { EXPERIMENT_DIRTY, RUN } from './lines.js';
import { defaultSettings } from './policy.js';
import { type ActionName, actionPrompt } from './prompts.js';
import { type ReviewFollowUp, followUpReview } from './review-findings.js';
import { untilInterrupted } from './interrupts.js';
import { Supervisor } from './runner.js';
import { type SessionFlags, prepareSession } from './session.js';
import { type OutputMode, type RunOutput, SILENT_OUTPUT, SessionOutput } from './output.js';

export type OneShotAction = Exclude<ActionName, 'implementation' | 'check'>;

export interface ActionOptions extends SessionFlags {
  cwd: string;
  env: NodeJS.ProcessEnv;
  mode: OutputMode;
  dryRun?: boolean;
  scope?: string;
  rounds?: number;
  close?: boolean;
}

/**
 * Default scope and rounds per action (cli.md §2). An action without a default scope says so in
 * its prompt in its own words: polish `all open issues`, experiment `auto-select from ready
 * phase:iterate issues` (bash-interface §1.7, §1.9).
 */
export const ACTION_DEFAULTS: Record<OneShotAction, { scope?: string; rounds?: number }> = {
  align: { scope: 'repo' },
  design: { scope: 'repo', rounds: 5 },
  polish: { rounds: 6 },
  review: { scope: 'last-commit' },
  backfill: { scope: 'repo' },
  experiment: {},
};

/** Tracked files with staged or unstaged changes (untracked files do not count, §10). */
function worktreeDirty(root: string): boolean {
  const changed = (args: string[]) => spawnSync('git', ['diff', '--quiet', ...args], { cwd: root }).status === 1;
  return changed([]) || changed(['--cached']);
}

export async function runOneShotAction(action: OneShotAction, options: ActionOptions): Promise<number> {
  const session = await prepareSession(options.cwd, options.env, options, !options.dryRun);
  const defaults = ACTION_DEFAULTS[action];
  const scope = options.scope ?? defaults.scope;
  // The session log and lock files must never make the next `helix experiment` see a dirty tree.
  if (!options.dryRun) excludeRuntimeFiles(session.root);
  if (action === 'experiment' && !options.dryRun && worktreeDirty(session.root)) {
    for (const line of EXPERIMENT_DIRTY) process.stderr.write(`${line}\n`);
    return EXIT.error;
  }
  const output: RunOutput = options.dryRun ? SILENT_OUTPUT : new SessionOutput(session.root, options.mode);
  const supervisor = new Supervisor({ ...session, env: options.env, settings: defaultSettings(options.env), output });
  // The governing bead is acquired outside --dry-run only; helix leaves it for the action to close.
  let governing: Governing | undefined;
  if (action === 'align' && !options.dryRun) {
    governing = acquireGoverningBead(session.store, scope ?? 'repo', {
      root: session.root,
      env: options.env,
      say: (line) => output.line(line.level, line.text),
    });
  }
  const prompt = actionPrompt(action, {
    ...supervisor.promptPlace(),
    scope,
    rounds: options.rounds ?? defaults.rounds,
    governing: governing ? { bead: governing.bead.id, mode: governing.mode } : undefined,
    close: action === 'experiment' && options.close === true,
  });
  const { command, call } = supervisor.actionCommand(action, prompt);
  if (options.dryRun) {
    process.stdout.write(`${formatDryRun(command)}\n`);
    return EXIT.ok;
  }
  if (action === 'polish' || action === 'review') supervisor.announceRotation(action);
  const before = action === 'review' ? session.store.read() : undefined;
  const attempt = await untilInterrupted((signal) => supervisor.runAgent(command, call, signal));
  if ('interrupt' in attempt) {
    // an alignment's governing bead stays claimed by this (ending) process: the next run's orphan
    // recovery releases it
    output.always(RUN.interrupted(attempt.interrupt.what, []));
    return attempt.interrupt.exitCode;
  }
  const run = attempt.value;
  output.answer(answerOf(run));
  const trailers = parseTrailers(answerOf(run));
  const verdict = judgeAction(action, run.exitCode, trailers, session.root);
  for (const line of verdict.lines) output.always(line);
  // Like the review inside `helix run`: what the reviewer counted but did not file is filed now.
  const followUp: ReviewFollowUp = before
    ? followUpReview(session.store, trailers, {
        reviewed: before.byId.get(scope ?? ''),
        reviewedId: scope ?? 'last-commit',
        cycle: undefined,
        before: new Set(before.beads.map((b) => b.id)),
        output: answerOf(run),
      })
    : { outcome: 'none' };
  if (followUp.outcome !== 'none') output.always(followUp.line);
  if (action === 'review' || action === 'backfill') {
    // A failing agent fails the action whatever its trailers say, and says so.
    if (run.exitCode !== 0) {
      output.always(`helix: ${action} failed (rc=${run.exitCode})`);
      return EXIT.error;
    }
    // Findings that exist only in this output are not done with: exit with the tracker's own code
    // (lock timeout 5, malformed file 6, …) so a caller can tell it from a review it could not read.
    if (followUp.outcome === 'failed') return isHelixError(followUp.error) ? followUp.error.exitCode : EXIT.error;
    return verdict.exitCode;
  }
  // align, design, polish, experiment: the exit status is the agent's (bash-interface §5.4, §7, §8, §10).
  return Math.min(Math.max(run.exitCode, 0), 255);
}
