// The `helix run` loop as a state machine: step(state, event) → { state, effects }, no I/O.
// The runner (shell/runner.ts, its effect families beside it) performs the effects — tracker reads and writes, agent calls, sleeps,
// output — and feeds each result back as the next event. Every policy of docs/contract/cli.md §6 lives here:
// cycle accounting, backoff and skipping, epic focus, the NEXT_ACTION routing table, the BUILD
// breaker, periodic alignment, typed stops.
import { EXIT } from '../../errors.js';
import type { Bead } from '../../tracker/bead.js';
import { NO_SPEND, type Spend, addSpend, budgetStop, describeSpend, uncheckableCostCap } from './budget.js';
import { NO_STREAK } from './limit-wait.js';
import { DRIFT_REASON } from './judge.js';
import type { ChangeFacts, Spent } from './outcome.js';
import { UNMEASURED } from './outcome.js';
import { CONTEXT_REFRESH_EVERY, REVIEW_MIN_FILES, type SupervisorSettings } from './policy.js';
import { RUN, sessionReset } from '../text/lines.js';
import { selectNext } from './selection.js';
import { line, stop } from './steps.js';
import { afterUnavailable } from './unavailable.js';
import { afterLimit } from './limited.js';
import { NO_FLEET, fleetAfterCall, fleetQueue } from './fleet.js';
import type { Effect, Event, MachineState, Step } from './machine-types.js';

export type { ActionPurpose, DrainAction, Effect, Event, FleetState, MachineState, ReviewKind, ReviewOutcome, SkippedBead, StopReason, Step } from './machine-types.js';
import { afterAction, routeNextAction } from './routing.js';

export { routeNextAction } from './routing.js';
import { velocityVerdict } from './typed-stops.js';
import { afterFailure } from './failure.js';
import { completeLine, driftLines, settleMembers } from './batch.js';

export function initialState(): MachineState {
  return {
    attempted: 0,
    completed: 0,
    tokens: 0,
    skipped: [],
    failures: {},
    passedOver: [],
    focusedEpic: undefined,
    emptyBuilds: 0,
    drainAnswers: [],
    alignedSinceBuild: false,
    completedDurations: [],
    failureCategories: {},
    alignedAtCompleted: 0,
    afterReview: [],
    limitStreak: NO_STREAK,
    infraStreak: 0,
    fleet: NO_FLEET,
    spend: NO_SPEND,
    beadSpend: {},
    stop: undefined,
  };
}

/** Effects whose result is the next event. A step asks for at most one: the loop has one next event. */
const EVENT_PRODUCING: ReadonlySet<Effect['type']> = new Set(['recoverOrphans', 'readQueue', 'attempt', 'closeEpic', 'runCheck', 'runReview', 'runAction']);

export function producesEvent(effect: Effect): boolean {
  return EVENT_PRODUCING.has(effect.type);
}

/**
 * Refuses a step that asks for more than one event-producing effect: the runner would have to
 * drop all but one result. A bug in the machine, never a user's mistake, so it throws plainly.
 */
export function assertOneNextEvent(event: Event, effects: Effect[]): void {
  const producing = effects.filter(producesEvent).map((e) => e.type);
  if (producing.length > 1) {
    throw new Error(`helix internal error: the step on '${event.type}' asked for ${producing.length} event-producing effects (${producing.join(', ')}); at most one is allowed`);
  }
}


/** After a completed cycle or a closed epic: stop at --max-cycles, else keep going. */
function continueOrStopAtMax(state: MachineState, settings: SupervisorSettings, effects: Effect[]): Step {
  if (settings.maxCycles > 0 && state.completed >= settings.maxCycles) {
    const stopped = stop(state, 0, 'completed', RUN.maxCycles(settings.maxCycles).text);
    return { state: stopped.state, effects: [...effects, ...stopped.effects] };
  }
  return { state, effects: [...effects, { type: 'readQueue' }] };
}

