// `recall`: rank memories for a query by 0.5·relevance + 0.3·effectiveness + 0.2·recency.
// Relevance fuses (fusion.ts) three lists, each the right signal for some queries:
//   - BM25 over code-aware terms (fts.ts, search-terms.ts): error text, identifiers, most words; a match
//     counts by its score relative to the best one, so look-alikes stay close;
//   - the files the query (or the task) names, matched as paths against the memories' file index:
//     an edit hook's `services/billing/client.go` is a path, not five words;
//   - the embedder's nearest neighbours, above the embedder's own floor, when its calibrated weight
//     says they pay (thresholds.ts): what BM25 misses because the words differ; by rank, never by
//     raw cosine.
// A query equal to a memory's text (normalised) has relevance 1. Recall only reads: it never
// changes counters or last_used.
import { BM25_LIST_WEIGHT, CANDIDATE_POOL, HEADLINE_IN_RELEVANCE, MATCH_IN_RELEVANCE, MEMORY_TYPES, PATH_LIST_WEIGHT, RRF_K, SCORE_SHARE_EXPONENT, SCORE_SHARE_FLOOR, SEMANTIC_POOL } from './constants.js';
import type { MemoryContext } from './store-context.js';
import { HelixError } from '../errors.js';
import { baseName, cleanPath, queryPaths, sharedSuffix } from './files.js';
import { keywordSearch } from './fts.js';
import { fuse, type RankedList } from './fusion.js';
import { headlineShares, matchDetails, type MatchDetail } from './match.js';
import { neighbours } from './graph.js';
import { toMemory, type Memory, type MemoryRow } from './rows.js';
import { effectiveness, recency, round3, score } from './scoring.js';
import { normaliseText } from './text.js';

export interface RecallOptions {
  type?: string;
  limit?: number;
  minEffectiveness?: number;
  minRelevance?: number;
  /** Drop memories whose absolute match (match.ts) is below this: the gate. */
  minMatch?: number;
  expand?: boolean;
  /** Files the task touches (inject): matched as paths, like paths in the query itself. */
  files?: string[];
}

export type RecalledMemory = Memory & {
  _relevance: number;
  _recency: number;
  _score: number;
  /** How much of the query the memory answers, absolute (match.ts): what the gate compares. */
  _match: number;
  _via_edge?: string;
};

/** A scored candidate before output rounding (internal callers rank on exact values). */
export interface Scored {
  row: MemoryRow;
  relevance: number;
  recency: number;
  score: number;
  /** The memory names one of the files the query or task names. */
  namesFile?: boolean;
  /** The absolute match of match.ts, in [0, 1]. */
  match: number;
  /** What the match rests on (match.ts): the words and files shared, and whose side gave it. */
  evidence?: MatchDetail;
}

export function checkType(type: string | undefined): string | undefined {
  if (type !== undefined && !(MEMORY_TYPES as readonly string[]).includes(type)) {
    throw new HelixError('validation', `helix memory: --type must be one of ${MEMORY_TYPES.join(', ')}`);
  }
  return type;
}

/**
 * The contract's score, with recency earned by the match: 0.5·relevance + 0.3·effectiveness +
 * 0.2·recency·match. Fused relevance sits in 0.78–1.0 for everything that shares a word with the
 * query, so plain recency decided between a strong on-topic memory from three weeks ago and this
 * week's weak look-alikes; now freshness counts only as far as the memory answers the query
 * (eval/memory-gate.json and eval/memory-hard.json, docs/memory.md).
 */
export function scoreRow(row: MemoryRow, relevance: number, now: Date, match = 0): Scored {
  const rec = recency(row.last_used, row.created_at, now);
  return { row, relevance, recency: rec, score: score(relevance, effectiveness(row), rec * match), match };
}

export const byScore = (a: Scored, b: Scored): number => b.score - a.score || a.row.name.localeCompare(b.row.name);

