// The one-shot HELIX actions (contract §2, §8): align, design/plan, polish, review, backfill,
// experiment. Each builds its prompt, runs one agent call (or prints it under --dry-run) and
// judges the answer by the trailers the action file demands; a review files the findings its
// agent counted but did not file, as the review inside `helix run` does.
import { spawnSync } from 'node:child_process';
import { formatDryRun, parseTrailers } from '../agents/index.js';
import { withNewline } from './commands.js';
import { EXIT, HelixError, isHelixError } from '../errors.js';
import { excludeRuntimeFiles } from '../tracker/index.js';
import { judgeAction } from './action-verdict.js';
import { acquireGoverningBead, releaseGoverningBead } from './governing.js';
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

/** Default scope and rounds per action (contract §2). */
export const ACTION_DEFAULTS: Record<OneShotAction, { scope: string; rounds?: number }> = {
  align: { scope: 'repo' },
  design: { scope: 'repo', rounds: 5 },
  polish: { scope: 'repo', rounds: 6 },
  review: { scope: 'last-commit' },
  backfill: { scope: 'repo' },
  experiment: { scope: 'repo' },
};

function worktreeDirty(root: string): boolean {
  const status = spawnSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' });
  return status.status === 0 && status.stdout.trim() !== '';
}

export async function runOneShotAction(action: OneShotAction, options: ActionOptions): Promise<number> {
  const session = await prepareSession(options.cwd, options.env, options, !options.dryRun);
  const defaults = ACTION_DEFAULTS[action];
  const scope = options.scope ?? defaults.scope;
  // The session log and lock files must never make the next `helix experiment` see a dirty tree.
  if (!options.dryRun) excludeRuntimeFiles(session.root);
  if (action === 'experiment' && worktreeDirty(session.root)) {
    throw new HelixError('error', 'helix: experiment refuses a dirty worktree: commit or stash your changes first');
  }
  const output: RunOutput = options.dryRun ? SILENT_OUTPUT : new SessionOutput(session.root, options.mode === 'normal' ? 'quiet' : options.mode);
  const supervisor = new Supervisor({ ...session, env: options.env, settings: defaultSettings(options.env), output });
  const governing = action === 'align' && !options.dryRun ? acquireGoverningBead(session.store, scope) : undefined;
  try {
    const prompt = actionPrompt(action, {
      scope,
      rounds: options.rounds ?? defaults.rounds,
      governingBead: governing?.id,
      extra: action === 'experiment' && options.close ? ['When the experiment is decided, close its bead (--close).'] : undefined,
      env: options.env,
    });
    const { command, label } = supervisor.actionCommand(action, prompt);
    if (options.dryRun) {
      process.stdout.write(`${formatDryRun(command)}\n`);
      return EXIT.ok;
    }
    const before = action === 'review' ? session.store.read() : undefined;
    const call = await untilInterrupted((signal) => supervisor.runAgent(command, label, signal));
    if ('interrupt' in call) {
      output.summary(`helix: interrupted by ${call.interrupt.what}${governing ? `; claim on ${governing.id} released` : ''}`);
      return call.interrupt.exitCode;
    }
    const run = call.value;
    // The agent's final answer, never its transcript (that is in the session log).
    process.stdout.write(withNewline(run.answer));
    const trailers = parseTrailers(run.answer);
    const verdict = judgeAction(action, run.exitCode, trailers, session.root);
    for (const line of verdict.lines) process.stderr.write(`${line}\n`);
    // Like the review inside `helix run`: what the reviewer counted but did not file is filed now.
    const followUp: ReviewFollowUp = before
      ? followUpReview(session.store, trailers, {
          reviewed: before.byId.get(scope),
          reviewedId: scope,
          cycle: undefined,
          before: new Set(before.beads.map((b) => b.id)),
          output: run.answer,
        })
      : { outcome: 'none' };
    if (followUp.outcome !== 'none') process.stderr.write(`${followUp.line}\n`);
    // A failing agent fails the action whatever its trailers say, and always says so.
    if (run.exitCode !== 0) {
      process.stderr.write(`helix: ${action} failed (rc=${run.exitCode})\n`);
      return EXIT.error;
    }
    // Findings that exist only in this output are not done with: exit with the tracker's own code
    // (lock timeout 5, malformed file 6, …) so a caller can tell it from a review it could not read.
    if (followUp.outcome === 'failed') return isHelixError(followUp.error) ? followUp.error.exitCode : EXIT.error;
    return verdict.ok ? EXIT.ok : EXIT.error;
  } finally {
    if (governing) releaseGoverningBead(session.store, governing);
  }
}
