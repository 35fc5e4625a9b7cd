// `health`: is the store being used and is the learning loop closed?
import { EDGE_RELATIONS, MEMORY_TYPES } from './constants.js';
import type { MemoryContext } from './store-context.js';
import { round3 } from './scoring.js';

export const NO_MEMORIES = 'No memories yet';
export const NO_FEEDBACK = 'No feedback recorded - learning loop not closed';

export async function health(ctx: MemoryContext) {
  const count = (sql: string, ...params: unknown[]) => (ctx.sql(sql).get(...params) as { n: number }).n;
  const total = count('SELECT COUNT(*) AS n FROM memories');
  const byType = Object.fromEntries(MEMORY_TYPES.map((t) => [t, count('SELECT COUNT(*) AS n FROM memories WHERE type = ?', t)]));
  const edgeTypes = Object.fromEntries(EDGE_RELATIONS.map((r) => [r, count('SELECT COUNT(*) AS n FROM edges WHERE rel_type = ?', r)]));
  const rated = ctx
    .sql('SELECT COUNT(*) AS n, AVG(helped / (helped + failed)) AS avg FROM memories WHERE helped + failed > 0')
    .get() as { n: number; avg: number | null };
  const issues: string[] = [];
  if (total === 0) issues.push(NO_MEMORIES);
  else if (rated.n === 0) issues.push(NO_FEEDBACK);
  return {
    status: issues.length === 0 ? 'HEALTHY' : 'NEEDS_ATTENTION',
    total_memories: total,
    total_edges: count('SELECT COUNT(*) AS n FROM edges'),
    by_type: byType,
    edge_types: edgeTypes,
    effectiveness: round3(rated.avg ?? 0),
    with_feedback: rated.n,
    embedder: (await ctx.embedder()).id,
    issues,
  };
}
