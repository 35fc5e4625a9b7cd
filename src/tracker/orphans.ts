// Releasing an orphaned claim: the one home `helix run`'s orphan recovery and `tracker doctor
// --fix` share. A crashed attempt leaves on its bead the memory names it injected
// (`helix-injected`); those memories did not help a verified task, and the memory store must hear
// that exactly once. The run can tell the store at once, so it takes the names off with the claim.
// The tracker cannot reach the memory store (and doctor must work without one), so doctor moves
// them to `helix-injected-unsettled`, where the next run's recovery takes them — rather than drop
// a verdict, or invent one nobody measured.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Bead } from './bead.js';
import { unclaimBead } from './claim.js';
import { readLease } from './liveness.js';
import { isPidAlive, thisMachine } from './process.js';
import { type StaleClaim, type StaleClaimFacts, staleClaimOf } from './stale.js';
import type { Draft } from './bead-store.js';

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

/**
 * Releases DDx's own claim on `id` (current DDx: status in_progress under DDx's owner, its lease
 * file in `leaseDir`) when the process holding it is gone from this machine, as DDx's
 * `Store.Release` does: status open, owner and claim keys cleared, the lease file removed, under
 * the tracker lock. The caller has established that the claim is the `ddx try` of a run that died
 * and that nothing of that run is left; DDx's own rule would keep the lease for its 90 s TTL, and
 * never list an in_progress bead as ready again. With `needLease`, only a claim whose lease names a
 * dead process of this machine is released. A bead still `open` with such a lease — its `ddx try`
 * killed between writing the lease and marking the bead (measured with the stand-in, issue 38) — has
 * the lease removed: DDx would hold it for its 90 s TTL. So is the lease of a bead DDx closed whose
 * `ddx try` was killed before removing it (the chaos soak, issue 38): no claim, a file left behind.
 * Returns the lease's pid (undefined: none), or `false` when the claim is left alone (no longer
 * DDx's claim, or its holder may run).
 */
export function releaseDeadDdxClaim(draft: Draft, id: string, leaseDir: string, isAlive: (pid: number) => boolean = isPidAlive, { needLease = false } = {}): { pid: number | undefined } | false {
  const bead = draft.get(id);
  // helix's own claim (owner helix, its claim keys) is the orphan recovery's, not this
  if (!bead || !['in_progress', 'open', 'closed'].includes(bead.status) || bead.owner === 'helix' || bead['claimed-pid'] !== undefined) return false;
  const held = bead.status === 'in_progress';
  const lease = readLease(leaseDir, id);
  if (!lease && (needLease || !held)) return false;
  if (lease) {
    const pid = typeof lease.pid === 'number' && lease.pid > 0 ? lease.pid : undefined;
    // another host's lease, or one whose process runs (or is unknown), is not ours to judge
    if (lease.machine !== thisMachine() || pid === undefined || isAlive(pid)) return false;
  }
  if (held) unclaimBead(draft, id);
  rmSync(join(leaseDir, `${id}.json`), { force: true });
  return { pid: typeof lease?.pid === 'number' ? lease.pid : undefined };
}
