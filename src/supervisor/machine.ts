// The `helix run` loop as a state machine: step(state, event) → { state, effects }, no I/O.
// The runner (runner.ts) performs the effects — tracker reads and writes, agent calls, sleeps,
// output — and feeds each result back as the next event. Every policy of contract §6 lives here:
// cycle accounting, backoff and skipping, epic focus, the NEXT_ACTION routing table, the BUILD
// breaker, periodic alignment, typed stops.
import type { NextAction } from '../agents/index.js';
import type { Bead } from '../tracker/index.js';
import { type FailureKind, DRIFT_REASON, intractableReason } from './judge.js';
import { CONTEXT_REFRESH_EVERY, MAX_ATTEMPTS, REVIEW_MIN_FILES, type SupervisorSettings, backoffSeconds } from './policy.js';
import { selectNext } from './selection.js';
import { failureCategory, velocityVerdict } from './typed-stops.js';

export type StopReason = 'completed' | 'error' | 'blocked' | 'systemic_failure' | 'velocity_collapse';
export type DrainAction = 'design' | 'polish' | 'align' | 'backfill';
export type ActionPurpose = 'drain' | 'pre-stop' | 'periodic';

export interface SkippedBead {
  id: string;
  title: string;
  reason: string;
}

export interface MachineState {
  attempted: number;
  completed: number;
  /** Tokens of every agent call of the run (builds, checks, reviews, actions). */
  tokens: number;
  /** Dollars the agents reported (claude does, codex does not); undefined until one reports. */
  costUsd?: number;
  skipped: SkippedBead[];
  /** Failed attempts per bead in this run, and how the last one failed. */
  failures: Record<string, { count: number; last: FailureKind }>;
  /** Beads passed over in this pass (not ready at re-read); cleared after the next attempt. */
  passedOver: string[];
  focusedEpic: string | undefined;
  /** The focused epic's title, for the blocker report when a child blocks it. */
  focusedEpicTitle?: string;
  /** BUILD answers from check since the last build attempt (the BUILD breaker counts them). */
  emptyBuilds: number;
  /** check answers since the last build, to stop on a repeated DESIGN / POLISH / BACKFILL. */
  drainAnswers: NextAction[];
  alignedSinceBuild: boolean;
  /** Durations (s) of completed cycles, for VELOCITY_COLLAPSE. */
  completedDurations: number[];
  /** Failure category → distinct beads that failed with it, for SYSTEMIC_FAILURE. */
  failureCategories: Record<string, string[]>;
  /** `completed` when periodic alignment last came due (a batch can complete several at once). */
  alignedAtCompleted: number;
  stop: { exitCode: number; reason: StopReason } | undefined;
}

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
    stop: undefined,
  };
}

export type AttemptOutcome =
  | { kind: 'passed-over'; reason: string }
  | { kind: 'completed'; salvaged: boolean; change?: { lines: number; files: number } }
  | { kind: 'drift'; changes: string[] }
  | { kind: 'failed'; failure: FailureKind; detail: string };

/**
 * How a batch member ended — a related ready bead claimed beside the primary for one direct prompt.
 * Each completed member counts as a completed bead; the cycle stays one cycle (attempted + 1).
 */
export type MemberOutcome =
  | { kind: 'completed' }
  /** Not closed by the agent: optional work, released without counting an attempt. */
  | { kind: 'released' }
  | { kind: 'drift'; changes: string[] }
  /** Closed by the agent but verification failed: reopened, a failed attempt like the primary's. */
  | { kind: 'failed'; detail: string };

export interface MemberVerdict {
  bead: Bead;
  outcome: MemberOutcome;
}

/** What an agent call spent; events that end one carry it and the machine adds it to the run. */
export interface Spent {
  tokens?: number;
  costUsd?: number;
}

