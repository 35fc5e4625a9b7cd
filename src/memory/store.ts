// `store`: validate, screen, then either merge into an existing memory (same type and near
// duplicate, or identical normalised text) or insert a new one — promoting the third similar
// failure of a week to `systemic`, indexing the files it mentions and linking it to neighbours.
// The check-then-insert runs in one immediate transaction, so concurrent writers get unique names
// and never both insert the same duplicate.
import { AUTO_LINK_LIMIT, MEMORY_TYPES, MIN_TRIGGER_LENGTH, SYSTEMIC_PRIOR_FAILURES, SYSTEMIC_WINDOW_DAYS, type MemoryType } from './constants.js';
import type { MemoryContext } from './context.js';
import { isoDaysBefore } from './clock.js';
import { baseName, filePatterns } from './files.js';
import { addEdge } from './graph.js';
import { linkBetween } from './graph-rules.js';
import { parseJsonList, type MemoryRow } from './rows.js';
import { round3 } from './scoring.js';
import { securityIssue } from './security.js';
import { slugify, uniqueName } from './slug.js';
import { memoryText, normaliseText } from './text.js';
import type { Thresholds } from './thresholds.js';
import { toBlob, type VectorIndex } from './vectors.js';

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

export async function storeMemory(ctx: MemoryContext, input: StoreInput): Promise<StoreResult> {
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
    const duplicate = findDuplicate(ctx, index, candidate, thresholds);
    if (duplicate) return merge(ctx, duplicate.row, input.tags ?? [], duplicate.reason);

    let note = '';
    if (type === 'failure') {
      const similar = recentSimilarFailures(ctx, index, vector!, thresholds.systemic);
      if (similar >= SYSTEMIC_PRIOR_FAILURES) {
        candidate = { type: 'systemic', trigger: systemicTrigger, resolution, vector: systemicVector! };
        const known = findDuplicate(ctx, index, candidate, thresholds);
        if (known) return merge(ctx, known.row, input.tags ?? [], known.reason);
        note = `promoted to systemic: ${similar} similar failures in the last ${SYSTEMIC_WINDOW_DAYS} days`;
      }
    }
    const name = insertMemory(ctx, index, embedder.id, candidate, input);
    linkNeighbours(ctx, index, name, candidate, thresholds);
    return { status: 'added', name, reason: note };
  });
}

function findDuplicate(
  ctx: MemoryContext,
  index: VectorIndex,
  candidate: Candidate,
  thresholds: Thresholds,
): { row: MemoryRow; reason: string } | undefined {
  const identical = ctx.db
    .prepare('SELECT * FROM memories WHERE type = ? AND norm_text = ? ORDER BY id LIMIT 1')
    .get(candidate.type, normaliseText(memoryText(candidate.trigger, candidate.resolution))) as MemoryRow | undefined;
  if (identical) return { row: identical, reason: 'identical text' };
  const [best] = index.nearest(candidate.vector, 1, candidate.type);
  if (!best || best.cosine < thresholds.duplicate) return undefined;
  const row = ctx.rowsByIds([best.id]).get(best.id);
  return row ? { row, reason: `similarity ${round3(best.cosine)} ≥ ${thresholds.duplicate}` } : undefined;
}

/** A merge keeps the existing memory and its counts; new tags join the old ones. */
function merge(ctx: MemoryContext, row: MemoryRow, tags: string[], reason: string): StoreResult {
  const union = [...new Set([...parseJsonList(row.tags), ...tags])];
  if (union.length !== parseJsonList(row.tags).length) {
    ctx.db.prepare('UPDATE memories SET tags = ? WHERE id = ?').run(JSON.stringify(union), row.id);
  }
  return { status: 'merged', name: row.name, reason };
}

function recentSimilarFailures(ctx: MemoryContext, index: VectorIndex, vector: Float32Array, threshold: number): number {
  const since = isoDaysBefore(ctx.now(), SYSTEMIC_WINDOW_DAYS);
  const near = index.nearest(vector, 50, 'failure').filter((n) => n.cosine >= threshold);
  const rows = ctx.rowsByIds(near.map((n) => n.id));
  return [...rows.values()].filter((r) => r.created_at >= since).length;
}

function insertMemory(ctx: MemoryContext, index: VectorIndex, embedderId: string, c: Candidate, input: StoreInput): string {
  const taken = ctx.db.prepare('SELECT 1 FROM memories WHERE name = ?');
  const name = uniqueName(slugify(c.trigger), (n) => taken.get(n) !== undefined);
  const files = filePatterns(`${c.trigger}\n${c.resolution}`);
  const info = ctx.db
    .prepare(
      `INSERT INTO memories (name, type, trigger, resolution, norm_text, source, tags, file_patterns, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(
      name,
      c.type,
      c.trigger,
      c.resolution,
      normaliseText(memoryText(c.trigger, c.resolution)),
      input.source ?? '',
      JSON.stringify([...new Set(input.tags ?? [])]),
      JSON.stringify(files),
      ctx.now().toISOString(),
    );
  const id = Number(info.lastInsertRowid);
  ctx.db
    .prepare('INSERT INTO embeddings (memory_id, embedder, dim, vector) VALUES (?, ?, ?, ?)')
    .run(id, embedderId, c.vector.length, toBlob(c.vector));
  const addFile = ctx.db.prepare('INSERT OR IGNORE INTO memory_files (memory_id, pattern, basename) VALUES (?, ?, ?)');
  for (const file of files) addFile.run(id, file, baseName(file));
  index.add(id, c.type, c.vector);
  return name;
}

/** Auto-link: neighbours at or above the auto-link cosine get an edge by the relation rule. */
function linkNeighbours(ctx: MemoryContext, index: VectorIndex, name: string, c: Candidate, thresholds: Thresholds): void {
  const near = index.nearest(c.vector, AUTO_LINK_LIMIT + 1).filter((n) => n.cosine >= thresholds.autoLink);
  const rows = ctx.rowsByIds(near.map((n) => n.id));
  for (const n of near) {
    const other = rows.get(n.id);
    if (!other || other.name === name) continue;
    const link = linkBetween({ name, type: c.type }, other);
    addEdge(ctx, link.from, link.to, link.rel_type, round3(n.cosine));
  }
}
