// `store`: validate, screen, then either merge into an existing memory (same type and near
// duplicate, or identical normalised text) or insert a new one — promoting the third similar
// failure of a week to `systemic`, indexing the files it mentions and linking it to neighbours.
// The check-then-insert runs in one immediate transaction, so concurrent writers get unique names
// and never both insert the same duplicate.
import { AUTO_LINK_LIMIT, MEMORY_TYPES, MIN_TRIGGER_LENGTH, SYSTEMIC_PRIOR_FAILURES, SYSTEMIC_WINDOW_DAYS, type MemoryType } from './constants.js';
import type { MemoryContext } from './store-context.js';
import { isoDaysBefore } from './clock.js';
import { archiveRows } from './archive.js';
import { baseName, filePatterns } from './files.js';
import { indexMemory, unindexMemory } from './fts.js';
import { addEdge } from './graph.js';
import { linkBetween } from './graph-rules.js';
import { parseJsonList, type MemoryRow } from './rows.js';
import { round3 } from './scoring.js';
import { securityIssue } from './security.js';
import { slugify, uniqueName } from './slug.js';
import { memoryText, normaliseText } from './text.js';
import type { Thresholds } from './thresholds.js';
import { toBlob, type Neighbour, type VectorIndex } from './vectors.js';

export interface StoreInput {
  trigger: string;
  resolution: string;
  type?: string;
  source?: string;
  tags?: string[];
}

export interface StoreResult {
  status: 'added' | 'merged' | 'rejected';
  name: string;
  reason: string;
}

const rejected = (reason: string): StoreResult => ({ status: 'rejected', name: '', reason });

/** Why an input cannot become a memory, or undefined when it can. */
export function rejection(input: StoreInput): string | undefined {
  const type = input.type ?? 'failure';
  if (!(MEMORY_TYPES as readonly string[]).includes(type)) return `type must be one of ${MEMORY_TYPES.join(', ')}`;
  if (input.trigger.trim().length < MIN_TRIGGER_LENGTH) return 'trigger too short';
  if (input.resolution.trim() === '') return 'resolution empty';
  const issue = securityIssue(input.trigger, input.resolution, input.source ?? '', ...(input.tags ?? []));
  return issue ? `security: ${issue}` : undefined;
}

interface Candidate {
  type: MemoryType;
  trigger: string;
  resolution: string;
  vector: Float32Array;
}

export interface StoreOptions {
  /** false: merge only an identical text, never a near-duplicate by cosine, systemic or not (default true). */
  mergeNearDuplicates?: boolean;
}

export async function storeMemory(ctx: MemoryContext, input: StoreInput, options: StoreOptions = {}): Promise<StoreResult> {
  const reason = rejection(input);
  if (reason) return rejected(reason);
  const type = (input.type ?? 'failure') as MemoryType;
  const trigger = input.trigger.trim();
  const resolution = input.resolution.trim();
  const systemicTrigger = `Repeated: ${trigger}`;
  // Embed outside the transaction (embedding may be async); the systemic text too, in case.
  const texts = [memoryText(trigger, resolution)];
  if (type === 'failure') texts.push(memoryText(systemicTrigger, resolution));
  const [vector, systemicVector] = await ctx.embed(texts);
  const embedder = await ctx.embedder();
  const thresholds = await ctx.thresholds();
  await ctx.vectors();

  return ctx.write(() => {
    const index = ctx.syncVectors(embedder);
    let candidate: Candidate = { type, trigger, resolution, vector: vector! };
    // One scan serves the duplicate check, the systemic count and auto-linking.
    let near = index.nearest(candidate.vector, NEIGHBOUR_SCAN);
    const mergeable = (neighbours: Neighbour[]) => (options.mergeNearDuplicates === false ? [] : neighbours);
    const duplicate = findDuplicate(ctx, mergeable(near), candidate, thresholds);
    if (duplicate) return merge(ctx, index, embedder.id, duplicate, candidate, input.tags ?? []);

    let note = '';
    let governing: MemoryRow | undefined;
    if (type === 'failure') {
      const similar = recentSimilarFailures(ctx, near, thresholds.systemic);
      if (similar >= SYSTEMIC_PRIOR_FAILURES) {
        // One systemic row per problem: a systemic row that is "the same failure" as this one
        // counts the repeat; the failure itself is kept as a failure (its lesson may be new).
        governing = governingSystemic(ctx, index.nearest(systemicVector!, NEIGHBOUR_SCAN), thresholds.systemic);
        if (!governing) {
          candidate = { type: 'systemic', trigger: systemicTrigger, resolution, vector: systemicVector! };
          near = index.nearest(candidate.vector, NEIGHBOUR_SCAN);
            const known = findDuplicate(ctx, mergeable(near), candidate, thresholds);
          if (known) return merge(ctx, index, embedder.id, known, candidate, input.tags ?? []);
          note = `promoted to systemic: ${similar} similar failures in the last ${SYSTEMIC_WINDOW_DAYS} days`;
        }
      }
    }
    const name = insertMemory(ctx, index, embedder.id, candidate, input);
    linkNeighbours(ctx, near, name, candidate, thresholds);
    if (governing) {
      ctx.sql('UPDATE memories SET repeats = repeats + 1, last_used = ? WHERE id = ?').run(ctx.now().toISOString(), governing.id);
      addEdge(ctx, name, governing.name, 'similar', 1);
      note = `repeat of systemic ${governing.name} (seen ${SYSTEMIC_PRIOR_FAILURES + 2 + governing.repeats} times)`;
    }
    return { status: 'added', name, reason: note };
  });
}