/**
 * Memories naming one of `files`, best match first (more shared trailing path segments first).
 * A stored pattern names the file when it is one of the file's path suffixes (`tax/client.go`,
 * `client.go` for `services/billing/tax/client.go`) or the file is one of its suffixes; either way
 * the two share the file name, so one index lookup by file name finds every candidate and each is
 * compared from the end, segment by segment. Linear in the path's length: a 128 KB path is split
 * once, never joined again per suffix (that was quadratic: 27 s for 64,000 segments).
 */
export function pathList(ctx: MemoryContext, files: string[], type?: string): RankedList {
  const best = new Map<number, number>();
  const typed = type ? ' AND m.type = ?' : '';
  const sameName = ctx.sql(`SELECT f.memory_id AS id, f.pattern AS pattern FROM memory_files f JOIN memories m ON m.id = f.memory_id WHERE f.basename = ?${typed}`);
  for (const file of new Set(files.map(cleanPath))) {
    const segments = file.split('/');
    for (const { id, pattern } of sameName.all(...[baseName(file), ...(type ? [type] : [])]) as { id: number; pattern: string }[]) {
      const patternSegments = cleanPath(pattern).split('/');
      const shared = sharedSuffix(patternSegments, segments);
      if (shared > (best.get(id) ?? 0)) best.set(id, shared);
    }
  }
  const sorted = [...best].filter(([, s]) => s > 0).sort((a, b) => b[1] - a[1] || a[0] - b[0]);
  return { weight: PATH_LIST_WEIGHT, ids: sorted.map(([id]) => id), ties: sorted.map(([, s]) => s) };
}

/** The ranked lists relevance is fused from, for `query` (and the task's files). */
export async function rankedLists(ctx: MemoryContext, query: string, pool: number, type?: string, files: string[] = []): Promise<[RankedList, RankedList, ...RankedList[]]> {
  const keyword = keywordSearch(ctx, query, pool, type);
  const lists: [RankedList, RankedList, ...RankedList[]] = [
    { weight: BM25_LIST_WEIGHT, ids: keyword.map((k) => k.id), scores: keyword.map((k) => k.score) },
    pathList(ctx, [...queryPaths(query), ...files], type),
  ];
  const { semanticWeight, semanticFloor } = await ctx.thresholds();
  if (semanticWeight > 0) {
    const index = await ctx.vectors();
    const [vector] = await ctx.embed([query]);
    const near = index.nearest(vector!, SEMANTIC_POOL, type).filter((n) => n.cosine >= semanticFloor);
    lists.push({ weight: semanticWeight, ids: near.map((n) => n.id) });
  }
  return lists;
}

/** Relevance (for ranking) and match (for the gate) of every candidate memory for `query`, in [0, 1]. */
export async function relevances(
  ctx: MemoryContext,
  query: string,
  pool: number,
  type?: string,
  files: string[] = [],
): Promise<{ relevance: Map<number, number>; named: Set<number>; match: Map<number, MatchDetail> }> {
  const lists = await rankedLists(ctx, query, pool, type, files);
  const relevance = fuse(lists, RRF_K, SCORE_SHARE_EXPONENT, SCORE_SHARE_FLOOR);
  const exact = ctx
    .sql(`SELECT id FROM memories WHERE norm_text = ?${type ? ' AND type = ?' : ''}`)
    .all(...(type ? [normaliseText(query), type] : [normaliseText(query)])) as { id: number }[];
  const match = matchDetails(ctx, query, files, [...relevance.keys()]);
  for (const { id } of exact) {
    relevance.set(id, 1);
    match.set(id, { ...(match.get(id) ?? { words: [], files: [], side: 'task' }), match: 1 });
  }
  // Where the detail decides (issue #39): near-duplicates share most of a bead's words, and BM25
  // over a long bead sums them, so the memory echoing most of its boilerplate came first. The match
  // weighs each term by how rare it is in the store and also asks how much of the memory's own
  // situation the query states: a look-alike whose detail (its commit, component, file) the query
  // does not name loses that share, and the one naming the query's detail keeps it. A bead's
  // headline (its title) against each candidate's trigger decides HEADLINE_IN_RELEVANCE more: the
  // bodies of near-duplicate beads repeat one acceptance text, their titles carry the detail.
  const headline = headlineShares(ctx, query, [...relevance.keys()]);
  const headlineShare = headline.size > 0 ? HEADLINE_IN_RELEVANCE : 0;
  for (const [id, fused] of relevance) {
    const matched = MATCH_IN_RELEVANCE * (match.get(id)?.match ?? 0);
    relevance.set(id, (1 - MATCH_IN_RELEVANCE - headlineShare) * fused + matched + headlineShare * (headline.get(id) ?? 0));
  }
  for (const { id } of exact) relevance.set(id, 1);
  // lists[1] is the path list: the memories naming one of the files.
  return { relevance, named: new Set(lists[1].ids), match };
}

