// The store as the user's (issue #25): list, show, edit, forget (to the archive), restore, export
// and import. Plain values in, plain values out; the CLI (src/cli/memory.ts) only prints them.
// Export writes one record a line (archive.ts), sorted by name, so exporting the store an import
// built gives the same bytes.
import { MEMORY_TYPES, type MemoryType } from './constants.js';
import { HelixError } from '../errors.js';
import { archiveEntries, archiveRows, toRecord, type ArchivedRecord, type MemoryRecord } from './archive.js';
import { checkRelation } from './graph.js';
import { checkType } from './recall.js';
import { parseJsonList, toMemory, type MemoryRow } from './rows.js';
import { round3 } from './scoring.js';
import { insertRow, rejection, rewriteRow } from './store.js';
import type { MemoryContext } from './store-context.js';
import { memoryText, normaliseText } from './text.js';

function rowOrFail(ctx: MemoryContext, name: string): MemoryRow {
  const row = ctx.rowByName(name);
  if (!row) throw new HelixError('notFound', notInStore(ctx, name));
  return row;
}

/** Not in the store: and when the archive has it, why it went (forget, prune, a merge) and how to get it back. */
function notInStore(ctx: MemoryContext, name: string): string {
  const [newest] = archiveEntries(ctx, name);
  if (!newest) return `helix memory: not found: ${name}`;
  const restore = `\`helix memory restore ${name}\` brings it back`;
  if (newest.reason === 'forgotten') return `helix memory: ${name} was forgotten (archived ${newest.archived_at}); ${restore}`;
  return `helix memory: ${name} is archived (${newest.reason}, ${newest.archived_at}); ${restore}`;
}

/** One line per memory for `list`: what a person scans to decide what to keep. */
export function list(ctx: MemoryContext, options: { type?: string; archived?: boolean } = {}) {
  if (options.archived) {
    return archiveEntries(ctx)
      .filter((e) => !options.type || e.record.type === options.type)
      .map((e) => ({ name: e.name, type: e.record.type, reason: e.reason, into: e.into, archived_at: e.archived_at, trigger: e.record.trigger }));
  }
  const type = checkType(options.type);
  const rows = (type ? ctx.sql('SELECT * FROM memories WHERE type = ? ORDER BY name').all(type) : ctx.sql('SELECT * FROM memories ORDER BY name').all()) as MemoryRow[];
  return rows.map((r) => {
    const m = toMemory(r);
    return { name: m.name, type: m.type, effectiveness: m.effectiveness, helped: m.helped, failed: m.failed, session_uses: r.session_uses, created_at: m.created_at, last_used: m.last_used, trigger: m.trigger };
  });
}

/** Everything about one memory: its fields, the files it names, its edges and its archived versions. */
export function show(ctx: MemoryContext, name: string) {
  const row = rowOrFail(ctx, name);
  const edges = ctx.sql('SELECT from_name, to_name, rel_type, weight FROM edges WHERE from_name = ? OR to_name = ? ORDER BY from_name, to_name, rel_type').all(name, name) as { from_name: string; to_name: string; rel_type: string; weight: number }[];
  return {
    ...toMemory(row),
    session_uses: row.session_uses,
    files: parseJsonList(row.file_patterns),
    edges: edges.map((e) => ({ from: e.from_name, to: e.to_name, rel_type: e.rel_type, weight: round3(e.weight) })),
    archived_versions: archiveEntries(ctx, name).map((e) => ({ reason: e.reason, archived_at: e.archived_at, trigger: e.record.trigger, resolution: e.record.resolution })),
  };
}

export interface EditInput {
  trigger?: string;
  resolution?: string;
  type?: string;
  tags?: string[];
}

/**
 * New text for a memory, in place (name, counters, edges and age stay), through the same checks
 * as `store`; the old version goes to the archive. Refused text is a HelixError (`memoryRejected`).
 */