/** Nearest neighbours looked at per store: enough for the duplicate, the count and the links. */
const NEIGHBOUR_SCAN = 64;

function findDuplicate(
  ctx: MemoryContext,
  near: Neighbour[],
  candidate: Candidate,
  thresholds: Thresholds,
): { row: MemoryRow; reason: string } | undefined {
  const identical = ctx
    .sql('SELECT * FROM memories WHERE type = ? AND norm_text = ? ORDER BY id LIMIT 1')
    .get(candidate.type, normaliseText(memoryText(candidate.trigger, candidate.resolution))) as MemoryRow | undefined;
  if (identical) return { row: identical, reason: 'identical text' };
  const best = near.find((n) => n.type === candidate.type && n.cosine >= thresholds.duplicate);
  const row = best && ctx.rowsByIds([best.id]).get(best.id);
  return best && row ? { row, reason: `similarity ${round3(best.cosine)} ≥ ${thresholds.duplicate}` } : undefined;
}

/**
 * A merge keeps the existing memory — its name, counts, edges and age — and takes the newer text
 * when it differs (a refined resolution is the point of storing it again); the older text goes to
 * the archive (`helix memory restore NAME` brings it back). New tags join the old ones.
 */
function merge(ctx: MemoryContext, index: VectorIndex, embedderId: string, duplicate: { row: MemoryRow; reason: string }, c: Candidate, tags: string[]): StoreResult {
  const { row, reason } = duplicate;
  const union = [...new Set([...parseJsonList(row.tags), ...tags])];
  const refined = row.trigger !== c.trigger || row.resolution !== c.resolution;
  if (refined) {
    archiveRows(ctx, [row], 'refined by a newer version', row.name, { keep: true });
    rewriteRow(ctx, index, embedderId, row, { trigger: c.trigger, resolution: c.resolution, tags: union }, c.vector);
  } else if (union.length !== parseJsonList(row.tags).length) {
    ctx.sql('UPDATE memories SET tags = ? WHERE id = ?').run(JSON.stringify(union), row.id);
  }
  return { status: 'merged', name: row.name, reason: refined ? `${reason}; the newer text kept, the older archived` : reason };
}

/** The systemic row that is "the same failure" as a new one (its systemic text's neighbours). */
function governingSystemic(ctx: MemoryContext, near: Neighbour[], threshold: number): MemoryRow | undefined {
  const best = near.find((n) => n.type === 'systemic' && n.cosine >= threshold);
  return best && ctx.rowsByIds([best.id]).get(best.id);
}

function recentSimilarFailures(ctx: MemoryContext, near: Neighbour[], threshold: number): number {
  const since = isoDaysBefore(ctx.now(), SYSTEMIC_WINDOW_DAYS);
  const rows = ctx.rowsByIds(near.filter((n) => n.type === 'failure' && n.cosine >= threshold).map((n) => n.id));
  return [...rows.values()].filter((r) => r.created_at >= since).length;
}

function insertMemory(ctx: MemoryContext, index: VectorIndex, embedderId: string, c: Candidate, input: StoreInput): string {
  const taken = ctx.sql('SELECT 1 FROM memories WHERE name = ?');
  const name = uniqueName(slugify(c.trigger), (n) => taken.get(n) !== undefined);
  insertRow(ctx, index, embedderId, { name, type: c.type, trigger: c.trigger, resolution: c.resolution, source: input.source ?? '', tags: [...new Set(input.tags ?? [])], created_at: ctx.now().toISOString() }, c.vector);
  return name;
}

