// `helix run --jobs N` (current DDx): up to N builds in flight, each a `ddx try` in DDx's own
// worktree under DDx's own lease. The machine's decisions stay the ones a single build gets —
// this file only changes *when* things happen, so that one slot's wait never holds the others:
//   - the queue read starts what the scheduler allows (core/scheduler.ts) instead of one bead;
//   - a failed attempt's backoff keeps that bead back for its seconds instead of sleeping the run;
//   - a limit or an infrastructure wait pauses dispatch instead of sleeping the run;
//   - a stop (a budget, --max-duration, --max-cycles, a limit past --max-wait, a typed stop) stops
//     dispatch and waits for the beads in flight, then stops;
//   - the check, its NEXT_ACTION and the actions it routes to run only with every slot idle and
//     nothing left to start, as with one slot.
// The runner performs `startAttempt` without waiting for it; each attempt's end comes back as its event.
import type { Effect, Event, FleetState, MachineState, Step } from './machine-types.js';

export type { FleetState } from './machine-types.js';
import { filesOf, fleetOrder, whichMayStart } from './scheduler.js';
import type { SupervisorSettings } from './policy.js';


export const NO_FLEET: FleetState = Object.freeze({ inFlight: [], started: 0, notBefore: {} }) as FleetState;

type CallEnd = Extract<Event, { type: 'attempted' | 'limited' | 'unavailable' }>;

/**
 * A queue read with several slots. `single` is the one-slot decision (selectFromQueue), asked when
 * the read would stop the run or when nothing is left to start and no slot is busy (the drain).
 */
export function fleetQueue(state: MachineState, event: Extract<Event, { type: 'queue' }>, settings: SupervisorSettings, single: (state: MachineState, event: Extract<Event, { type: 'queue' }>) => Step): Step {
  const fleet = state.fleet;
  const now = event.at ?? 0;
  if (fleet.pendingStop) return fleet.inFlight.length > 0 ? { state, effects: [] } : stopNow(state);
  const excluded = new Set([...state.skipped.map((s) => s.id), ...state.passedOver, ...Object.keys(fleet.notBefore).filter((id) => (fleet.notBefore[id] ?? 0) > now)]);
  const paused = (fleet.pausedUntil ?? 0) > now;
  if (!paused && fleet.onResume) {
    const { onResume, ...rest } = fleet;
    const resumed = fleetQueue({ ...state, fleet: rest }, event, settings, single);
    return { state: resumed.state, effects: [...onResume, ...resumed.effects] };
  }
  const ordered = fleetOrder(event.ready, event.beads, (id) => state.failures[id]?.count ?? 0);
  const start = whichMayStart({ ready: ordered, inFlight: fleet.inFlight, slots: settings.jobs, excluded, paused });
  // the caps, --max-cycles and the drain are the one-slot decisions
  const probe = single(state, { ...event, ready: start.length > 0 ? event.ready : [] });
  if (probe.state.stop) return holdStop(probe);
  if (start.length > 0) {
    const effects: Effect[] = start.map((bead, i) => ({ type: 'startAttempt', bead, cycle: fleet.started + i + 1, readyCount: event.ready.length - excluded.size }));
    const inFlight = [...fleet.inFlight, ...start.map((bead) => ({ id: bead.id, files: filesOf(bead) }))];
    return { state: { ...state, fleet: { ...fleet, inFlight, started: fleet.started + start.length } }, effects };
  }
  if (fleet.inFlight.length > 0) return { state, effects: [] }; // a slot's end comes back as an event
  // idle: wait out a pause or the earliest backoff of a ready bead, else drain as one slot does
  const waits = [...(paused ? [fleet.pausedUntil ?? now] : []), ...event.ready.map((b) => fleet.notBefore[b.id] ?? 0).filter((at) => at > now)];
  if (waits.length > 0) return { state, effects: [{ type: 'sleep', seconds: (Math.min(...waits) - now) / 1000 }, { type: 'readQueue' }] };
  return probe;
}

/**
 * A slot's attempt ended (or its call hit a limit or failed on setup or infrastructure): the
 * one-slot decision, with its sleep turned into a backoff of that bead or a pause of dispatch, and
 * its stop held until the other slots are done.
 */
export function fleetAfterCall(state: MachineState, event: CallEnd, single: (state: MachineState) => Step): Step {
  const id = event.bead?.id;
  const freed: MachineState = { ...state, fleet: { ...state.fleet, inFlight: state.fleet.inFlight.filter((f) => f.id !== id) } };
  const decided = single(freed);
  const at = ('at' in event ? event.at : undefined) ?? 0;
  let fleet = decided.state.fleet;
  const effects: Effect[] = [];
  for (const effect of decided.effects) {
    if (effect.type !== 'sleep') {
      effects.push(effect);
      continue;
    }
    const until = at + effect.seconds * 1000;
    if (event.type === 'attempted' && id) fleet = { ...fleet, notBefore: { ...fleet.notBefore, [id]: until } };
    else fleet = { ...fleet, pausedUntil: Math.max(fleet.pausedUntil ?? 0, until) };
  }
  if (event.type !== 'attempted') {
    const resume = effects.filter(isResume);
    if (resume.length > 0) fleet = { ...fleet, onResume: resume };
  }
  const step: Step = { state: { ...decided.state, fleet }, effects: effects.filter((e) => !isResume(e)) };
  if (step.state.stop) return holdStop(step);
  return needsQueueRead(step) ? { state: step.state, effects: [...step.effects, { type: 'readQueue' }] } : step;
}

/** A limit's resume line and event: in a fleet they come when dispatch resumes, not at the pause. */
function isResume(effect: Effect): boolean {
  return (effect.type === 'record' && effect.event.type === 'limit_resume') || (effect.type === 'say' && effect.afterPause === true);
}

/** After a slot's end the run reads the queue again, unless the decision already asks for an event. */
function needsQueueRead(step: Step): boolean {
  return !step.effects.some((e) => ['readQueue', 'recoverOrphans', 'runReview', 'runAction', 'runCheck', 'closeEpic', 'attempt'].includes(e.type));
}

/** A stop decided while slots are busy: said now, performed when the last one is done. */
function holdStop(decided: Step): Step {
  const busy = decided.state.fleet.inFlight.length > 0;
  if (!busy) return decided;
  const stopEffects = decided.effects.filter((e) => e.type === 'stop');
  const rest = decided.effects.filter((e) => e.type !== 'stop');
  const { stop: _stop, ...state } = decided.state;
  return { state: { ...state, stop: undefined, fleet: { ...decided.state.fleet, pendingStop: stopEffects } }, effects: rest };
}

/** The stop held for the slots, now that they are done. */
function stopNow(state: MachineState): Step {
  const effects = state.fleet.pendingStop ?? [];
  const first = effects.find((e) => e.type === 'stop');
  if (!first || first.type !== 'stop') return { state, effects: [] };
  return { state: { ...state, stop: { exitCode: first.exitCode, reason: first.reason }, ...(first.message ? { stopDetail: first.message } : {}), fleet: { ...state.fleet, pendingStop: undefined } }, effects };
}

/** The beads in flight (for run-state, status and the interrupt line). */
export const inFlightIds = (state: MachineState): string[] => state.fleet.inFlight.map((f) => f.id);