export async function edit(ctx: MemoryContext, name: string, input: EditInput) {
  const row = rowOrFail(ctx, name);
  const next = {
    trigger: (input.trigger ?? row.trigger).trim(),
    resolution: (input.resolution ?? row.resolution).trim(),
    type: (input.type ?? row.type) as MemoryType,
    tags: input.tags ?? parseJsonList(row.tags),
  };
  const refused = rejection({ ...next, source: row.source });
  if (refused) throw new HelixError('memoryRejected', `helix memory edit: ${name} refused: ${refused}`);
  const embedder = await ctx.embedder();
  const [vector] = await ctx.embed([memoryText(next.trigger, next.resolution)]);
  await ctx.vectors();
  ctx.write(() => {
    const index = ctx.syncVectors(embedder);
    const current = rowOrFail(ctx, name);
    archiveRows(ctx, [current], 'edited', name, { keep: true });
    rewriteRow(ctx, index, embedder.id, current, next, vector!);
  });
  return { edited: name, archived: 'the previous version (helix memory restore brings it back)' };
}

/** Moves memories to the archive; every name must exist (nothing is archived otherwise). */
export function forget(ctx: MemoryContext, names: string[]) {
  const unique = [...new Set(names)];
  return ctx.write(() => {
    const rows = unique.map((n) => rowOrFail(ctx, n));
    archiveRows(ctx, rows, 'forgotten');
    return { forgotten: unique };
  });
}

/**
 * Brings back the newest archived version of `name`. A live memory of that name (a merge or an
 * edit kept it with newer text) goes to the archive in its place; a memory it was consolidated
 * into gives back the counts it took. Its edges come back where their other end still exists.
 */
export async function restore(ctx: MemoryContext, name: string) {
  const [entry] = archiveEntries(ctx, name);
  if (!entry) throw new HelixError('notFound', `helix memory: nothing archived under ${name}`);
  const r = entry.record;
  const embedder = await ctx.embedder();
  const [vector] = await ctx.embed([memoryText(r.trigger, r.resolution)]);
  await ctx.vectors();
  return ctx.write(() => {
    const index = ctx.syncVectors(embedder);
    const live = ctx.rowByName(name);
    if (live) archiveRows(ctx, [live], 'replaced by restore');
    if (entry.into && entry.into !== name && entry.reason.startsWith('consolidated')) {
      ctx.sql('UPDATE memories SET helped = MAX(0, helped - ?), failed = MAX(0, failed - ?) WHERE name = ?').run(r.helped, r.failed, entry.into);
    }
    insertRow(ctx, index, embedder.id, r, vector!);
    restoreEdges(ctx, r);
    ctx.sql('DELETE FROM memory_archive WHERE id = ?').run(entry.id);
    return { restored: name, was: entry.reason, archived_at: entry.archived_at, ...(live ? { archived_instead: 'the version that was live' } : {}) };
  });
}

function restoreEdges(ctx: MemoryContext, r: ArchivedRecord | MemoryRecord): number {
  const exists = ctx.sql('SELECT 1 FROM memories WHERE name = ?');
  const has = ctx.sql('SELECT 1 FROM edges WHERE from_name = ? AND to_name = ? AND rel_type = ?');
  const insert = ctx.sql('INSERT INTO edges (from_name, to_name, rel_type, weight, created_at) VALUES (?, ?, ?, ?, ?)');
  let added = 0;
  const all = [...r.edges.map((e) => ({ from: r.name, ...e })), ...('incoming' in r ? r.incoming : [])];
  for (const e of all) {
    if (!exists.get(e.from) || !exists.get(e.to) || has.get(e.from, e.to, e.rel_type)) continue;
    insert.run(e.from, e.to, e.rel_type, e.weight, e.created_at);
    added++;
  }
  return added;
}

/** The whole store as JSONL: one record a line, by name. */
export function exportStore(ctx: MemoryContext): string {
  const rows = ctx.sql('SELECT * FROM memories ORDER BY name').all() as MemoryRow[];
  return rows.map((row) => `${JSON.stringify(toRecord(ctx, row))}\n`).join('');
}