export type Event =
  | { type: 'started' }
  | { type: 'orphansRecovered'; why: 'start' | 'failure' | 'build-breaker'; readyBefore: number; readyAfter: number }
  | { type: 'queue'; ready: Bead[]; beads: Bead[] }
  | { type: 'epicClosed'; epicId: string; reviewScope: string }
  | ({ type: 'reviewed'; cycle: number; parseable: boolean } & Spent)
  | ({ type: 'attempted'; bead: Bead; outcome: AttemptOutcome; durationSec: number; tokens: number; /** batch members beside `bead` */ batch?: MemberVerdict[] } & Spent)
  | ({ type: 'checked'; nextAction: NextAction | undefined } & Spent)
  | ({ type: 'actionDone'; action: DrainAction; purpose: ActionPurpose; ok: boolean; detail?: string } & Spent);

/** Lines: `summary` shows in every mode; `verbose` only without --summary/--quiet (always in the log). */
export type Effect =
  | { type: 'say'; level: 'summary' | 'verbose'; text: string; /** prefix `helix: [HH:MM:SS] ` */ stamped?: boolean }
  | { type: 'cycleStart'; cycle: number; beadId: string; readyCount: number }
  | { type: 'writeContext' }
  | { type: 'recoverOrphans'; why: 'start' | 'failure' | 'build-breaker' }
  | { type: 'readQueue' }
  | { type: 'attempt'; bead: Bead; cycle: number; focusedEpic: string | undefined; ready: Bead[] }
  | { type: 'closeEpic'; epicId: string }
  | { type: 'markBlocked'; id: string; reason: string }
  | { type: 'sleep'; seconds: number }
  | { type: 'runCheck' }
  | { type: 'runReview'; scope: string; cycle: number; /** the bead or epic whose change is reviewed */ beadId: string }
  | { type: 'runAction'; action: DrainAction; purpose: ActionPurpose }
  | { type: 'stop'; exitCode: number; reason: StopReason; message?: string };

export interface Step {
  state: MachineState;
  effects: Effect[];
}

const stop = (state: MachineState, exitCode: number, reason: StopReason, message?: string): Step => ({
  state: { ...state, stop: { exitCode, reason } },
  effects: [message ? { type: 'stop', exitCode, reason, message } : { type: 'stop', exitCode, reason }],
});

/** After a completed cycle or a closed epic: stop at --max-cycles, else keep going. */
function continueOrStopAtMax(state: MachineState, settings: SupervisorSettings, effects: Effect[]): Step {
  if (settings.maxCycles > 0 && state.completed >= settings.maxCycles) {
    const stopped = stop(state, 0, 'completed', `helix: reached max cycles (${settings.maxCycles})`);
    return { state: stopped.state, effects: [...effects, ...stopped.effects] };
  }
  return { state, effects: [...effects, { type: 'readQueue' }] };
}

export function step(state: MachineState, event: Event, settings: SupervisorSettings): Step {
  return decide(account(state, event), event, settings);
}

/** Adds what the event's agent call spent to the run's totals. */
function account(state: MachineState, event: Event): MachineState {
  const spent: Spent = 'tokens' in event || 'costUsd' in event ? (event as Spent) : {};
  if (!spent.tokens && spent.costUsd === undefined) return state;
  const costUsd = spent.costUsd === undefined ? state.costUsd : (state.costUsd ?? 0) + spent.costUsd;
  return { ...state, tokens: state.tokens + (spent.tokens ?? 0), ...(costUsd !== undefined ? { costUsd } : {}) };
}

