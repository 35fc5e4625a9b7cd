// Claiming a bead (a compare-and-swap under the tracker lock) and releasing it, with fencing:
// every claim writes a fresh random `claim-token`; an operation given `--token T` refuses when the
// bead's token is not T, so a worker whose claim was recovered and re-issued cannot touch the new one.
import { HelixError } from '../errors.js';
import { type Bead, CLAIM_KEYS, nowIso } from './bead.js';
import { newClaimToken } from './ids.js';
import { thisMachine } from './process.js';
import type { Draft } from './store.js';

export interface ClaimOptions {
  pid?: number;
  assignee?: string;
  now?: Date;
  machine?: string;
}

export function assertToken(bead: Bead, token: string | undefined): void {
  if (token === undefined) return;
  if (bead['claim-token'] !== token) {
    throw new HelixError('staleToken', `bead: stale claim token for ${bead.id}: the claim is no longer yours`);
  }
}

export function claimBead(draft: Draft, id: string, options: ClaimOptions = {}): Bead {
  const bead = draft.require(id);
  if (bead.status !== 'open') {
    const holder = bead.owner ? ` (held by ${bead.owner}${bead['claimed-pid'] ? `, pid ${String(bead['claimed-pid'])}` : ''})` : '';
    throw new HelixError('conflict', `bead: cannot claim ${id} from status ${bead.status}${holder}`);
  }
  const stamp = nowIso(options.now);
  return draft.change(id, (b) => {
    b.status = 'in_progress';
    b.owner = options.assignee ?? 'helix';
    if ('assignee' in b) b.assignee = b.owner;
    b['claimed-at'] = stamp;
    b['claimed-pid'] = String(options.pid ?? process.pid);
    b['claimed-machine'] = options.machine ?? thisMachine();
    b['claim-token'] = newClaimToken();
    b.updated_at = stamp;
  });
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
