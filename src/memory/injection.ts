// Getting memories into an agent's prompt. `inject` unions semantic recall on the objective with
// the memories that mention the task's files (dual query, seed 002), ranks, cuts to the limit and
// renders `[NN%] trigger -> resolution` lines, systemic ones first as WARNING lines.
// `batchInject` does that for a wave of tasks without giving one memory to two tasks;
// `strategicRecall` summarises what the store knows about an objective (seed 003).
import { FILE_MATCH_RELEVANCE, PROVEN_EFFECTIVENESS, RISKY_EFFECTIVENESS, UNTESTED_USES } from './constants.js';
import type { MemoryContext } from './context.js';
import { baseName } from './files.js';
import { parseJsonList, type MemoryRow } from './rows.js';
import { effectiveness, uses } from './rows-math.js';
import { byScore, present, rankMemories, scoreRow, type RecalledMemory, type Scored } from './recall.js';
import { confidenceTag, round3 } from './scoring.js';

export interface InjectTask {
  objective: string;
  files?: string[];
}

export const PROMPT_HEADER = 'Memories from earlier tasks (list the ones that helped as UTILIZED: [name, ...]):';
const SYSTEMIC_NOTE = 'seen 3+ times: consider an architectural fix';

/** One memory as prompt text; a `procedure` memory's lines become numbered steps. */
export function renderMemory(row: Pick<MemoryRow, 'name' | 'type' | 'trigger' | 'resolution' | 'helped' | 'failed' | 'tags'>): string {
  const tag = confidenceTag(row.helped, row.failed);
  const steps = row.resolution.split('\n').map((l) => l.trim()).filter(Boolean);
  const procedure = parseJsonList(row.tags).includes('procedure') && steps.length > 1;
  const resolution = procedure ? `\n${steps.map((s, i) => `  ${i + 1}. ${s}`).join('\n')}` : ` ${row.resolution}`;
  const line = `${tag} ${row.trigger} ->${resolution} (memory: ${row.name})`;
  return row.type === 'systemic' ? `WARNING: ${line} [${SYSTEMIC_NOTE}]` : line;
}

export function renderPrompt(rows: MemoryRow[]): string {
  if (rows.length === 0) return '';
  const ordered = [...rows.filter((r) => r.type === 'systemic'), ...rows.filter((r) => r.type !== 'systemic')];
  return [PROMPT_HEADER, ...ordered.map(renderMemory)].join('\n');
}

/** Memories whose file patterns match one of `files` (same path, a path suffix, or a bare basename). */
export function fileMatches(ctx: MemoryContext, files: string[]): MemoryRow[] {
  if (files.length === 0) return [];
  const clean = files.map((f) => f.replace(/^\.\//, ''));
  const bases = [...new Set(clean.map(baseName))];
  const rows = ctx
    .sql(
      `SELECT DISTINCT m.*, f.pattern AS pattern FROM memory_files f JOIN memories m ON m.id = f.memory_id
       WHERE f.basename IN (${bases.map(() => '?').join(',')})`,
    )
    .all(...bases) as (MemoryRow & { pattern: string })[];
  const matches = (pattern: string, file: string) =>
    pattern === file || file.endsWith(`/${pattern}`) || pattern.endsWith(`/${file}`) || (!pattern.includes('/') && baseName(file) === pattern);
  const seen = new Map<number, MemoryRow>();
  for (const row of rows) {
    if (clean.some((file) => matches(row.pattern, file))) seen.set(row.id, row);
  }
  return [...seen.values()];
}

/** Semantic ∪ file-pattern candidates for one task, ranked, not yet cut. */
export async function candidatesFor(ctx: MemoryContext, task: InjectTask, pool: number): Promise<Scored[]> {
  const { related } = await ctx.thresholds();
  const semantic = (await rankMemories(ctx, task.objective, { limit: pool })).filter((s) => s.relevance >= related);
  const byId = new Map(semantic.map((s) => [s.row.id, s]));
  const now = ctx.now();
  for (const row of fileMatches(ctx, task.files ?? [])) {
    const known = byId.get(row.id);
    byId.set(row.id, scoreRow(row, Math.max(known?.relevance ?? 0, FILE_MATCH_RELEVANCE), now));
  }
  return [...byId.values()].sort(byScore);
}

export async function inject(ctx: MemoryContext, task: InjectTask & { limit?: number }) {
  const limit = task.limit ?? 5;
  const chosen = (await candidatesFor(ctx, task, limit * 4)).slice(0, limit).map((s) => s.row);
  return { prompt: renderPrompt(chosen), injected: chosen.map((r) => r.name) };
}

export async function batchInject(ctx: MemoryContext, tasks: InjectTask[], limit = 3) {
  const given = new Set<string>();
  const results: { insights: string[]; names: string[] }[] = [];
  for (const task of tasks) {
    const candidates = await candidatesFor(ctx, task, limit * 4 + given.size);
    const chosen = candidates.filter((s) => !given.has(s.row.name)).slice(0, limit).map((s) => s.row);
    for (const row of chosen) given.add(row.name);
    results.push({ insights: chosen.map(renderMemory), names: chosen.map((r) => r.name) });
  }
  return { results, total_unique: given.size };
}

export async function strategicRecall(ctx: MemoryContext, objective: string, limit = 15) {
  const totalInSystem = (ctx.sql('SELECT COUNT(*) AS n FROM memories').get() as { n: number }).n;
  const { related } = await ctx.thresholds();
  const top = totalInSystem === 0 ? [] : (await rankMemories(ctx, objective, { limit })).filter((s) => s.relevance >= related).slice(0, limit);
  const insights: RecalledMemory[] = top.map(present);
  const mean = (xs: number[]) => (xs.length ? round3(xs.reduce((a, b) => a + b, 0) / xs.length) : 0);
  const tagDistribution: Record<string, number> = {};
  for (const s of top) for (const tag of parseJsonList(s.row.tags)) tagDistribution[tag] = (tagDistribution[tag] ?? 0) + 1;
  return {
    insights,
    summary: {
      total_recalled: top.length,
      total_in_system: totalInSystem,
      avg_relevance: mean(top.map((s) => s.relevance)),
      avg_effectiveness: mean(top.map((s) => effectiveness(s.row))),
      proven_count: top.filter((s) => effectiveness(s.row) >= PROVEN_EFFECTIVENESS).length,
      risky_count: top.filter((s) => effectiveness(s.row) < RISKY_EFFECTIVENESS).length,
      untested_count: top.filter((s) => uses(s.row) < UNTESTED_USES).length,
      coverage_ratio: totalInSystem ? round3(top.length / totalInSystem) : 0,
      tag_distribution: tagDistribution,
    },
  };
}