function decide(state: MachineState, event: Event, settings: SupervisorSettings): Step {
  switch (event.type) {
    case 'started':
      return { state, effects: [{ type: 'recoverOrphans', why: 'start' }] };

    case 'orphansRecovered': {
      if (event.why === 'start') return { state, effects: [{ type: 'writeContext' }, { type: 'readQueue' }] };
      if (event.why === 'failure') return { state, effects: [{ type: 'readQueue' }] };
      if (event.readyAfter > event.readyBefore) {
        return {
          state: { ...state, emptyBuilds: 0 },
          effects: [
            { type: 'say', level: 'summary', text: `helix: orphan recovery freed issues (${event.readyBefore} → ${event.readyAfter} ready), retrying` },
            { type: 'readQueue' },
          ],
        };
      }
      return stop(state, 0, 'blocked', 'helix: no selectable issues after orphan recovery — stopping');
    }

    case 'queue': {
      if (settings.maxCycles > 0 && state.completed >= settings.maxCycles) {
        return stop(state, 0, 'completed', `helix: reached max cycles (${settings.maxCycles})`);
      }
      const excluded = new Set([...state.skipped.map((s) => s.id), ...state.passedOver]);
      const selection = selectNext({ ready: event.ready, beads: event.beads, focusedEpic: state.focusedEpic, excluded });
      if (selection.kind === 'closeEpic') return { state, effects: [{ type: 'closeEpic', epicId: selection.epic.id }] };
      if (selection.kind === 'drained') {
        const effects: Effect[] = [];
        if (state.focusedEpic && !selection.focusedEpic) effects.push({ type: 'say', level: 'verbose', text: `helix: leaving epic focus ${state.focusedEpic}` });
        return { state: { ...state, focusedEpic: selection.focusedEpic }, effects: [...effects, { type: 'runCheck' }] };
      }
      const effects: Effect[] = [];
      if (selection.announce) effects.push({ type: 'say', level: 'verbose', text: selection.announce });
      if (selection.focusedEpic !== state.focusedEpic && selection.focusedEpic) effects.push({ type: 'writeContext' });
      const cycle = state.attempted + 1;
      const readyCount = event.ready.filter((b) => !excluded.has(b.id)).length;
      effects.push({ type: 'cycleStart', cycle, beadId: selection.bead.id, readyCount });
      effects.push({ type: 'attempt', bead: selection.bead, cycle, focusedEpic: selection.focusedEpic, ready: event.ready });
      const focusedEpicTitle = selection.focusedEpic ? event.beads.find((b) => b.id === selection.focusedEpic)?.title : undefined;
      return { state: { ...state, focusedEpic: selection.focusedEpic, focusedEpicTitle }, effects };
    }

    case 'epicClosed': {
      const next = { ...state, completed: state.completed + 1, focusedEpic: state.focusedEpic === event.epicId ? undefined : state.focusedEpic };
      const effects: Effect[] = [{ type: 'say', level: 'verbose', text: `helix: closed epic ${event.epicId} (all children closed)` }];
      // Post-epic review, scoped to the epic's governing spec, before focus moves on.
      if (settings.autoReview) return { state: next, effects: [...effects, { type: 'runReview', scope: event.reviewScope, cycle: next.attempted, beadId: event.epicId }] };
      return continueOrStopAtMax(next, settings, effects);
    }

    case 'reviewed': {
      const effects: Effect[] = event.parseable
        ? []
        : [
            { type: 'say', level: 'summary', text: 'helix: review output missing REVIEW_STATUS trailer' },
            { type: 'say', level: 'summary', text: `review output was not safely interpretable after cycle ${event.cycle} — continuing` },
          ];
      return continueAfterCompletion(state, settings, effects);
    }

    case 'attempted':
      return afterAttempt(state, event, settings);

    case 'checked':
      return routeNextAction(state, event.nextAction, settings);

    case 'actionDone':
      return afterAction(state, event);
  }
}

