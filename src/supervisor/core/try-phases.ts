// Which phase an attempt on `ddx try` is in, as helix can see it from outside: DDx records each
// agent session when it ends (agents/ddx-records.ts), and a `ddx try` runs a pre-claim intake,
// the build, then a pre-land review — so the sessions ended so far say what runs now. What
// follows the review (helix's gate, DDx's land) the gate's own events say.
import type { Phase } from './run-events.js';

/** The phase after the bead's sessions that have ended, oldest first. */
export function tryPhaseOf(ended: ReadonlyArray<{ build: boolean }>): Phase {
  if (ended.some((s) => s.build)) return 'review';
  return ended.length > 0 ? 'build' : 'intake';
}
