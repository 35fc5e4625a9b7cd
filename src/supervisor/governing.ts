// The governing bead an alignment runs under (seed 004: "acquire the kind:planning,action:align
// bead, then run the stored prompt"): one per scope, reused while open, refused while a live
// process holds it, reclaimed when its holder is gone. It is planning, not buildable work, so it
// is never execution-eligible: `helix run` must not pick it up as a build target.
import { HelixError } from '../errors.js';
import { type Bead, type BeadStore, claimBead, createBead, idPrefix, labelsOf, staleClaimOf, unclaimBead } from '../tracker/index.js';

export const ALIGN_LABELS = ['kind:planning', 'action:align'];

/** The bead key naming the alignment scope a governing bead is for. */
export const SCOPE_KEY = 'helix-scope';

export function isGoverningBeadFor(bead: Bead, scope: string): boolean {
  return ALIGN_LABELS.every((l) => labelsOf(bead).includes(l)) && (bead[SCOPE_KEY] ?? 'repo') === scope && bead.status !== 'closed';
}

/**
 * Claims the governing bead for `scope` with this process's pid (creating it when there is none)
 * and returns it with its claim token. Refuses (conflict) while a live holder has it; a holder
 * that is no longer running on this machine is gone for good, so its claim is taken over at once
 * (the orphan age threshold protects build claims, not a planning bead nobody can be working on).
 */
export function acquireGoverningBead(store: BeadStore, scope: string, now: Date = new Date()): Bead {
  return store.mutate((draft) => {
    const existing = draft.beads.find((b) => isGoverningBeadFor(b, scope));
    if (existing?.status === 'in_progress') {
      if (!staleClaimOf(existing, { now, thresholdSec: 0 })) {
        throw new HelixError('conflict', `helix: alignment for ${scope} is already in progress (${existing.id}, pid ${String(existing['claimed-pid'] ?? '?')})`);
      }
      unclaimBead(draft, existing.id, { now });
    }
    const bead =
      existing ??
      createBead(draft, { title: `Alignment: ${scope}`, type: 'task', labels: ALIGN_LABELS, set: [`${SCOPE_KEY}=${scope}`, 'execution-eligible=false'] }, idPrefix(store.dir), now);
    return claimBead(draft, bead.id, { pid: process.pid, now });
  });
}

/** Releases our claim on the governing bead unless the agent closed it (token-fenced). */
export function releaseGoverningBead(store: BeadStore, bead: Bead): void {
  const current = store.read().byId.get(bead.id);
  // closed by the agent, or taken over by someone else after we were presumed gone: not ours
  if (current?.status !== 'in_progress' || current['claim-token'] !== bead['claim-token']) return;
  store.mutate((d) => unclaimBead(d, bead.id, { token: String(bead['claim-token']) }));
}