function afterAttempt(state: MachineState, event: Extract<Event, { type: 'attempted' }>, settings: SupervisorSettings): Step {
  const { bead, outcome } = event;
  if (outcome.kind === 'passed-over') {
    return {
      state: { ...state, passedOver: [...state.passedOver, bead.id] },
      effects: [{ type: 'say', level: 'verbose', text: `helix: skipping ${bead.id} this pass: ${outcome.reason}` }, { type: 'readQueue' }],
    };
  }
  const base: MachineState = {
    ...state,
    attempted: state.attempted + 1,
    passedOver: [],
    emptyBuilds: 0,
    drainAnswers: [],
    alignedSinceBuild: false,
  };
  const cycle = base.attempted;
  const batch = event.batch ?? [];

  if (outcome.kind === 'completed') {
    const counted: MachineState = {
      ...base,
      completed: base.completed + 1,
      completedDurations: [...base.completedDurations, event.durationSec],
    };
    const effects: Effect[] = [completeLine(cycle, bead.id, counted)];
    // The COMPLETE line is parsed by harnesses in its exact contract shape; SALVAGED goes beside it.
    if (outcome.salvaged) effects.push({ type: 'say', level: 'verbose', text: `helix: ${bead.id} SALVAGED: the agent failed but the bead is closed and verified` });
    const members = settleMembers(counted, batch, bead.id, cycle);
    const next = members.state;
    effects.push(...members.effects);
    const velocity = velocityVerdict(next.completedDurations, settings.velocityFactor, settings.velocitySeconds);
    if (velocity.kind === 'collapse') {
      const stopped = stop(next, 1, 'velocity_collapse', `helix: stopping: VELOCITY_COLLAPSE: ${velocity.detail}`);
      return { state: stopped.state, effects: [...effects, ...stopped.effects] };
    }
    if (velocity.kind === 'warning') effects.push({ type: 'say', level: 'summary', text: `helix: warning: velocity dropping: ${velocity.detail}` });
    if (crossedMultiple(state.completed, next.completed, CONTEXT_REFRESH_EVERY)) effects.push({ type: 'writeContext' });
    const change = outcome.change;
    if (settings.autoReview && change && (change.lines >= settings.reviewThreshold || change.files >= REVIEW_MIN_FILES)) {
      return { state: next, effects: [...effects, { type: 'runReview', scope: 'last-commit', cycle, beadId: bead.id }] };
    }
    return continueAfterCompletion(next, settings, effects);
  }

  if (outcome.kind === 'drift') {
    const drifted: MachineState = { ...base, skipped: [...base.skipped, { id: bead.id, title: bead.title, reason: DRIFT_REASON }] };
    const members = settleMembers(drifted, batch, bead.id, cycle);
    const effects: Effect[] = [...driftLines(bead.id, outcome.changes), ...members.effects];
    if (members.state.completed === state.completed) return { state: members.state, effects: [...effects, { type: 'readQueue' }] };
    if (crossedMultiple(state.completed, members.state.completed, CONTEXT_REFRESH_EVERY)) effects.push({ type: 'writeContext' });
    return continueAfterCompletion(members.state, settings, effects);
  }

  // failed
  const count = (base.failures[bead.id]?.count ?? 0) + 1;
  const failedOnce: MachineState = { ...base, failures: { ...base.failures, [bead.id]: { count, last: outcome.failure } } };
  const members = settleMembers(failedOnce, batch, bead.id, cycle);
  let next = members.state;
  const effects: Effect[] = [
    { type: 'say', level: 'summary', stamped: true, text: `cycle ${cycle}: FAILED` },
    { type: 'say', level: 'verbose', text: `helix: ${bead.id} attempt ${count} failed: ${outcome.detail}` },
    ...members.effects,
  ];
  if (crossedMultiple(state.completed, next.completed, CONTEXT_REFRESH_EVERY)) effects.push({ type: 'writeContext' });
  const category = failureCategory(outcome.detail);
  if (category) {
    const beads = next.failureCategories[category] ?? [];
    const withBead = beads.includes(bead.id) ? beads : [...beads, bead.id];
    next = { ...next, failureCategories: { ...next.failureCategories, [category]: withBead } };
    if (withBead.length >= settings.systemicThreshold) {
      const stopped = stop(
        next,
        1,
        'systemic_failure',
        `helix: stopping: SYSTEMIC_FAILURE: ${withBead.length} beads failed with "${category}" (${withBead.join(', ')}); see the systemic memory (helix memory recall "${category}" --type systemic)`,
      );
      return { state: stopped.state, effects: [...effects, ...stopped.effects] };
    }
  }
  // Every failure backs off, the 4th too: 5 + 10 + 20 + 40 = the 75 s seed 004 promises.
  const seconds = backoffSeconds(count, settings.backoffOverride);
  if (count < MAX_ATTEMPTS) {
    effects.push({ type: 'say', level: 'verbose', text: `helix: backing off ${seconds}s before retrying ${bead.id} (attempt ${count}/${MAX_ATTEMPTS})` });
    effects.push({ type: 'sleep', seconds }, { type: 'recoverOrphans', why: 'failure' });
    return { state: next, effects };
  }
  effects.push({ type: 'say', level: 'verbose', text: `helix: backing off ${seconds}s before blocking ${bead.id} (attempt ${count}/${MAX_ATTEMPTS})` });
  effects.push({ type: 'sleep', seconds });
  const blocked = blockIntractable(next, bead, outcome.failure, count);
  effects.push(...blocked.effects, { type: 'recoverOrphans', why: 'failure' });
  return { state: blocked.state, effects };
}

