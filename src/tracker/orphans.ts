// Releasing an orphaned claim: the one home `helix run`'s orphan recovery and `tracker doctor
// --fix` share. A crashed attempt leaves on its bead the memory names it injected
// (`helix-injected`); those memories did not help a verified task, and the memory store must hear
// that exactly once. The run can tell the store at once, so it takes the names off with the claim.
// The tracker cannot reach the memory store (and doctor must work without one), so doctor moves
// them to `helix-injected-unsettled`, where the next run's recovery takes them — rather than drop
// a verdict, or invent one nobody measured.
import type { Bead } from './bead.js';
import { unclaimBead } from './claim.js';
import { type StaleClaim, type StaleClaimFacts, staleClaimOf } from './stale.js';
import type { Draft } from './store.js';

/** The memory names an attempt injected, kept on its bead while it runs so a crash does not lose them. */
export const INJECTED_KEY = 'helix-injected';
/** Names of a crashed attempt whose claim `tracker doctor --fix` released: the next run feeds them back. */
export const UNSETTLED_INJECTED_KEY = 'helix-injected-unsettled';

export interface ReleasedOrphan {
  stale: StaleClaim;
  /** The bead after the release. */
  bead: Bead;
  /** The names the interrupted attempt injected (empty when it injected none). */
  injected: string[];
}

/** Memory names an attempt's feedback still owes something to, taken off the bead. */
export interface UnsettledInjection {
  bead: Bead;
  injected: string[];
}

function namesIn(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((n): n is string => typeof n === 'string') : [];
}

/**
 * Releases the claim on `id` if it is still stale — judged again on the draft, under the lock, since
 * the bead may have closed or been claimed afresh meanwhile — and takes the attempt's injected
 * names off it. `settle: 'now'` hands them to the caller to feed back; `'later'` keeps them on the
 * bead under UNSETTLED_INJECTED_KEY for the next run.
 */
export function releaseOrphan(draft: Draft, id: string, facts: StaleClaimFacts, settle: 'now' | 'later'): ReleasedOrphan | undefined {
  const bead = draft.get(id);
  const stale = bead ? staleClaimOf(bead, facts) : undefined;
  if (!bead || !stale) return undefined;
  const hadNames = bead[INJECTED_KEY] !== undefined;
  const injected = namesIn(bead[INJECTED_KEY]);
  const released = unclaimBead(draft, id, { now: facts.now });
  if (hadNames) {
    draft.change(id, (b) => {
      delete b[INJECTED_KEY];
      // A set: a memory is judged once even if two crashed attempts both injected it.
      if (settle === 'later' && injected.length > 0) b[UNSETTLED_INJECTED_KEY] = [...new Set([...namesIn(b[UNSETTLED_INJECTED_KEY]), ...injected])];
    });
  }
  return { stale, bead: { ...released }, injected };
}

/** Takes every name doctor kept for a later run off its bead (the caller feeds them back as a failure). */
export function takeUnsettledInjections(draft: Draft): UnsettledInjection[] {
  const taken: UnsettledInjection[] = [];
  for (const bead of draft.beads.filter((b) => b[UNSETTLED_INJECTED_KEY] !== undefined)) {
    const injected = namesIn(bead[UNSETTLED_INJECTED_KEY]);
    draft.change(bead.id, (b) => { delete b[UNSETTLED_INJECTED_KEY]; });
    if (injected.length > 0) taken.push({ bead: { ...bead }, injected });
  }
  return taken;
}

/** Whether any bead holds names doctor kept for a later run (read without the lock, to skip the write). */
export function hasUnsettledInjections(beads: Bead[]): boolean {
  return beads.some((b) => b[UNSETTLED_INJECTED_KEY] !== undefined);
}
