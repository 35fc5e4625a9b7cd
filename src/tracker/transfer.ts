// import and export: bringing beads in from the older `.helix/issues.jsonl` format or another
// beads file (missing fields normalised), and writing the file out as JSONL.
import { readFileSync } from 'node:fs';
import { HelixError } from '../errors.js';
import { type Bead, DEFAULT_PRIORITY, nowIso } from './bead.js';
import { type Draft, parseBeads } from './store.js';

/** Old HELIX tracker keys and their DDx names. */
const LEGACY_STATUS: Record<string, string> = { 'in-progress': 'in_progress', done: 'closed', completed: 'closed', todo: 'open' };

export function normaliseImported(record: Record<string, unknown>, now: Date): Bead {
  const stamp = nowIso(now);
  const legacy = new Set(['type', 'deps', 'assignee', 'created', 'updated']);
  const id = String(record.id);
  const status = typeof record.status === 'string' ? (LEGACY_STATUS[record.status] ?? record.status) : 'open';
  const createdAt = (record.created_at ?? record.created ?? stamp) as string;
  const bead: Bead = {
    id,
    title: String(record.title ?? ''),
    status,
    priority: typeof record.priority === 'number' ? record.priority : Number(record.priority ?? DEFAULT_PRIORITY),
    issue_type: (record.issue_type ?? record.type ?? 'task') as string,
    created_at: createdAt,
    updated_at: (record.updated_at ?? record.updated ?? createdAt) as string,
  };
  for (const [key, value] of Object.entries(record)) {
    if (!(key in bead) && !legacy.has(key)) bead[key] = value;
  }
  if (bead.owner === undefined && typeof record.assignee === 'string' && record.assignee) bead.owner = record.assignee;
  if (bead.dependencies === undefined && Array.isArray(record.deps) && record.deps.length) {
    bead.dependencies = record.deps.map((dep) => ({ issue_id: id, depends_on_id: String(dep), type: 'blocks', created_at: createdAt }));
  }
  return bead;
}

export interface ImportResult {
  imported: string[];
  skipped: string[];
}

export function importBeads(draft: Draft, file: string, now: Date = new Date()): ImportResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new HelixError('notFound', `bead: cannot read import file ${file}: ${(error as Error).message}`);
  }
  const parsed = parseBeads(text);
  if (parsed.problems.length > 0) {
    const lines = parsed.problems.map((p) => `${p.line} (${p.kind})`).join(', ');
    throw new HelixError('validation', `bead: import refused: ${file} has bad lines: ${lines}; nothing was imported`);
  }
  const result: ImportResult = { imported: [], skipped: [] };
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