const completeLine = (cycle: number, id: string, s: MachineState): Effect => ({
  type: 'say',
  level: 'summary',
  stamped: true,
  text: `cycle ${cycle}: ${id} → COMPLETE (${s.completed}/${s.attempted} done, ${s.tokens} tokens)`,
});

const driftLines = (id: string, changes: string[]): Effect[] => [
  { type: 'say', level: 'summary', text: `helix: queue drift detected for ${id}; refusing stale completion` },
  { type: 'say', level: 'verbose', text: `helix: changed: ${changes.join(', ')}` },
];

/** True when going from `before` to `after` passed a multiple of `every` (a batch may add several). */
function crossedMultiple(before: number, after: number, every: number): boolean {
  return every > 0 && Math.floor(after / every) > Math.floor(before / every);
}

/**
 * Counts a cycle's batch members: each completed member is a completed bead (its own COMPLETE
 * line, same cycle number); a drifted one is skipped like a drifted primary; a closed one that
 * failed verification is a failed attempt on it (blocked after MAX_ATTEMPTS, no backoff sleep: the
 * loop does not retry it next). It stays out of SYSTEMIC_FAILURE, which counts beads the loop
 * chose, and one shared verify run must not count as three distinct failures. A released member
 * counts nothing: it was optional work.
 */
function settleMembers(state: MachineState, batch: MemberVerdict[], primaryId: string, cycle: number): Step {
  let next = state;
  const effects: Effect[] = [];
  for (const { bead, outcome } of batch) {
    switch (outcome.kind) {
      case 'completed':
        next = { ...next, completed: next.completed + 1 };
        effects.push({ type: 'say', level: 'verbose', text: `helix: batch member ${bead.id} (with ${primaryId}) closed and verified` }, completeLine(cycle, bead.id, next));
        break;
      case 'released':
        effects.push({ type: 'say', level: 'verbose', text: `helix: batch member ${bead.id} not closed this cycle; claim released, no attempt counted` });
        break;
      case 'drift':
        next = { ...next, skipped: [...next.skipped, { id: bead.id, title: bead.title, reason: DRIFT_REASON }] };
        effects.push(...driftLines(bead.id, outcome.changes));
        break;
      case 'failed': {
        const count = (next.failures[bead.id]?.count ?? 0) + 1;
        next = { ...next, failures: { ...next.failures, [bead.id]: { count, last: 'no-completion' } } };
        effects.push({ type: 'say', level: 'verbose', text: `helix: batch member ${bead.id} attempt ${count} failed: ${outcome.detail}` });
        if (count >= MAX_ATTEMPTS) {
          const blocked = blockIntractable(next, bead, 'no-completion', count);
          next = blocked.state;
          effects.push(...blocked.effects);
        }
        break;
      }
    }
  }
  return { state: next, effects };
}

