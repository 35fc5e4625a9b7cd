// While a `ddx try` runs, the phase it is in and what it has spent so far, read from DDx's session
// index every few seconds (core/try-phases.ts decides; only the index is read, never a session's
// log) and handed on when it changes — so a board moves during a build that takes many minutes.
import { readDdxRecord } from '../../agents/index.js';
import { tryPhaseOf } from '../core/try-phases.js';
import type { Phase } from '../core/run-events.js';

/** How often DDx's session index is read while a `ddx try` runs. */
const WATCH_MS = 2000;

export function watchTryPhases(root: string, beadId: string, since: Date, changed: (phase: Phase, tokens: number) => void): { stop(): void } {
  let seen = 0;
  const timer = setInterval(() => {
    let sessions;
    try {
      sessions = readDdxRecord(root, since, { beadId, logs: false }).sessions.filter((s) => s.beadId === beadId);
    } catch {
      return; // DDx is writing its index: read it next time
    }
    if (sessions.length === seen) return;
    seen = sessions.length;
    changed(tryPhaseOf(sessions), sessions.reduce((sum, s) => sum + s.tokens, 0));
  }, WATCH_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
