// import and export: bringing beads in from the older `.helix/issues.jsonl` format or another
// beads file (missing fields normalised), and writing the file out as JSONL.
import { readFileSync } from 'node:fs';
import { HelixError } from '../errors.js';
import { type Bead, DEFAULT_PRIORITY, nowIso, validateBeadId } from './bead.js';
import { decodeBeadsBytes } from './bytes.js';
import { type Draft, parseBeads } from './bead-store.js';

/** Older HELIX tracker statuses and their DDx names. */
const LEGACY_STATUS: Record<string, string> = { 'in-progress': 'in_progress', done: 'closed', completed: 'closed', todo: 'open' };

/** Older HELIX tracker keys and the DDx keys they become. */
const LEGACY_KEYS: Record<string, string> = { type: 'issue_type', created: 'created_at', updated: 'updated_at', assignee: 'owner', deps: 'dependencies' };

/**
 * Turns an imported record into a DDx bead. Keys keep their order (a legacy key is renamed where it
 * stands), so a DDx record imports unchanged and an export → import round-trips exactly; required
 * keys the record lacks are appended.
 */
export function normaliseImported(record: Record<string, unknown>, now: Date): Bead {
  const id = String(record.id);
  const createdAt = (record.created_at ?? record.created ?? nowIso(now)) as string;
  const bead: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    const ddxKey = LEGACY_KEYS[key];
    if (ddxKey === undefined) bead[key] = value;
    else if (!(ddxKey in record)) {
      const converted = convertLegacy(key, value, id, createdAt);
      if (converted !== undefined) bead[ddxKey] = converted;
    }
  }
  if (typeof bead.status === 'string') bead.status = LEGACY_STATUS[bead.status] ?? bead.status;
  if (bead.priority !== undefined && typeof bead.priority !== 'number') bead.priority = Number(bead.priority);
  const defaults: Record<string, unknown> = {
    id,
    title: '',
    status: 'open',
    priority: DEFAULT_PRIORITY,
    issue_type: 'task',
    created_at: createdAt,
    updated_at: bead.updated_at ?? createdAt,
  };
  for (const [key, value] of Object.entries(defaults)) if (bead[key] === undefined) bead[key] = value;
  bead.title = String(bead.title);
  return bead as Bead;
}

/** The DDx value for a legacy key, or undefined when it carries nothing (empty assignee or deps). */
function convertLegacy(key: string, value: unknown, id: string, createdAt: string): unknown {
  if (key === 'deps') {
    if (!Array.isArray(value)) return value;
    if (value.length === 0) return undefined;
    return value.map((dep) => ({ issue_id: id, depends_on_id: String(dep), type: 'blocks', created_at: createdAt }));
  }
  if (key === 'assignee' && (value === '' || value == null)) return undefined;
  return value;
}

export interface ImportResult {
  imported: string[];
  skipped: string[];
}

export function importBeads(draft: Draft, file: string, now: Date = new Date()): ImportResult {
  let text: string;
  try {
    text = decodeBeadsBytes(readFileSync(file)); // odd bytes kept, as in the bead file
  } catch (error) {
    throw new HelixError('notFound', `bead: cannot read import file ${file}: ${(error as Error).message}`);
  }
  const parsed = parseBeads(text);
  if (parsed.problems.length > 0) {
    const lines = parsed.problems.map((p) => `${p.line} (${p.kind})`).join(', ');
    throw new HelixError('validation', `bead: import refused: ${file} has bad lines: ${lines}; nothing was imported`);
  }
  const result: ImportResult = { imported: [], skipped: [] };
  for (const record of parsed.beads) validateBeadId(record.id);
  for (const record of parsed.beads) {
    if (draft.get(record.id)) {
      result.skipped.push(record.id);
      continue;
    }
    const bead = normaliseImported(record, now);
    if (!bead.title.trim()) throw new HelixError('validation', `bead: import refused: ${record.id} has no title; nothing was imported`);
    draft.add(bead);
    result.imported.push(bead.id);
  }
  return result;
}
