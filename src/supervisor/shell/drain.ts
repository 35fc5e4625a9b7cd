// The loop's other agent calls: the queue-health check when the queue drains, the actions its
// answer routes to (design, polish, backfill, alignment — also the pre-stop and periodic
// alignments) and the post-implementation and post-epic reviews. Each is judged as its one-shot
// command judges it (one-shot.ts answerAction); the machine decides what follows.
import { type AgentInvocation, parseNextAction } from '../../agents/index.js';
import { isHelixError } from '../../errors.js';
import { drainActionResult, reviewOutcomeOf } from '../core/action-verdict.js';
import { actionInvocation, rotationLine } from '../core/dispatch.js';
import type { ActionPurpose, DrainAction, Event, ReviewKind } from '../core/machine.js';
import { spentOn } from '../core/outcome.js';
import { ACTION_DEFAULTS } from '../core/policy.js';
import { GOVERNING, RUN } from '../text/lines.js';
import { actionPrompt } from '../text/prompts.js';
import { type AgentCall, answerOf, callAgent, limitOfCall, problemOfCall } from './agent-call.js';
import { type Governing, acquireGoverningBead, settleGoverningBead } from './governing.js';
import { answerAction } from './one-shot.js';
import type { RunContext } from './run-context.js';

/** The `adversarial <action>: switching to <agent>` line, when the action runs on another agent. */
function announceRotation(run: RunContext, action: 'build' | 'check' | 'polish' | 'review'): void {
  const line = rotationLine(run.session.plan, action);
  if (line) run.say(line);
}

/**
 * The event of a call that did not get through (undefined when it did): a usage or rate limit
 * (`limited`), or a failure that is not the work's — setup or infrastructure (`unavailable`). What
 * it spent counts, and `again` is the call the machine asks for after the wait (none for the
 * check, which the machine asks for anyway).
 */
function notThrough(run: RunContext, invocation: AgentInvocation, answered: AgentCall, again?: Extract<Event, { type: 'limited' }>['again']): Event | undefined {
  const now = run.now();
  const retry = again ? { again } : {};
  const limit = limitOfCall(invocation, answered, now);
  if (limit) return { type: 'limited', limit, at: now.getTime(), ...retry, ...spentOn(answered) };
  const problem = problemOfCall(invocation, answered);
  return problem ? { type: 'unavailable', problem, ...retry, ...spentOn(answered) } : undefined;
}

/** Post-implementation / post-epic review (cross-model through the review agent). */
export async function runReview(run: RunContext, kind: ReviewKind, scope: string, cycle: number, beadId: string): Promise<Event> {
  const before = run.snapshot();
  const reviewed = before.byId.get(beadId);
  const parent = typeof reviewed?.parent === 'string' && reviewed.parent ? reviewed.parent : undefined;
  const prompt = actionPrompt('review', { ...run.promptPlace(), scope, reviewed: { id: beadId, parent, cycle } });
  const { invocation, call } = actionInvocation(run.session, 'review', prompt);
  announceRotation(run, 'review');
  const answered = await callAgent(run.calls, invocation, call);
  // a review that ran into a usage or rate limit read nothing: the run waits and asks for it again
  const limited = notThrough(run, invocation, answered, { type: 'runReview', kind, scope, cycle, beadId });
  if (limited) return limited;
  const review = { store: run.session.store, before, reviewedId: beadId, cycle, now: run.now() };
  const { trailers, verdict, followUp } = answerAction(run.session.output, 'review', answered, run.session.root, review, 'narrative');
  // at the end of its review chain the findings went into the bead's notes, not into follow-ups
  const outcome = followUp.outcome === 'ended' ? 'noted' : reviewOutcomeOf(verdict, trailers);
  return { type: 'reviewed', kind, cycle, beadId, outcome, rc: verdict.exitCode, ...spentOn(answered) };
}

