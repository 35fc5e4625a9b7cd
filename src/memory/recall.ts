// `recall`: rank memories for a query by 0.5·relevance + 0.3·effectiveness + 0.2·recency.
// Candidates come from both the vector index (cosine) and FTS5 (BM25); relevance is the hybrid of
// scoring.ts. Recall only reads: it never changes counters or last_used.
import { CANDIDATE_POOL, MEMORY_TYPES } from './constants.js';
import type { MemoryContext } from './context.js';
import { HelixError } from '../errors.js';
import { keywordSearch } from './fts.js';
import { neighbours } from './graph.js';
import { toMemory, type Memory, type MemoryRow } from './rows.js';
import { effectiveness, fusedRank, hybridRelevance, recency, round3, score } from './scoring.js';

export interface RecallOptions {
  type?: string;
  limit?: number;
  minEffectiveness?: number;
  minRelevance?: number;
  expand?: boolean;
}

export type RecalledMemory = Memory & {
  _relevance: number;
  _recency: number;
  _score: number;
  _via_edge?: string;
};

/** A scored candidate before output rounding (internal callers rank on exact values). */
export interface Scored {
  row: MemoryRow;
  relevance: number;
  recency: number;
  score: number;
}

export function checkType(type: string | undefined): string | undefined {
  if (type !== undefined && !(MEMORY_TYPES as readonly string[]).includes(type)) {
    throw new HelixError('validation', `helix memory: --type must be one of ${MEMORY_TYPES.join(', ')}`);
  }
  return type;
}

export function scoreRow(row: MemoryRow, relevance: number, now: Date): Scored {
  const rec = recency(row.last_used, row.created_at, now);
  return { row, relevance, recency: rec, score: score(relevance, effectiveness(row.helped, row.failed), rec) };
}

export const byScore = (a: Scored, b: Scored): number => b.score - a.score || a.row.name.localeCompare(b.row.name);

/** Relevance of every candidate memory for `query` (vector top-N ∪ BM25 top-N). */
export async function relevances(ctx: MemoryContext, query: string, pool: number, type?: string): Promise<Map<number, number>> {
  const index = await ctx.vectors();
  const [queryVector] = await ctx.embed([query]);
  const nearest = index.nearest(queryVector!, pool, type);
  const vectorRank = new Map(nearest.map((n, i) => [n.id, i + 1]));
  const cosines = new Map(nearest.map((n) => [n.id, n.cosine]));
  const bm25 = keywordSearch(ctx, query, pool, type);
  const result = new Map<number, number>();
  for (const n of nearest) result.set(n.id, n.cosine);
  bm25.forEach((id, i) => {
    let cos = cosines.get(id);
    if (cos === undefined) {
      const v = index.vector(id);
      cos = v ? dot(v, queryVector!) : 0;
    }
    result.set(id, hybridRelevance(cos, fusedRank(i + 1, vectorRank.get(id))));
  });
  for (const [id, rel] of result) result.set(id, Math.max(0, Math.min(1, rel)));
  return result;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return Math.min(1, sum);
}

/** Ranked candidates for `query`, unrounded, before the limit. */
export async function rankMemories(ctx: MemoryContext, query: string, options: RecallOptions = {}): Promise<Scored[]> {
  const type = checkType(options.type);
  const limit = options.limit ?? 5;
  const rel = await relevances(ctx, query, Math.max(CANDIDATE_POOL, limit * 4), type);
  const rows = ctx.rowsByIds([...rel.keys()]);
  const now = ctx.now();
  const scored: Scored[] = [];
  for (const [id, relevance] of rel) {
    const row = rows.get(id);
    // Nothing in common with the query (cosine ≤ 0, no keyword): not a recall, whatever its score.
    if (!row || relevance <= 0) continue;
    if (effectiveness(row.helped, row.failed) < (options.minEffectiveness ?? 0)) continue;
    if (options.minRelevance !== undefined && relevance < options.minRelevance) continue;
    scored.push(scoreRow(row, relevance, now));
  }
  return scored.sort(byScore);
}

export function present(s: Scored): RecalledMemory {
  return { ...toMemory(s.row), _relevance: round3(s.relevance), _recency: round3(s.recency), _score: round3(s.score) };
}

export async function recall(ctx: MemoryContext, query: string, options: RecallOptions = {}): Promise<RecalledMemory[]> {
  const limit = options.limit ?? 5;
  const top = (await rankMemories(ctx, query, options)).slice(0, limit);
  const out = top.map(present);
  if (options.expand) out.push(...(await expansion(ctx, query, top)));
  return out;
}

/** 1-hop neighbours of the results that are not results themselves, marked with `_via_edge`. */
async function expansion(ctx: MemoryContext, query: string, top: Scored[]): Promise<RecalledMemory[]> {
  const shown = new Set(top.map((s) => s.row.name));
  const index = await ctx.vectors();
  const [queryVector] = await ctx.embed([query]);
  const now = ctx.now();
  const found: { scored: Scored; via: string }[] = [];
  for (const s of top) {
    for (const n of neighbours(ctx, s.row.name)) {
      if (shown.has(n.name)) continue;
      const row = ctx.rowByName(n.name);
      if (!row) continue;
      shown.add(n.name);
      const v = index.vector(row.id);
      found.push({ scored: scoreRow(row, v ? Math.max(0, dot(v, queryVector!)) : 0, now), via: s.row.name });
    }
  }
  found.sort((a, b) => byScore(a.scored, b.scored));
  return found.map((f) => ({ ...present(f.scored), _via_edge: f.via }));
}
