// A call that failed on something that is not the bead's (agents/agent-problems.ts reads what the
// program said): nothing is counted against the bead — no attempt, no park, no memory.
//   setup (a login that does not work, a model no one serves, a route DDx cannot resolve, a
//     program that is not installed): nothing will work until someone fixes it, so the run stops
//     at once with one line saying what to fix (stop reason `setup`, exit 22).
//   infrastructure (a provider that does not answer, DDx's own review malfunctioning): it may pass
//     by itself, so the run waits with the backoff (5 s, then 10 s) and tries the same call again —
//     but the third in a row stops the run as a setup error: a failure that does not pass within
//     a few tries needs a person, and a run must never loop on it.
import { EXIT } from '../../errors.js';
import type { Event, MachineState, Step } from './machine-types.js';
import { backoffSeconds } from './policy.js';
import { line, stop } from './steps.js';
import type { SupervisorSettings } from './policy.js';
import { SETUP } from '../text/setup.js';

/** Infrastructure failures in a row that stop the run as a setup error. */
export const MAX_INFRASTRUCTURE_IN_A_ROW = 3;

export function afterUnavailable(state: MachineState, event: Extract<Event, { type: 'unavailable' }>, settings: SupervisorSettings): Step {
  const { problem } = event;
  const subject = event.bead ? event.bead.id : event.again ? (event.again.type === 'runAction' ? `the ${event.again.action} action` : `the ${event.again.kind} review`) : 'the check';
  const record = (waitSeconds: number | null): Extract<Step['effects'][number], { type: 'record' }> => ({
    type: 'record',
    event: { type: 'unavailable', cause: problem.kind, what: problem.what, detail: problem.detail, ...(event.bead ? { bead: event.bead.id } : {}), wait_seconds: waitSeconds },
  });
  if (problem.kind === 'setup') {
    const stopped = stop(state, EXIT.setup, 'setup', SETUP.setupStop(problem.what, problem.detail, subject, problem.fix));
    return { state: stopped.state, effects: [record(null), ...stopped.effects] };
  }
  const streak = state.infraStreak + 1;
  if (streak >= MAX_INFRASTRUCTURE_IN_A_ROW) {
    const stopped = stop({ ...state, infraStreak: streak }, EXIT.setup, 'setup', SETUP.infrastructureStop(streak, problem.what, problem.detail));
    return { state: stopped.state, effects: [record(null), ...stopped.effects] };
  }
  const seconds = backoffSeconds(streak, settings.backoffOverride);
  return {
    state: { ...state, infraStreak: streak, passedOver: [] },
    effects: [line(SETUP.infrastructureWait(problem.what, problem.detail, subject, seconds)), record(seconds), { type: 'sleep', seconds }, event.again ?? { type: 'readQueue' }],
  };
}
