// `tracker update` as one write: field changes, a claim and a release, in the order the flags
// mean them (release first, then the fields, then the claim), all or nothing under the lock.
import type { Bead } from './bead.js';
import { assertToken, claimBead, unclaimBead } from './claim.js';
import { EXTERNAL_BLOCKER_REASON_KEY } from './lifecycle.js';
import type { Draft } from './bead-store.js';
import { type UpdateInput, updateBead } from './update.js';

export interface EditRequest extends Omit<UpdateInput, 'set' | 'token'> {
  set?: string[];
  /** Why the bead is blocked (kept in EXTERNAL_BLOCKER_REASON_KEY). */
  externalBlockerReason?: string;
  /** Refuse unless the bead carries this claim token. */
  token?: string;
  claim?: boolean;
  unclaim?: boolean;
}

/** The fields of a request that change the bead (a bare `update <id>` still stamps it). */
const FIELD_KEYS = ['title', 'status', 'priority', 'type', 'labels', 'assignee', 'parent', 'description', 'notes', 'acceptance', 'set', 'unset', 'externalBlockerReason'] as const;

/** Applies an edit inside one write; `claimant` is the pid a claim records, `leaseDir` DDx's lease folder. */
export function editBead(draft: Draft, id: string, request: EditRequest, claim: { claimant: number; leaseDir?: string }): Bead {
  const hasFieldChanges = FIELD_KEYS.some((key) => request[key] !== undefined);
  const set = request.externalBlockerReason === undefined ? request.set : [...(request.set ?? []), `${EXTERNAL_BLOCKER_REASON_KEY}=${request.externalBlockerReason}`];
  if (request.unclaim) unclaimBead(draft, id, { token: request.token });
  if (hasFieldChanges || (!request.claim && !request.unclaim)) {
    const { claim: _claim, unclaim: _unclaim, externalBlockerReason: _reason, ...fields } = request;
    updateBead(draft, id, { ...fields, set, token: request.unclaim ? undefined : request.token });
  }
  if (request.claim) {
    assertToken(draft.require(id), request.token);
    claimBead(draft, id, { pid: claim.claimant, assignee: request.assignee, leaseDir: claim.leaseDir });
  }
  return draft.require(id);
}