export function step(state: MachineState, event: Event, settings: SupervisorSettings): Step {
  return decide(throughAgain(account(state, event), event), event, settings);
}

/** A call that got through (an attempt, a check, a review, an action) ends a streak of infrastructure failures. */
function throughAgain(state: MachineState, event: Event): MachineState {
  const through = event.type === 'checked' || event.type === 'reviewed' || event.type === 'actionDone' || (event.type === 'attempted' && event.outcome.kind !== 'passed-over');
  return through && state.infraStreak > 0 ? { ...state, infraStreak: 0 } : state;
}

/** Adds what the event's agent call spent to the run's totals (and, for a build, to its bead's). */
function account(state: MachineState, event: Event): MachineState {
  const spent: Spent = 'tokens' in event || 'costUsd' in event ? (event as Spent) : {};
  const next = madeCall(event) ? countSpend(state, event, spent) : state;
  if (!spent.tokens && spent.costUsd === undefined) return next;
  const costUsd = spent.costUsd === undefined ? next.costUsd : (next.costUsd ?? 0) + spent.costUsd;
  return { ...next, tokens: next.tokens + (spent.tokens ?? 0), ...(costUsd !== undefined ? { costUsd } : {}) };
}

/** Events that end an agent call (an attempt passed over before its call made none). */
function madeCall(event: Event): boolean {
  if (event.type === 'attempted') return event.outcome.kind !== 'passed-over';
  // a call that failed on setup or infrastructure spent only what it reported (one never started spent nothing)
  if (event.type === 'unavailable') return Boolean(event.tokens) || event.costUsd !== undefined;
  return event.type === 'limited' || event.type === 'checked' || event.type === 'reviewed' || event.type === 'actionDone';
}

function countSpend(state: MachineState, event: Event, spent: Spent): MachineState {
  const call = { tokens: spent.tokens ?? 0, ...(spent.costUsd !== undefined ? { costUsd: spent.costUsd } : {}) };
  const spend = addSpend(state.spend, call);
  const bead = event.type === 'attempted' || event.type === 'limited' || event.type === 'unavailable' ? event.bead?.id : undefined;
  const beadSpend = bead ? { ...state.beadSpend, [bead]: addSpend(state.beadSpend[bead] ?? NO_SPEND, call) } : state.beadSpend;
  return { ...state, spend, beadSpend };
}

/** The spend as the event log and notifications carry it. */
export function spendFields(spend: Spend): { cost_usd: number; tokens: number; unknown_cost_calls: number } {
  return { cost_usd: Number(spend.costUsd.toFixed(6)), tokens: spend.tokens, unknown_cost_calls: spend.unknownCostCalls };
}

