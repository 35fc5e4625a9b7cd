// A failed attempt, as the run loop settles it (docs/contract/cli.md §6.4): the attempt is counted
// against its bead, every mode says why in one line (the FAILED line with --summary, the attempt's
// detail line otherwise), the run backs off 5, 10, 20, 40 s — the 4th failure too, each backoff said
// and recorded as a `backoff` event so a follower of the event log never waits in silence — and after
// the 4th the bead is skipped and parked. A bead's `budget:<USD>` label and SYSTEMIC_FAILURE can end
// it sooner.
import type { Bead } from '../../tracker/bead.js';
import { NO_SPEND, beadBudgetStop } from './budget.js';
import { intractableReason } from './judge.js';
import type { Effect, Event, MachineState, SkippedBead, Step } from './machine-types.js';
import type { FailureKind } from './outcome.js';
import { MAX_ATTEMPTS, type SupervisorSettings, backoffSeconds } from './policy.js';
import { line, stop } from './steps.js';
import { failureCategory } from './typed-stops.js';
import { RUN, reasonLine, sessionReset } from '../text/lines.js';

type Failed = Extract<Extract<Event, { type: 'attempted' }>['outcome'], { kind: 'failed' }>;

/**
 * The step after a failed attempt of `bead`: `next` is the state with the attempt counted (and its
 * batch settled), `effects` the lines already said for the batch. `completedBefore` is the count
 * before the attempt (a batch member can complete beside a failed primary).
 */
export function afterFailure(next: MachineState, bead: Bead, outcome: Failed, cycle: number, settings: SupervisorSettings, effects: Effect[]): Step {
  const count = next.failures[bead.id]?.count ?? 1;
  const reason = reasonLine(outcome.detail);
  const said: Effect[] = [
    ...(outcome.failure === 'agent-failed' ? [line(RUN.implementationFailed(cycle))] : [line(RUN.notCompleted(cycle, next.completed))]),
    line(RUN.failedSummary(cycle, bead.id, count, reason)),
    line(RUN.attemptFailedDetail(bead.id, count, outcome.detail)),
    ...effects,
  ];
  let state = next;
  const category = failureCategory(outcome.detail);
  if (category) {
    const beads = state.failureCategories[category] ?? [];
    const withBead = beads.includes(bead.id) ? beads : [...beads, bead.id];
    state = { ...state, failureCategories: { ...state.failureCategories, [category]: withBead } };
    if (withBead.length >= settings.systemicThreshold) {
      const stopped = stop(state, 1, 'systemic_failure', RUN.systemicStop(withBead.length, category, withBead));
      return { state: stopped.state, effects: [...said, ...stopped.effects] };
    }
  }
  // A `budget:<USD>` label caps the bead: once its spend reaches it, no further attempt on it.
  const beadOver = count < MAX_ATTEMPTS ? beadBudgetStop(bead.labels, state.beadSpend[bead.id] ?? NO_SPEND) : undefined;
  if (beadOver) {
    state = { ...state, skipped: [...state.skipped, { id: bead.id, title: bead.title, reason: beadOver.line }] };
    said.push(line(RUN.beadBudgetReached(bead.id, beadOver.line)), { type: 'markBlocked', id: bead.id, reason: beadOver.line }, { type: 'recoverOrphans', why: 'failure' });
    return { state, effects: said };
  }
  // Every failure backs off, the 4th too: 5 + 10 + 20 + 40 = the 75 s of docs/contract/design.md §1.
  const seconds = backoffSeconds(count, settings.backoffOverride);
  const last = count >= MAX_ATTEMPTS;
  said.push(
    ...(last ? [line(RUN.lastBackoff(bead.id, count, seconds))] : [line(RUN.attemptBackoff(count + 1, bead.id, seconds))]),
    line(RUN.backoffSummary(bead.id, count, seconds, last)),
    { type: 'record', event: { type: 'backoff', bead: bead.id, attempt: count + 1, seconds, reason: outcome.detail, ...(last ? { last: true } : {}) } },
    { type: 'sleep', seconds },
  );
  if (!last) return { state, effects: [...said, { type: 'recoverOrphans', why: 'failure' }] };
  const blocked = blockIntractable(state, bead, outcome.failure, count, outcome.output);
  return { state: blocked.state, effects: [...said, ...blocked.effects, { type: 'recoverOrphans', why: 'failure' }] };
}

/** Skips a bead after its last failed attempt; a child of the focused epic blocks the epic too. */
export function blockIntractable(state: MachineState, bead: Bead, failure: FailureKind, count: number, output?: string[]): Step {
  const reason = intractableReason(failure, count);
  const skipped: SkippedBead[] = [...state.skipped, { id: bead.id, title: bead.title, reason, ...lastFailure(state, bead.id, output) }];
  const blockedLines =
    failure === 'agent-failed'
      ? [line(RUN.blockedSummary(bead.id, count)), line(RUN.blocking(bead.id, count))]
      : [line(RUN.blockedNonCompletingSummary(bead.id, count)), line(RUN.blockingNonCompleting(bead.id, count))];
  const effects: Effect[] = [...blockedLines, { type: 'markBlocked', id: bead.id, reason }, { type: 'park', id: bead.id, attempts: count }];
  let focusedEpic = state.focusedEpic;
  if (focusedEpic && bead.parent === focusedEpic) {
    const epicReason = `child ${bead.id} intractable after ${count} attempts`;
    skipped.push({ id: focusedEpic, title: state.focusedEpicTitle ?? focusedEpic, reason: epicReason });
    effects.push({ type: 'markBlocked', id: focusedEpic, reason: epicReason }, line(RUN.blockingParentEpic(focusedEpic, bead.id)), line(sessionReset));
    focusedEpic = undefined;
  }
  return { state: { ...state, skipped, focusedEpic }, effects };
}

/** What the blocker report shows of a skipped bead's last failure: its detail and what verification printed last. */
function lastFailure(state: MachineState, id: string, output: string[] | undefined): Pick<SkippedBead, 'lastDetail' | 'output'> {
  const detail = state.failures[id]?.detail;
  return { ...(detail ? { lastDetail: detail } : {}), ...(output && output.length > 0 ? { output } : {}) };
}