export async function runCheck(run: RunContext): Promise<Event> {
  const prompt = actionPrompt('check', { ...run.promptPlace(), scope: 'repo' });
  const { invocation, call } = actionInvocation(run.session, 'check', prompt);
  announceRotation(run, 'check');
  const answered = await callAgent(run.calls, invocation, call);
  // a check that ran into a usage or rate limit answered nothing: the run waits and checks again
  const limited = notThrough(run, invocation, answered);
  if (limited) return limited;
  const ok = answered.exitCode === 0;
  // The drain check's answer: stdout, except with --summary (the log has it) (docs/contract/bash-interface.md §2.11).
  if (ok && run.session.output.mode !== 'summary') run.session.output.answer(answerOf(answered));
  const nextAction = ok ? parseNextAction(answerOf(answered)) : undefined;
  run.say(RUN.checkReturned(nextAction, answered.exitCode));
  return { type: 'checked', nextAction, ok, ...spentOn(answered) };
}

export async function runAction(run: RunContext, action: DrainAction, purpose: ActionPurpose): Promise<Event> {
  const { session } = run;
  let governing: Governing | undefined;
  if (action === 'align') {
    // Alignment runs under its governing bead, like `helix align` (refused while another holds it).
    try {
      governing = acquireGoverningBead(session.store, 'repo', { root: session.root, now: run.now(), env: session.env, say: (line) => run.say(line) });
      // held until the alignment ends, or the run does (run-end.ts): a limit wait keeps it
      run.governing = governing.bead.id;
    } catch (error) {
      if (!isHelixError(error)) throw error;
      session.output.always(error.message);
      return { type: 'actionDone', action, purpose, ok: false };
    }
  }
  const prompt = actionPrompt(action, {
    ...run.promptPlace(),
    scope: 'repo',
    rounds: ACTION_DEFAULTS[action].rounds,
    governing: governing ? { bead: governing.bead.id, mode: governing.mode } : undefined,
  });
  const { invocation, call } = actionInvocation(session, action, prompt);
  if (action === 'polish') announceRotation(run, 'polish');
  const answered = await callAgent(run.calls, invocation, call);
  // an action that ran into a usage or rate limit did nothing: the run waits and runs it again (an
  // alignment's governing bead stays held by this run meanwhile, and is reused then)
  const limited = notThrough(run, invocation, answered, { type: 'runAction', action, purpose });
  if (limited) return limited;
  // Judged like the one-shot action: backfill by its trailers, the others by the exit status. With
  // --summary its answer stays in the log, as the build's and the check's do: the summary shows
  // what the run did, the log what the agent said (docs/contract/cli.md §9).
  const { verdict } = answerAction(session.output, action, answered, session.root, undefined, 'narrative', session.output.mode !== 'summary');
  const result = drainActionResult(verdict, answered.exitCode, call.label);
  if (governing) endAlignment(run, governing.bead.id, result.ok);
  return { type: 'actionDone', action, purpose, ...result, ...spentOn(answered) };
}

/**
 * An alignment of the loop finished: its governing bead is closed (or, when it failed, left open
 * and unclaimed: governing.ts), and a finished one is recorded in run-state, so a later run knows
 * no alignment is due until something is built (core/alignment-due.ts).
 */
function endAlignment(run: RunContext, id: string, finished: boolean): void {
  run.governing = undefined;
  settleGoverning(run, id, finished);
  if (finished) {
    run.lastAlignment = run.now().toISOString();
    run.persist();
  }
}

/** Settles the governing bead; a tracker write that fails is said, the bead is left for the next alignment. */
export function settleGoverning(run: RunContext, id: string, finished: boolean): void {
  try {
    const settled = settleGoverningBead(run.session.store, id, finished, run.now());
    if (settled !== 'untouched') run.say(GOVERNING.settled(id, settled));
  } catch (error) {
    run.say(GOVERNING.settleFailed(id, (error as Error).message));
  }
}