function decide(state: MachineState, event: Event, settings: SupervisorSettings): Step {
  switch (event.type) {
    case 'started': {
      const uncheckable = uncheckableCostCap(settings.budget, event.noCostAgent);
      if (uncheckable) return stop(state, EXIT.budget, 'budget', RUN.budgetStop(uncheckable.line));
      return { state, effects: [{ type: 'recoverOrphans', why: 'start' }] };
    }

    case 'orphansRecovered': {
      if (event.why === 'start') return { state, effects: [{ type: 'writeContext' }, { type: 'readQueue' }] };
      if (event.why === 'failure') return { state, effects: [{ type: 'readQueue' }] };
      if (event.readyAfter > event.readyBefore) {
        return { state: { ...state, emptyBuilds: 0 }, effects: [line(RUN.orphansFreed(event.readyBefore, event.readyAfter)), { type: 'readQueue' }] };
      }
      return stop(state, 0, 'blocked', RUN.nothingSelectable);
    }

    case 'queue':
      if (settings.jobs > 1) return fleetQueue(state, event, settings, (at, read) => selectFromQueue(at, read, settings));
      return selectFromQueue(state, event, settings);

    case 'epicClosed': {
      const epicId = event.epic.id;
      const next = { ...state, completed: state.completed + 1, focusedEpic: state.focusedEpic === epicId ? undefined : state.focusedEpic };
      const effects: Effect[] = [];
      if (crossedMultiple(state.completed, next.completed, CONTEXT_REFRESH_EVERY)) effects.push({ type: 'writeContext' });
      // Post-epic review, scoped to the epic's governing spec, before focus moves on (no size check).
      if (settings.autoReview) {
        const scope = epicReviewScope(event.epic);
        effects.push(line(RUN.epicReviewStarting(epicId, scope)));
        return { state: next, effects: [...effects, { type: 'runReview', kind: 'post-epic', scope, cycle: next.attempted, beadId: epicId }] };
      }
      return continueAfterCompletion(next, settings, [...effects, line(sessionReset)]);
    }

    case 'epicCloseFailed':
      return passOver(state, event.epicId, 'epic could not be closed');

    case 'interrupted':
      return {
        state: { ...state, attempted: state.attempted + (event.attemptInFlight ? 1 : 0), stop: { exitCode: event.exitCode, reason: 'stopped' } },
        effects: [],
      };

    case 'reviewed': {
      if (event.kind === 'post-epic') {
        const effects: Effect[] = [];
        if (event.outcome === 'issues') effects.push(line(RUN.epicReviewGaps));
        if (event.outcome === 'unparseable') effects.push(line(RUN.epicReviewUnparseable(event.rc)));
        return continueAfterCompletion(state, settings, [...effects, line(sessionReset)]);
      }
      const effects: Effect[] = [];
      if (event.outcome === 'issues') effects.push(line(RUN.reviewFiled));
      if (event.outcome === 'unparseable') effects.push(line(RUN.reviewUninterpretable(event.cycle)));
      return continueAfterCompletion({ ...state, afterReview: [] }, settings, [...effects, ...state.afterReview]);
    }

    case 'attempted':
      if (settings.jobs > 1) return fleetAfterCall(state, event, (freed) => afterAttempt(freed, event, settings));
      return afterAttempt(state, event, settings);

    case 'limited':
      if (settings.jobs > 1 && event.bead) return fleetAfterCall(state, event, (freed) => afterLimit(freed, event, settings));
      return afterLimit(state, event, settings);

    case 'unavailable':
      if (settings.jobs > 1 && event.bead) return fleetAfterCall(state, event, (freed) => afterUnavailable(freed, event, settings));
      return afterUnavailable(state, event, settings);

    case 'checked':
      if (!event.ok) return stop(state, 1, 'error', RUN.checkFailed.text);
      return routeNextAction(state, event.nextAction, settings);

    case 'actionDone':
      return afterAction(state, event);
  }
}

/** One pass over the ready queue (docs/contract/bash-interface.md §2.3): epic focus, then the next bead, or drain. */
function selectFromQueue(state: MachineState, event: Extract<Event, { type: 'queue' }>, settings: SupervisorSettings): Step {
  if (settings.maxCycles > 0 && state.completed >= settings.maxCycles) {
    return stop(state, 0, 'completed', RUN.maxCycles(settings.maxCycles).text);
  }
  // The caps are checked between attempts: the attempt that crossed one finished, no new one starts.
  const over = budgetStop(settings.budget, state.spend, event.elapsedMs ?? 0);
  if (over) return stop(state, EXIT.budget, 'budget', RUN.budgetStop(over.line));
  const excluded = new Set([...state.skipped.map((s) => s.id), ...state.passedOver]);
  const selection = selectNext({ ready: event.ready, epics: event.epics, beads: event.beads, focusedEpic: state.focusedEpic, excluded });
  const effects: Effect[] = [];
  if (selection.released) effects.push(line(RUN.epicNoneEligible(selection.released.epic, selection.released.open)), line(sessionReset));
  if (selection.kind === 'closeEpic') {
    return { state, effects: [...effects, line(RUN.epicDone(selection.epic.id)), { type: 'closeEpic', epicId: selection.epic.id }] };
  }
  if (selection.kind === 'drained') {
    return { state: { ...state, focusedEpic: selection.focusedEpic }, effects: [...effects, { type: 'runCheck' }] };
  }
  const { bead, focusedEpic } = selection;
  if (selection.focus === 'child' && focusedEpic) effects.push(line(RUN.epicFocusChild(focusedEpic, bead.id)));
  if (selection.focus === 'parent' && focusedEpic) effects.push(line(RUN.epicFocusParent(focusedEpic, bead.id)));
  if (focusedEpic !== state.focusedEpic && focusedEpic) effects.push({ type: 'writeContext' });
  const cycle = state.attempted + 1;
  const readyCount = event.ready.filter((b) => !excluded.has(b.id)).length;
  effects.push({ type: 'attempt', bead, cycle, focusedEpic, ready: event.ready, readyCount });
  const focusedEpicTitle = focusedEpic ? event.beads.find((b) => b.id === focusedEpic)?.title : undefined;
  return { state: { ...state, focusedEpic, focusedEpicTitle }, effects };
}