/** Ranked candidates for `query`, unrounded, before the limit. */
export async function rankMemories(ctx: MemoryContext, query: string, options: RecallOptions = {}): Promise<Scored[]> {
  const type = checkType(options.type);
  const limit = options.limit ?? 5;
  const { relevance, named, match } = await relevances(ctx, query, Math.max(CANDIDATE_POOL, limit * 4), type, options.files);
  const rows = ctx.rowsByIds([...relevance.keys()]);
  const now = ctx.now();
  const scored: Scored[] = [];
  for (const [id, rel] of relevance) {
    const row = rows.get(id);
    if (!row || rel <= 0) continue;
    if (effectiveness(row) < (options.minEffectiveness ?? 0)) continue;
    if (options.minRelevance !== undefined && rel < options.minRelevance) continue;
    const evidence = match.get(id);
    const m = evidence?.match ?? 0;
    if (options.minMatch !== undefined && m < options.minMatch) continue;
    scored.push({ ...scoreRow(row, rel, now, m), namesFile: named.has(id), ...(evidence ? { evidence } : {}) });
  }
  return scored.sort(byScore);
}

export function present(s: Scored): RecalledMemory {
  return { ...toMemory(s.row), _relevance: round3(s.relevance), _recency: round3(s.recency), _score: round3(s.score), _match: round3(s.match) };
}

export async function recall(ctx: MemoryContext, query: string, options: RecallOptions = {}): Promise<RecalledMemory[]> {
  const limit = options.limit ?? 5;
  const ranked = await rankMemories(ctx, query, options);
  const top = ranked.slice(0, limit);
  const out = top.map(present);
  if (options.expand) out.push(...expansion(ctx, top, new Map(ranked.map((s) => [s.row.id, s.relevance])), new Map(ranked.map((s) => [s.row.id, s.match]))));
  return out;
}

/**
 * 1-hop neighbours of the results that are not results themselves, marked with `_via_edge`; a
 * neighbour keeps the relevance the query gave it (0 when no list ranked it).
 */
function expansion(ctx: MemoryContext, top: Scored[], relevance: Map<number, number>, match: Map<number, number>): RecalledMemory[] {
  const shown = new Set(top.map((s) => s.row.name));
  const now = ctx.now();
  const found: { scored: Scored; via: string }[] = [];
  for (const s of top) {
    for (const n of neighbours(ctx, s.row.name)) {
      if (shown.has(n.name)) continue;
      const row = ctx.rowByName(n.name);
      if (!row) continue;
      shown.add(n.name);
      found.push({ scored: scoreRow(row, relevance.get(row.id) ?? 0, now, match.get(row.id) ?? 0), via: s.row.name });
    }
  }
  found.sort((a, b) => byScore(a.scored, b.scored));
  return found.map((f) => ({ ...present(f.scored), _via_edge: f.via }));
}
