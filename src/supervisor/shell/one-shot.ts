// The one-shot HELIX actions (docs/contract/cli.md §2, §8): align, design/plan, polish, review, backfill,
// experiment. Each builds its prompt, runs one agent call (or prints it under --dry-run) and
// judges the answer by the trailers the action file demands; a review files the findings its
// agent counted but did not file, as the review inside `helix run` does.
import { existsSync, statSync } from 'node:fs';
import { type AgentInvocation, type AgentRunResult, type Trailers, formatDryRun, parseTrailers } from '../../agents/index.js';
import { EXIT, isHelixError } from '../../errors.js';
import { type BeadStore, type Snapshot, excludeRuntimeFiles } from '../../tracker/index.js';
import { type ActionVerdict, type JudgedAction, judgeAction } from '../core/action-verdict.js';
import { type Governing, acquireGoverningBead, settleGoverningBead } from './governing.js';
import { writeRunState } from './run-state.js';
import { CallTotals, answerOf, callAgent } from './agent-call.js';
import { type CallInfo, actionInvocation, rotationLine } from '../core/dispatch.js';
import { EXPERIMENT_DIRTY, GOVERNING, RUN, actionFailed } from '../text/lines.js';
import { actionPrompt, promptPlaceOf } from '../text/prompts.js';
import { ACTION_DEFAULTS, type OneShotAction } from '../core/policy.js';
import { worktreeDirty } from './git.js';
import { type ReviewFollowUp, followUpReview } from './review-findings.js';
import { type Interrupt, untilInterrupted } from './interrupts.js';
import { type SessionFlags, prepareSession } from './agent-setup.js';
import { type CommandResult, type OutputMode, type RunOutput, SILENT_OUTPUT, SessionOutput } from './output.js';

export type { OneShotAction } from '../core/policy.js';

export interface ActionOptions extends SessionFlags {
  cwd: string;
  env: NodeJS.ProcessEnv;
  mode: OutputMode;
  dryRun?: boolean;
  scope?: string;
  rounds?: number;
  close?: boolean;
}

/** An existing regular file (a backfill's declared report). */
function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

/** What a review needs to file the findings its agent counted but did not file. */
export interface ReviewContext {
  store: BeadStore;
  /** The tracker as it was before the review ran. */
  before: Snapshot;
  /** The reviewed bead's id inside `helix run`; the one-shot review's scope. */
  reviewedId: string;
  /** The run's cycle; undefined for the one-shot review. */
  cycle: number | undefined;
  now?: Date;
}

export interface AnsweredAction {
  trailers: Trailers;
  verdict: ActionVerdict;
  followUp: ReviewFollowUp;
}

/**
 * The one answer path of an action, inside `helix run` and one-shot alike: the answer is shown
 * in every mode (docs/contract/bash-interface.md §2.12), judged by the trailers its action file demands, its verdict lines
 * printed (§9), and a review's unfiled findings filed. `filedLevel`: inside `helix run` the filing
 * is narrated; the one-shot review says it in every mode. `showAnswer` false: the answer stays in
 * the session log's framed block only (a drain action inside `helix run --summary`).
 */
export function answerAction(
  output: RunOutput,
  action: JudgedAction,
  run: AgentRunResult,
  root: string,
  review: ReviewContext | undefined,
  filedLevel: 'narrative' | 'always',
  showAnswer = true,
): AnsweredAction {
  const answer = answerOf(run);
  if (showAnswer) output.answer(answer);
  const trailers = parseTrailers(answer);
  const verdict = judgeAction(action, run.exitCode, trailers, { root, isFile });
  for (const line of verdict.lines) output.always(line);
  const followUp: ReviewFollowUp = review
    ? followUpReview(
        review.store,
        trailers,
        { reviewed: review.before.byId.get(review.reviewedId), reviewedId: review.reviewedId, cycle: review.cycle, before: new Set(review.before.beads.map((b) => b.id)), output: answer },
        review.now,
      )
    : { outcome: 'none' };
  if (followUp.outcome === 'filed') output.line(filedLevel, followUp.line);
  if (followUp.outcome === 'failed' || followUp.outcome === 'ended') output.always(followUp.line);
  return { trailers, verdict, followUp };
}

/**
 * One agent call of a one-shot command (`helix check`, an action), with its lines and its framed
 * block in the log: the result, or the interrupt that cut it short.
 */