function afterAttempt(state: MachineState, event: Extract<Event, { type: 'attempted' }>, settings: SupervisorSettings): Step {
  const { bead, outcome } = event;
  if (outcome.kind === 'passed-over') return passOver(state, bead.id, outcome.reason);
  const base: MachineState = {
    ...state,
    limitStreak: NO_STREAK,
    attempted: state.attempted + 1,
    passedOver: [],
    emptyBuilds: 0,
    drainAnswers: [],
    alignedSinceBuild: false,
  };
  const cycle = event.cycle ?? base.attempted;
  const batch = event.batch ?? [];

  if (outcome.kind === 'completed') {
    const counted: MachineState = {
      ...base,
      completed: base.completed + 1,
      completedDurations: [...base.completedDurations, event.durationSec],
    };
    const effects: Effect[] = [];
    if (outcome.salvage) {
      const { rc, closedBefore, closedAfter } = outcome.salvage;
      effects.push(line(RUN.salvaged(rc, closedBefore, closedAfter)), line(RUN.salvagedSummary(cycle, bead.id, rc)));
    }
    if (outcome.salvaged) effects.push(line(RUN.salvagedVerified(bead.id)));
    const members = settleMembers(counted, batch, bead.id, cycle);
    const next = members.state;
    // The COMPLETE lines (the primary's, then its batch members') come after the review (§2.7).
    const completion: Effect[] = [completeLine(cycle, bead.id, counted), ...members.effects];
    const velocity = velocityVerdict(next.completedDurations, settings.velocityFactor, settings.velocitySeconds);
    if (velocity.kind === 'collapse') {
      const stopped = stop(next, 1, 'velocity_collapse', RUN.velocityStop(velocity.detail));
      return { state: stopped.state, effects: [...effects, ...completion, ...stopped.effects] };
    }
    if (velocity.kind === 'warning') effects.push(line(RUN.velocityWarning(velocity.detail)));
    if (crossedMultiple(state.completed, next.completed, CONTEXT_REFRESH_EVERY)) effects.push({ type: 'writeContext' });
    if (!settings.autoReview) return continueAfterCompletion(next, settings, [...effects, ...completion]);
    if (outcome.reviewedBy === 'ddx') return continueAfterCompletion(next, settings, [...effects, line(RUN.reviewedByDdx(bead.id)), ...completion]);
    return reviewAfterImplementation(next, settings, cycle, bead.id, outcome.change, effects, completion);
  }

  if (outcome.kind === 'drift') {
    const drifted: MachineState = { ...base, skipped: [...base.skipped, { id: bead.id, title: bead.title, reason: DRIFT_REASON }] };
    const members = settleMembers(drifted, batch, bead.id, cycle);
    const effects: Effect[] = [...driftLines(bead.id, outcome.changes), line(RUN.skippingAfterDrift(bead.id)), ...members.effects];
    // No review and no periodic alignment for a drifted cycle; members that completed still count.
    if (crossedMultiple(state.completed, members.state.completed, CONTEXT_REFRESH_EVERY)) effects.push({ type: 'writeContext' });
    return { state: members.state, effects: [...effects, { type: 'readQueue' }] };
  }

  // failed (core/failure.ts: the lines, the backoff, the skip)
  const count = (base.failures[bead.id]?.count ?? 0) + 1;
  const failedOnce: MachineState = { ...base, failures: { ...base.failures, [bead.id]: { count, last: outcome.failure, detail: outcome.detail } } };
  const members = settleMembers(failedOnce, batch, bead.id, cycle);
  const effects: Effect[] = [...members.effects];
  if (crossedMultiple(state.completed, members.state.completed, CONTEXT_REFRESH_EVERY)) effects.push({ type: 'writeContext' });
  return afterFailure(members.state, bead, outcome, cycle, settings, effects);
}

