// The two step builders every decision of the run loop uses: a line to say, and a stop.
import type { MachineState, Step, StopReason, Effect } from './machine-types.js';
import type { Say } from '../text/lines.js';

/** Stops the run with its exit code and reason; the message is the line the stop says. */
export const stop = (state: MachineState, exitCode: number, reason: StopReason, message?: string): Step => ({
  state: { ...state, stop: { exitCode, reason }, ...(message ? { stopDetail: message } : {}) },
  effects: [message ? { type: 'stop', exitCode, reason, message } : { type: 'stop', exitCode, reason }],
});

export const line = (said: Say): Effect => ({ type: 'say', ...said });
