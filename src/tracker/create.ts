// Creating a bead: validates the input and fills the DDx defaults.
import { HelixError } from '../errors.js';
import {
  type Bead,
  DEFAULT_PRIORITY,
  SCHEMA_VERSION,
  nowIso,
  parseSetValue,
  splitAssignment,
  validateIssueType,
  validatePriority,
  validateTitle,
} from './bead.js';
import { newBeadId } from './ids.js';
import type { Draft } from './bead-store.js';
import { assertNoCycle } from './deps.js';

export interface CreateInput {
  title: string;
  type?: string;
  priority?: string | number;
  labels?: string[];
  parent?: string;
  description?: string;
  acceptance?: string;
  deps?: string[];
  specId?: string;
  /** `k=v` pairs for any other key (HELIX extras such as `execution-eligible=false`). */
  set?: string[];
  createdBy?: string;
}

export function createBead(draft: Draft, input: CreateInput, prefix: string, now: Date = new Date()): Bead {
  const title = validateTitle(input.title);
  const issueType = validateIssueType(input.type ?? 'task');
  const priority = input.priority === undefined ? DEFAULT_PRIORITY : validatePriority(input.priority);
  if (input.parent) draft.require(input.parent);
  for (const dep of input.deps ?? []) draft.require(dep);
  const stamp = nowIso(now);
  const id = newBeadId(prefix, (candidate) => draft.get(candidate) !== undefined);
  const bead: Bead = { id, title, status: 'open', priority, issue_type: issueType, schema_version: SCHEMA_VERSION, created_at: stamp, updated_at: stamp };
  if (input.labels?.length) bead.labels = [...input.labels];
  if (input.parent) bead.parent = input.parent;
  if (input.description) bead.description = input.description;
  if (input.acceptance) bead.acceptance = input.acceptance;
  if (input.createdBy) bead.created_by = input.createdBy;
  if (input.specId) bead['spec-id'] = input.specId;
  if (input.deps?.length) {
    bead.dependencies = [...new Set(input.deps)].map((dep) => ({ issue_id: id, depends_on_id: dep, type: 'blocks', created_at: stamp }));
  }
  for (const pair of input.set ?? []) {
    const [key, value] = splitAssignment(pair);
    if (key === 'id') throw new HelixError('validation', 'bead: the id cannot be set');
    bead[key] = parseSetValue(value);
  }
  draft.add(bead);
  assertNoCycle(draft.beads, id);
  return bead;
}
