// The memory graph: typed, weighted edges between memory names (solves, co_occurs, similar,
// causes). Adding an existing triple adds to its weight; traversal ignores direction.
import { EDGE_DECAY_DAYS, EDGE_RELATIONS, type EdgeRelation } from './constants.js';
import type { MemoryContext } from './store-context.js';
import { isoDaysBefore } from './clock.js';
import { HelixError } from '../errors.js';
import { linkBetween } from './graph-rules.js';
import { toMemory, type Memory } from './rows.js';
import { round3 } from './scoring.js';

export interface Edge {
  from: string;
  to: string;
  rel_type: EdgeRelation;
  weight: number;
  created_at: string;
}

interface EdgeRow {
  from_name: string;
  to_name: string;
  rel_type: EdgeRelation;
  weight: number;
  created_at: string;
}

const toEdge = (r: EdgeRow): Edge => ({
  from: r.from_name,
  to: r.to_name,
  rel_type: r.rel_type,
  weight: round3(r.weight),
  created_at: r.created_at,
});

export function checkRelation(rel: string): EdgeRelation {
  if (!(EDGE_RELATIONS as readonly string[]).includes(rel)) {
    throw new HelixError('validation', `helix memory: --rel must be one of ${EDGE_RELATIONS.join(', ')}`);
  }
  return rel as EdgeRelation;
}

/** Inserts or strengthens an edge; returns its weight afterwards. Call inside a transaction. */
export function addEdge(ctx: MemoryContext, from: string, to: string, rel: EdgeRelation, weight: number): number {
  ctx
    .sql(
      `INSERT INTO edges (from_name, to_name, rel_type, weight, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (from_name, to_name, rel_type) DO UPDATE SET weight = weight + excluded.weight`,
    )
    .run(from, to, rel, weight, ctx.now().toISOString());
  const row = ctx
    .sql('SELECT weight FROM edges WHERE from_name = ? AND to_name = ? AND rel_type = ?')
    .get(from, to, rel) as { weight: number };
  return row.weight;
}

export function edge(ctx: MemoryContext, from: string, to: string, rel: string, weight = 1.0) {
  const relation = checkRelation(rel);
  if (!Number.isFinite(weight) || weight <= 0) throw new HelixError('validation', 'helix memory: --weight must be a positive number');
  if (from === to) throw new HelixError('validation', 'helix memory: an edge needs two different memories');
  for (const name of [from, to]) {
    if (!ctx.rowByName(name)) throw new HelixError('notFound', `helix memory: not found: ${name}`);
  }
  const total = ctx.write(() => addEdge(ctx, from, to, relation, weight));
  return { from, to, rel_type: relation, weight: round3(total) };
}

export function edges(ctx: MemoryContext, filter: { name?: string; rel?: string } = {}): Edge[] {
  const where: string[] = [];
  const params: string[] = [];
  if (filter.name) {
    where.push('(from_name = ? OR to_name = ?)');
    params.push(filter.name, filter.name);
  }
  if (filter.rel) {
    where.push('rel_type = ?');
    params.push(checkRelation(filter.rel));
  }
  const sql = `SELECT * FROM edges ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY weight DESC, from_name, to_name, rel_type`;
  return (ctx.sql(sql).all(...params) as EdgeRow[]).map(toEdge);
}

/** Neighbours of `name` over edges in either direction, with the connecting edge's weight. */
export function neighbours(ctx: MemoryContext, name: string): { name: string; weight: number; rel_type: EdgeRelation }[] {
  const rows = ctx.sql('SELECT * FROM edges WHERE from_name = ? OR to_name = ?').all(name, name) as EdgeRow[];
  return rows.map((r) => ({ name: r.from_name === name ? r.to_name : r.from_name, weight: r.weight, rel_type: r.rel_type }));
}

export type ConnectedMemory = Memory & { _hops: number; _path_weight: number };

/**
 * Memories reachable from `name` within `hops` edges, nearest first. A memory reached over
 * several shortest paths keeps the strongest; a path's weight is the product of its edges'.
 */
export function connected(ctx: MemoryContext, name: string, hops = 2): ConnectedMemory[] {
  if (!ctx.rowByName(name)) throw new HelixError('notFound', `helix memory: not found: ${name}`);
  const best = new Map<string, { hops: number; weight: number }>([[name, { hops: 0, weight: 1 }]]);
  let frontier = [name];
  for (let hop = 1; hop <= hops && frontier.length > 0; hop++) {
    const next = new Map<string, number>();
    for (const from of frontier) {
      const reach = best.get(from)!.weight;
      for (const n of neighbours(ctx, from)) {
        const seen = best.get(n.name);
        if (seen && seen.hops < hop) continue;
        next.set(n.name, Math.max(next.get(n.name) ?? 0, reach * n.weight));
      }
    }
    for (const [n, weight] of next) best.set(n, { hops: hop, weight });
    frontier = [...next.keys()];
  }
  const result: ConnectedMemory[] = [];
  for (const [n, { hops: h, weight }] of best) {
    if (h === 0) continue;
    const row = ctx.rowByName(n);
    if (row) result.push({ ...toMemory(row), _hops: h, _path_weight: round3(weight) });
  }
  return result.sort((a, b) => a._hops - b._hops || b._path_weight - a._path_weight || a.name.localeCompare(b.name));
}

export interface EdgeSuggestion {
  from: string;
  to: string;
  rel_type: EdgeRelation;
  reason: string;
  confidence: number;
}

/** Memories at or above the auto-link cosine, with the relation the linking rule gives them. */
export async function suggestEdges(ctx: MemoryContext, name: string, limit = 5): Promise<EdgeSuggestion[]> {
  const row = ctx.rowByName(name);
  if (!row) throw new HelixError('notFound', `helix memory: not found: ${name}`);
  const index = await ctx.vectors();
  const { autoLink } = await ctx.thresholds();
  const vector = index.vector(row.id);
  if (!vector) return [];
  const near = index.nearest(Float32Array.from(vector), limit + 1).filter((n) => n.id !== row.id && n.cosine >= autoLink);
  const rows = ctx.rowsByIds(near.map((n) => n.id));
  const out: EdgeSuggestion[] = [];
  for (const n of near) {
    const other = rows.get(n.id);
    if (!other) continue;
    const link = linkBetween(row, other);
    out.push({ ...link, reason: `similarity ${round3(n.cosine)} ≥ ${autoLink}`, confidence: round3(n.cosine) });
    if (out.length >= limit) break;
  }
  return out;
}

/** Halves the weight of edges whose both ends have been unused for `days`. */
export function decayEdges(ctx: MemoryContext, days = EDGE_DECAY_DAYS) {
  const cutoff = isoDaysBefore(ctx.now(), days);
  const changed = ctx.write(() => {
    const dormant = `(SELECT COALESCE(last_used, created_at) FROM memories WHERE name = %s) < ?`;
    return ctx
      .sql(`UPDATE edges SET weight = weight / 2 WHERE ${dormant.replace('%s', 'from_name')} AND ${dormant.replace('%s', 'to_name')}`)
      .run(cutoff, cutoff).changes;
  });
  return { edges_decayed: changed, threshold_days: days };
}