/** What the run spent, in words (for the lines that say it). */
export const spentWords = (state: MachineState): string => describeSpend(state.spend);

/** A bead not attempted in this pass (not ready at the re-read, or an epic that would not close). */
function passOver(state: MachineState, id: string, reason: string): Step {
  return { state: { ...state, passedOver: [...state.passedOver, id] }, effects: [line(RUN.passedOver(id, reason)), { type: 'readQueue' }] };
}

/** The post-epic review's scope (docs/contract/bash-interface.md §2.8): the epic's governing spec, else the last commit. */
export function epicReviewScope(epic: Bead): string {
  return typeof epic['spec-id'] === 'string' && epic['spec-id'] ? epic['spec-id'] : 'last-commit';
}

/**
 * Whether the post-implementation review runs (docs/contract/bash-interface.md §2.8). It fails safe: a change that could
 * not be measured counts as UNMEASURED lines and files, and a threshold of 0 reviews every cycle.
 * Skipped only when the threshold is above 0 and the change is below it in lines and below 3 files.
 */
function reviewAfterImplementation(
  state: MachineState,
  settings: SupervisorSettings,
  cycle: number,
  beadId: string,
  change: ChangeFacts | undefined,
  effects: Effect[],
  completion: Effect[],
): Step {
  const facts = change ?? { scope: 'last-commit', lines: UNMEASURED, files: UNMEASURED };
  if (facts.unavailableSha) effects.push(line(RUN.reviewFallback(beadId, facts.unavailableSha)));
  const small = settings.reviewThreshold > 0 && facts.lines < settings.reviewThreshold && facts.files < REVIEW_MIN_FILES;
  if (small) {
    effects.push(line(RUN.reviewSkipped(facts.scope, facts.lines, facts.files, settings.reviewThreshold)));
    return continueAfterCompletion(state, settings, [...effects, ...completion]);
  }
  effects.push(line(RUN.reviewStarting(cycle, facts.scope)));
  return {
    state: { ...state, afterReview: completion },
    effects: [...effects, { type: 'runReview', kind: 'post-implementation', scope: facts.scope, cycle, beadId }],
  };
}

/** True when going from `before` to `after` passed a multiple of `every` (a batch may add several). */
function crossedMultiple(before: number, after: number, every: number): boolean {
  return every > 0 && Math.floor(after / every) > Math.floor(before / every);
}

/** After a completed cycle (and its review): periodic alignment every --review-every, or go on. */
function continueAfterCompletion(state: MachineState, settings: SupervisorSettings, effects: Effect[]): Step {
  const atMax = settings.maxCycles > 0 && state.completed >= settings.maxCycles;
  if (!atMax && crossedMultiple(state.alignedAtCompleted, state.completed, settings.reviewEvery)) {
    return {
      state: { ...state, alignedAtCompleted: state.completed },
      effects: [...effects, line(RUN.periodicAlignment(state.completed)), { type: 'runAction', action: 'align', purpose: 'periodic' }],
    };
  }
  return continueOrStopAtMax(state, settings, effects);
}
