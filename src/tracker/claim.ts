// Claiming a bead (a compare-and-swap under the tracker lock) and releasing it, with fencing:
// every claim writes a fresh random `claim-token`; an operation given `--token T` refuses when the
// bead's token is not T, so a worker whose claim was recovered and re-issued cannot touch the new one.
// A claim also records what makes it judgeable across tools and crashes: the claimer's host, pid
// and process start time, and the heartbeat keys both DDx versions read as a live claim.
import { HelixError } from '../errors.js';
import { type Bead, CLAIM_KEYS, CURRENT_HEARTBEAT_KEY, HEARTBEAT_KEY, nowIso } from './bead.js';
import { newClaimToken } from './ids.js';
import { type LeaseRecord, leaseIsLive, processStartOf, readLease } from './liveness.js';
import { thisMachine } from './process.js';
import type { Draft } from './bead-store.js';

export interface ClaimOptions {
  pid?: number;
  assignee?: string;
  now?: Date;
  machine?: string;
  /** DDx's lease folder (BeadStore.leaseDir): a bead a live DDx worker lease holds is not claimable. */
  leaseDir?: string;
}

export function assertToken(bead: Bead, token: string | undefined): void {
  if (token === undefined) return;
  if (bead['claim-token'] !== token) {
    throw new HelixError('staleToken', `bead: stale claim token for ${bead.id}: the claim is no longer yours`);
  }
}

/** The live DDx worker lease on this bead, if any (read under the tracker lock, as DDx writes it). */
export function liveLeaseOn(id: string, leaseDir: string | undefined, now: Date): LeaseRecord | undefined {
  if (!leaseDir) return undefined;
  const lease = readLease(leaseDir, id);
  return lease && leaseIsLive(lease, { now }) ? lease : undefined;
}

export function claimBead(draft: Draft, id: string, options: ClaimOptions = {}): Bead {
  const bead = draft.require(id);
  if (bead.status !== 'open') {
    const holder = bead.owner ? ` (held by ${bead.owner}${bead['claimed-pid'] ? `, pid ${String(bead['claimed-pid'])}` : ''})` : '';
    throw new HelixError('conflict', `bead: cannot claim ${id} from status ${bead.status}${holder}`);
  }
  const now = options.now ?? new Date();
  const lease = liveLeaseOn(id, options.leaseDir, now);
  if (lease) {
    const who = [lease.owner, lease.pid ? `pid ${lease.pid}` : '', lease.machine ? `on ${lease.machine}` : ''].filter(Boolean).join(', ');
    throw new HelixError('conflict', `bead: cannot claim ${id}: a DDx worker lease holds it${who ? ` (${who})` : ''}`);
  }
  const stamp = nowIso(now);
  const pid = options.pid ?? process.pid;
  const start = processStartOf(pid);
  return draft.change(id, (b) => {
    b.status = 'in_progress';
    b.owner = options.assignee ?? 'helix';
    if ('assignee' in b) b.assignee = b.owner;
    b['claimed-at'] = stamp;
    b['claimed-pid'] = String(pid);
    b['claimed-machine'] = options.machine ?? thisMachine();
    if (start) b['claimed-pid-start'] = start;
    else delete b['claimed-pid-start'];
    b['claim-token'] = newClaimToken();
    b[HEARTBEAT_KEY] = stamp;
    b[CURRENT_HEARTBEAT_KEY] = stamp;
    b.updated_at = stamp;
  });
}

/**
 * Refreshes the heartbeat of a claim this worker still holds (same token, still in_progress).
 * Returns false when the claim is gone, so the caller stops refreshing it.
 */
export function heartbeatBead(draft: Draft, id: string, token: string, now: Date = new Date()): boolean {
  const bead = draft.get(id);
  if (!bead || bead.status !== 'in_progress' || bead['claim-token'] !== token) return false;
  const stamp = nowIso(now);
  draft.change(id, (b) => {
    b[HEARTBEAT_KEY] = stamp;
    b[CURRENT_HEARTBEAT_KEY] = stamp;
  });
  return true;
}

/** Drops the claim keys and owner; in_progress → open; a closed bead stays closed. */
export function unclaimBead(draft: Draft, id: string, options: { token?: string; now?: Date } = {}): Bead {
  const bead = draft.require(id);
  assertToken(bead, options.token);
  return draft.change(id, (b) => {
    for (const key of CLAIM_KEYS) delete b[key];
    delete b.owner;
    if ('assignee' in b) delete b.assignee;
    if (b.status === 'in_progress') b.status = 'open';
    b.updated_at = nowIso(options.now);
  });
}
