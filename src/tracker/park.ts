// Clearing a park: the retry cool-down DDx (`ddx work`, after a failed `ddx try`) or helix (after
// a bead was skipped as intractable) put on a bead, so the next run may attempt it at once.
import { type Bead, RETRY_AFTER_KEYS, nowIso } from './bead.js';
import type { Draft } from './bead-store.js';

/** Removes every retry key; returns the bead and the keys that were set (none: it was not parked). */
export function unparkBead(draft: Draft, id: string, now: Date = new Date()): { bead: Bead; cleared: string[] } {
  const current = draft.require(id);
  const cleared = RETRY_AFTER_KEYS.filter((key) => current[key] !== undefined);
  if (cleared.length === 0) return { bead: current, cleared };
  const bead = draft.change(id, (b) => {
    for (const key of cleared) delete b[key];
    b.updated_at = nowIso(now);
  });
  return { bead, cleared };
}