/** Why a parsed line is not a memory record, or undefined when it is one. */
function notARecord(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not a JSON object';
  const v = value as Record<string, unknown>;
  for (const key of ['name', 'trigger', 'resolution', 'created_at']) if (typeof v[key] !== 'string' || v[key] === '') return `"${key}" must be a non-empty string`;
  if (!(MEMORY_TYPES as readonly unknown[]).includes(v.type)) return `"type" must be one of ${MEMORY_TYPES.join(', ')}`;
  for (const key of ['helped', 'failed']) if (typeof v[key] !== 'number' || !Number.isFinite(v[key]) || (v[key] as number) < 0) return `"${key}" must be a number ≥ 0`;
  for (const key of ['repeats', 'session_uses']) if (v[key] !== undefined && (typeof v[key] !== 'number' || !Number.isInteger(v[key]) || (v[key] as number) < 0)) return `"${key}" must be a whole number ≥ 0`;
  if (v.last_used !== undefined && v.last_used !== null && typeof v.last_used !== 'string') return '"last_used" must be a string or null';
  if (v.source !== undefined && typeof v.source !== 'string') return '"source" must be a string';
  if (v.tags !== undefined && (!Array.isArray(v.tags) || v.tags.some((t) => typeof t !== 'string'))) return '"tags" must be a list of strings';
  if (v.edges !== undefined) {
    if (!Array.isArray(v.edges)) return '"edges" must be a list';
    for (const e of v.edges as Record<string, unknown>[]) {
      if (typeof e !== 'object' || e === null || typeof e.to !== 'string' || typeof e.rel_type !== 'string' || typeof e.weight !== 'number' || typeof e.created_at !== 'string') return 'each edge needs "to", "rel_type", "weight" and "created_at"';
      try {
        checkRelation(e.rel_type);
      } catch {
        return `edge relation "${e.rel_type}" is unknown`;
      }
    }
  }
  return undefined;
}

export interface ImportResult {
  imported: number;
  skipped: { line: number; name: string; reason: string }[];
  edges: number;
}

/**
 * Imports an export: every line is checked first, and a line that is not a memory record refuses
 * the whole import (`importMalformed`: nothing is written). Records whose name or text the store
 * already has are skipped as duplicates, records the security filter refuses are skipped with its
 * reason; the rest keep their names, counters, dates and edges (an edge to a memory the store
 * does not have is left out).
 */
export async function importStore(ctx: MemoryContext, text: string): Promise<ImportResult> {
  const records: { line: number; record: MemoryRecord }[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new HelixError('importMalformed', `helix memory import: line ${i + 1} is not JSON`);
    }
    const why = notARecord(value);
    if (why) throw new HelixError('importMalformed', `helix memory import: line ${i + 1} is not a memory record: ${why}`);
    const v = value as MemoryRecord;
    records.push({ line: i + 1, record: { ...v, source: v.source ?? '', tags: v.tags ?? [], last_used: v.last_used ?? null, repeats: v.repeats ?? 0, session_uses: v.session_uses ?? 0, edges: v.edges ?? [] } });
  });
  const embedder = await ctx.embedder();
  const vectors = await ctx.embed(records.map(({ record }) => memoryText(record.trigger, record.resolution)));
  await ctx.vectors();
  return ctx.write(() => {
    const index = ctx.syncVectors(embedder);
    const skipped: ImportResult['skipped'] = [];
    const named = ctx.sql('SELECT 1 FROM memories WHERE name = ?');
    const sameText = ctx.sql('SELECT name FROM memories WHERE type = ? AND norm_text = ? LIMIT 1');
    const kept: MemoryRecord[] = [];
    records.forEach(({ line, record }, i) => {
      const skip = (reason: string) => skipped.push({ line, name: record.name, reason });
      if (named.get(record.name)) return skip('duplicate: a memory of this name exists');
      const twin = sameText.get(record.type, normaliseText(memoryText(record.trigger, record.resolution))) as { name: string } | undefined;
      if (twin) return skip(`duplicate: same text as ${twin.name}`);
      const refused = rejection(record);
      if (refused) return skip(refused);
      insertRow(ctx, index, embedder.id, record, vectors[i]!);
      kept.push(record);
    });
    let edges = 0;
    for (const record of kept) edges += restoreEdges(ctx, record);
    return { imported: kept.length, skipped, edges };
  });
}