/** A memory row as insertRow writes it; the counters default to a new memory's. */
export interface RowFields {
  name: string;
  type: MemoryType;
  trigger: string;
  resolution: string;
  source: string;
  tags: string[];
  created_at: string;
  helped?: number;
  failed?: number;
  last_used?: string | null;
  repeats?: number;
  session_uses?: number;
}

/** Inserts a memory with its vector, file index and search row (call inside a write). */
export function insertRow(ctx: MemoryContext, index: VectorIndex, embedderId: string, f: RowFields, vector: Float32Array): number {
  const files = filePatterns(`${f.trigger}\n${f.resolution}`);
  const info = ctx
    .sql(
      `INSERT INTO memories (name, type, trigger, resolution, norm_text, source, tags, file_patterns, created_at, helped, failed, last_used, repeats, session_uses)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      f.name,
      f.type,
      f.trigger,
      f.resolution,
      normaliseText(memoryText(f.trigger, f.resolution)),
      f.source,
      JSON.stringify(f.tags),
      JSON.stringify(files),
      f.created_at,
      f.helped ?? 0,
      f.failed ?? 0,
      f.last_used ?? null,
      f.repeats ?? 0,
      f.session_uses ?? 0,
    );
  const id = Number(info.lastInsertRowid);
  ctx.sql('INSERT INTO embeddings (memory_id, embedder, dim, vector) VALUES (?, ?, ?, ?)').run(id, embedderId, vector.length, toBlob(vector));
  indexFiles(ctx, id, files);
  indexMemory(ctx, id, f.trigger, f.resolution);
  index.add(id, f.type, vector);
  return id;
}

function indexFiles(ctx: MemoryContext, id: number, files: string[]): void {
  const addFile = ctx.sql('INSERT OR IGNORE INTO memory_files (memory_id, pattern, basename) VALUES (?, ?, ?)');
  for (const file of files) addFile.run(id, file, baseName(file));
}

/**
 * Gives an existing memory new text in place (name, counters, edges and age stay): the search
 * row, file index and this embedder's vector follow; other embedders' vectors are dropped and
 * re-made on their next use. Call inside a write, after archiving the old text.
 */
export function rewriteRow(ctx: MemoryContext, index: VectorIndex, embedderId: string, row: MemoryRow, text: { trigger: string; resolution: string; type?: MemoryType; tags?: string[] }, vector: Float32Array): void {
  const files = filePatterns(`${text.trigger}\n${text.resolution}`);
  const type = text.type ?? row.type;
  ctx
    .sql('UPDATE memories SET trigger = ?, resolution = ?, norm_text = ?, type = ?, tags = ?, file_patterns = ? WHERE id = ?')
    .run(text.trigger, text.resolution, normaliseText(memoryText(text.trigger, text.resolution)), type, text.tags ? JSON.stringify(text.tags) : row.tags, JSON.stringify(files), row.id);
  ctx.sql('DELETE FROM embeddings WHERE memory_id = ?').run(row.id);
  ctx.sql('INSERT INTO embeddings (memory_id, embedder, dim, vector) VALUES (?, ?, ?, ?)').run(row.id, embedderId, vector.length, toBlob(vector));
  ctx.sql('DELETE FROM memory_files WHERE memory_id = ?').run(row.id);
  indexFiles(ctx, row.id, files);
  unindexMemory(ctx, row.id);
  indexMemory(ctx, row.id, text.trigger, text.resolution);
  index.remove(row.id);
  index.add(row.id, type, vector);
}

/** Auto-link: neighbours at or above the auto-link cosine get an edge by the relation rule. */
function linkNeighbours(ctx: MemoryContext, near: Neighbour[], name: string, c: Candidate, thresholds: Thresholds): void {
  const linked = near.filter((n) => n.cosine >= thresholds.autoLink).slice(0, AUTO_LINK_LIMIT);
  const rows = ctx.rowsByIds(linked.map((n) => n.id));
  for (const n of linked) {
    const other = rows.get(n.id);
    if (!other || other.name === name) continue;
    const link = linkBetween({ name, type: c.type }, other);
    addEdge(ctx, link.from, link.to, link.rel_type, round3(n.cosine));
  }
}
