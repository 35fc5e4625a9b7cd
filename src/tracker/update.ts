// Updating fields of a bead (`tracker update`), validated the same way create validates them.
import { HelixError } from '../errors.js';
import {
  type Bead,
  nowIso,
  parseSetValue,
  splitAssignment,
  validateIssueType,
  validatePriority,
  validateStatus,
  validateTitle,
} from './bead.js';
import { assertToken } from './claim.js';
import { assertNoOpenBlockers } from './close.js';
import { assertNoCycle } from './deps.js';
import { EXTERNAL_BLOCKER_REASON_KEY, assertTransition } from './lifecycle.js';
import type { Draft } from './bead-store.js';

export interface UpdateInput {
  title?: string;
  status?: string;
  priority?: string | number;
  type?: string;
  labels?: string[];
  assignee?: string;
  parent?: string;
  description?: string;
  notes?: string;
  acceptance?: string;
  set?: string[];
  unset?: string[];
  token?: string;
  /** Close even with an open `blocks` dependency (as `close --force`). */
  force?: boolean;
}

/** Keys `--set`/`--unset` may not touch: identity and the claim fencing itself. */
const PROTECTED_KEYS = new Set(['id', 'claim-token']);

export function updateBead(draft: Draft, id: string, input: UpdateInput, now: Date = new Date()): Bead {
  const bead = draft.require(id);
  assertToken(bead, input.token);
  // Validate everything before changing anything, so a bad flag leaves the bead untouched.
  const fields: Record<string, unknown> = {};
  if (input.title !== undefined) fields.title = validateTitle(input.title);
  if (input.status !== undefined) fields.status = validateStatus(input.status);
  if (input.priority !== undefined) fields.priority = validatePriority(input.priority);
  if (input.type !== undefined) fields.issue_type = validateIssueType(input.type);
  if (input.labels !== undefined) fields.labels = input.labels;
  if (input.assignee !== undefined) fields.owner = input.assignee;
  if (input.parent !== undefined) {
    if (input.parent === id) throw new HelixError('validation', `bead: ${id} cannot be its own parent`);
    if (input.parent) draft.require(input.parent);
    fields.parent = input.parent;
  }
  if (input.description !== undefined) fields.description = input.description;
  if (input.notes !== undefined) fields.notes = input.notes;
  if (input.acceptance !== undefined) fields.acceptance = input.acceptance;
  for (const pair of input.set ?? []) {
    const [key, raw] = splitAssignment(pair);
    if (PROTECTED_KEYS.has(key)) throw new HelixError('validation', `bead: ${key} cannot be set`);
    const value = parseSetValue(raw);
    if (key === 'status') fields.status = validateStatus(value);
    else if (key === 'priority') fields.priority = validatePriority(value);
    else fields[key] = value;
  }
  // A status change follows DDx's lifecycle (`ddx bead update --status`): no manual close or
  // reopen here, `blocked` needs an external blocker reason, `proposed` is an operator's move.
  // Open blockers are checked first, as DDx's UpdateWithLifecycleStatus does (exit 9 before 7).
  if (fields.status === 'closed' && bead.status !== 'closed') assertNoOpenBlockers(draft, bead, input.force);
  if (fields.status !== undefined && fields.status !== bead.status) {
    const reason = fields[EXTERNAL_BLOCKER_REASON_KEY] ?? bead[EXTERNAL_BLOCKER_REASON_KEY];
    assertTransition(id, bead.status, String(fields.status), { externalBlockerReason: typeof reason === 'string' ? reason : undefined });
  }
  const unset = input.unset ?? [];
  for (const key of unset) {
    if (PROTECTED_KEYS.has(key) || ['title', 'status', 'priority'].includes(key)) {
      throw new HelixError('validation', `bead: ${key} cannot be unset`);
    }
  }
  draft.change(id, (b) => {
    for (const [key, value] of Object.entries(fields)) b[key] = value;
    for (const key of unset) delete b[key];
    if ('assignee' in b && fields.owner !== undefined) b.assignee = fields.owner;
    b.updated_at = nowIso(now);
  });
  if (fields.dependencies !== undefined) assertNoCycle(draft.beads, id);
  return bead;
}