/** Skips a bead after its last failed attempt; a child of the focused epic blocks the epic too. */
function blockIntractable(state: MachineState, bead: Bead, failure: FailureKind, count: number): Step {
  const reason = intractableReason(failure, count);
  const skipped: SkippedBead[] = [...state.skipped, { id: bead.id, title: bead.title, reason }];
  const effects: Effect[] = [{ type: 'say', level: 'summary', stamped: true, text: `BLOCKED ${bead.id} after ${count} attempts` }, { type: 'markBlocked', id: bead.id, reason }];
  let focusedEpic = state.focusedEpic;
  if (focusedEpic && bead.parent === focusedEpic) {
    const epicReason = `child ${bead.id} intractable after ${count} attempts`;
    skipped.push({ id: focusedEpic, title: state.focusedEpicTitle ?? focusedEpic, reason: epicReason });
    effects.push({ type: 'markBlocked', id: focusedEpic, reason: epicReason });
    focusedEpic = undefined;
  }
  return { state: { ...state, skipped, focusedEpic }, effects };
}

/** After a completed cycle (and its review): periodic alignment every --review-every, or go on. */
function continueAfterCompletion(state: MachineState, settings: SupervisorSettings, effects: Effect[]): Step {
  const atMax = settings.maxCycles > 0 && state.completed >= settings.maxCycles;
  if (!atMax && crossedMultiple(state.alignedAtCompleted, state.completed, settings.reviewEvery)) {
    return { state: { ...state, alignedAtCompleted: state.completed }, effects: [...effects, { type: 'runAction', action: 'align', purpose: 'periodic' }] };
  }
  return continueOrStopAtMax(state, settings, effects);
}

/** The routing table of contract §6.6. */
export function routeNextAction(state: MachineState, action: NextAction | undefined, settings: SupervisorSettings): Step {
  if (!action) return stop(state, 1, 'error', 'helix: unable to determine NEXT_ACTION from check output');
  const repeated = state.drainAnswers.includes(action);
  const next: MachineState = { ...state, drainAnswers: [...state.drainAnswers, action] };
  const stopAfter = (exitCode: number, reason: StopReason) => stop(next, exitCode, reason, `helix: stopping after check returned ${action}`);
  switch (action) {
    case 'BUILD': {
      const emptyBuilds = state.emptyBuilds + 1;
      if (emptyBuilds >= 2) return { state: { ...next, emptyBuilds }, effects: [{ type: 'recoverOrphans', why: 'build-breaker' }] };
      return { state: { ...next, emptyBuilds }, effects: [{ type: 'readQueue' }] };
    }
    case 'DESIGN':
    case 'POLISH':
    case 'BACKFILL':
      if (repeated) return stopAfter(0, 'completed');
      return { state: next, effects: [{ type: 'runAction', action: action.toLowerCase() as DrainAction, purpose: 'drain' }] };
    case 'ALIGN':
      if (settings.autoAlign && !state.alignedSinceBuild) {
        return { state: next, effects: [{ type: 'runAction', action: 'align', purpose: 'drain' }] };
      }
      return stopAfter(0, 'completed');
    case 'WAIT':
    case 'GUIDANCE':
      return stopAfter(0, 'blocked');
    case 'STOP':
      // Align once before stopping, but only when this run built something the plan has not seen.
      if (settings.autoAlign && !state.alignedSinceBuild && state.completed > 0) {
        return { state: next, effects: [{ type: 'runAction', action: 'align', purpose: 'pre-stop' }] };
      }
      return stopAfter(0, 'completed');
  }
}

function afterAction(state: MachineState, event: Extract<Event, { type: 'actionDone' }>): Step {
  const next = event.action === 'align' && event.ok ? { ...state, alignedSinceBuild: true } : state;
  const why = event.detail ? `: ${event.detail}` : '';
  switch (event.purpose) {
    case 'drain':
      if (!event.ok) return stop(next, 1, 'error', `helix: ${event.action} failed after queue drain${why}`);
      return { state: next, effects: [{ type: 'runCheck' }] };
    case 'pre-stop':
      if (!event.ok) return stop(next, 1, 'error', `helix: align failed before stop${why}`);
      return stop(next, 0, 'completed', 'helix: stopping after check returned STOP');
    case 'periodic':
      if (!event.ok) return stop(next, 1, 'error', `helix: periodic alignment failed — stopping${why}`);
      return { state: next, effects: [{ type: 'readQueue' }] };
  }
}