export function callOnce(output: RunOutput, env: NodeJS.ProcessEnv, invocation: AgentInvocation, call: CallInfo): Promise<{ value: AgentRunResult } | { interrupt: Interrupt }> {
  return untilInterrupted((signal) => callAgent({ output, env, signal, now: () => new Date(), totals: new CallTotals() }, invocation, call));
}

export async function runOneShotAction(action: OneShotAction, options: ActionOptions): Promise<CommandResult> {
  const session = await prepareSession(options.cwd, options.env, options, !options.dryRun);
  const defaults = ACTION_DEFAULTS[action];
  const scope = options.scope ?? defaults.scope;
  // The session log and lock files must never make the next `helix experiment` see a dirty tree.
  if (!options.dryRun) excludeRuntimeFiles(session.root);
  // tracked files with staged or unstaged changes; untracked files do not count (§10)
  if (action === 'experiment' && !options.dryRun && worktreeDirty(session.root)) {
    return { exitCode: EXIT.error, stderr: [...EXPERIMENT_DIRTY] };
  }
  const output: RunOutput = options.dryRun ? SILENT_OUTPUT : new SessionOutput(session.root, options.mode);
  const setup = { ...session, env: options.env };
  // The governing bead is acquired outside --dry-run only, and settled when the alignment ends (governing.ts).
  let governing: Governing | undefined;
  if (action === 'align' && !options.dryRun) {
    governing = acquireGoverningBead(session.store, scope ?? 'repo', {
      root: session.root,
      env: options.env,
      say: (line) => output.line(line.level, line.text),
    });
  }
  const prompt = actionPrompt(action, {
    ...promptPlaceOf(setup, output.logName),
    scope,
    rounds: options.rounds ?? defaults.rounds,
    governing: governing ? { bead: governing.bead.id, mode: governing.mode } : undefined,
    close: action === 'experiment' && options.close === true,
  });
  const { invocation, call } = actionInvocation(setup, action, prompt);
  if (options.dryRun) return { exitCode: EXIT.ok, stdout: [formatDryRun(invocation)] };
  const rotated = action === 'polish' || action === 'review' ? rotationLine(session.plan, action) : undefined;
  if (rotated) output.line(rotated.level, rotated.text);
  const before = action === 'review' ? session.store.read() : undefined;
  const attempt = await callOnce(output, options.env, invocation, call);
  if ('interrupt' in attempt) {
    // no claim outlives the command: the alignment's governing bead is open again for the next one
    if (governing) settleGoverningBead(session.store, governing.bead.id, false);
    output.always(RUN.interrupted(attempt.interrupt.what, []));
    return { exitCode: attempt.interrupt.exitCode };
  }
  const run = attempt.value;
  // Like the review inside `helix run`: what the reviewer counted but did not file is filed now.
  const review = before ? { store: session.store, before, reviewedId: scope ?? 'last-commit', cycle: undefined } : undefined;
  const { verdict, followUp } = answerAction(output, action, run, session.root, review, 'always');
  if (governing) endOneShotAlignment(output, session.store, governing.bead.id, run.exitCode === 0);
  if (action === 'review' || action === 'backfill') {
    // A failing agent fails the action whatever its trailers say, and says so.
    if (run.exitCode !== 0) {
      output.always(actionFailed(action, run.exitCode));
      return { exitCode: EXIT.error };
    }
    // Findings that exist only in this output are not done with: exit with the tracker's own code
    // (lock timeout 5, malformed file 6, …) so a caller can tell it from a review it could not read.
    if (followUp.outcome === 'failed') return { exitCode: isHelixError(followUp.error) ? followUp.error.exitCode : EXIT.error };
    return { exitCode: verdict.exitCode };
  }
  // align, design, polish, experiment: the exit status is the agent's (docs/contract/bash-interface.md §5.4, §7, §8, §10).
  return { exitCode: Math.min(Math.max(run.exitCode, 0), 255) };
}

/** `helix align` ended: its governing bead settled (governing.ts), a finished alignment recorded for the next run (core/alignment-due.ts). */
function endOneShotAlignment(output: RunOutput, store: BeadStore, id: string, finished: boolean): void {
  const settled = settleGoverningBead(store, id, finished);
  if (settled !== 'untouched') {
    const line = GOVERNING.settled(id, settled);
    output.line(line.level, line.text);
  }
  if (finished) writeRunState(store.dir, { last_alignment: new Date().toISOString() });
}
