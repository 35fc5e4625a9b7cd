// Getting memories into an agent's prompt. `inject` unions semantic recall on the objective with
// the memories that mention the task's files (dual query, docs/contract/design.md §6), ranks, cuts to the limit and
// renders `[NN%] trigger -> resolution` lines, systemic ones first as WARNING lines.
// `batchInject` does that for a wave of tasks without giving one memory to two tasks;
// `strategicRecall` summarises what the store knows about an objective (docs/contract/design.md §7).
import { PROVEN_EFFECTIVENESS, RISKY_EFFECTIVENESS, SYSTEMIC_PRIOR_FAILURES, UNTESTED_USES } from './constants.js';
import type { MemoryContext } from './store-context.js';
import { parseJsonList, type MemoryRow } from './rows.js';
import { uses } from './rows-math.js';
import { byScore, present, rankMemories, scoreRow, type RecalledMemory, type Scored } from './recall.js';
import { confidenceTag, effectiveness, round3 } from './scoring.js';

export interface InjectTask {
  objective: string;
  files?: string[];
}

/** An injection request: the task, how many memories, and the gate (default: the embedder's). */
export type InjectRequest = InjectTask & { limit?: number; minMatch?: number };

export const PROMPT_HEADER = 'Memories from earlier tasks (list the ones that helped as UTILIZED: [name, ...]):';
/** How often a systemic row's problem was seen: the three that promoted it, then each repeat. */
export const timesSeen = (row: Pick<MemoryRow, 'repeats'>): number => SYSTEMIC_PRIOR_FAILURES + 1 + (row.repeats ?? 0);

/** One memory as prompt text; a `procedure` memory's lines become numbered steps. */
export function renderMemory(row: Pick<MemoryRow, 'name' | 'type' | 'trigger' | 'resolution' | 'helped' | 'failed' | 'tags' | 'repeats'>): string {
  const tag = confidenceTag(row.helped, row.failed);
  const steps = row.resolution.split('\n').map((l) => l.trim()).filter(Boolean);
  const procedure = parseJsonList(row.tags).includes('procedure') && steps.length > 1;
  const resolution = procedure ? `\n${steps.map((s, i) => `  ${i + 1}. ${s}`).join('\n')}` : ` ${row.resolution}`;
  const line = `${tag} ${row.trigger} ->${resolution} (memory: ${row.name})`;
  return row.type === 'systemic' ? `WARNING: ${line} [seen ${timesSeen(row)} times: consider an architectural fix]` : line;
}

/** One memory as the prompt shows it: its name and its rendered text (several lines for a procedure). */
export interface PromptEntry {
  name: string;
  text: string;
}

/** The entries in the order a prompt shows them: systemic warnings first, then by score. */
export function promptEntries(rows: MemoryRow[]): PromptEntry[] {
  const ordered = [...rows.filter((r) => r.type === 'systemic'), ...rows.filter((r) => r.type !== 'systemic')];
  return ordered.map((row) => ({ name: row.name, text: renderMemory(row) }));
}

export function renderPrompt(rows: MemoryRow[]): string {
  if (rows.length === 0) return '';
  return [PROMPT_HEADER, ...promptEntries(rows).map((e) => e.text)].join('\n');
}

/**
 * Whether a candidate goes into a prompt: it answers enough of the task (the gate), or it is a
 * systemic warning that shares anything with the task — a failure repeated across tasks may
 * strike any task that touches it, and there is one such row per problem (store.ts), not a flood.
 */
export function passesGate(s: Pick<Scored, 'match' | 'row'>, gate: number): boolean {
  return s.match >= gate || (s.row.type === 'systemic' && s.match > 0);
}

/**
 * Semantic ∪ file-pattern candidates for one task that pass the gate, ranked, not yet cut. The
 * task's files join the query as paths; a memory that names one of them matches fully (match.ts)
 * and ranks with at least the embedder's file floor as relevance (contract: dual query).
 */
export async function candidatesFor(ctx: MemoryContext, task: InjectTask & { minMatch?: number }, pool: number): Promise<Scored[]> {
  const { gate, fileFloor } = await ctx.thresholds();
  const ranked = await rankMemories(ctx, task.objective, { limit: pool, files: task.files ?? [] });
  const now = ctx.now();
  return ranked
    .filter((s) => passesGate(s, task.minMatch ?? gate))
    .map((s) => (s.namesFile && s.relevance < fileFloor ? { ...scoreRow(s.row, fileFloor, now, s.match), namesFile: true } : s))
    .sort(byScore);
}

async function chosenFor(ctx: MemoryContext, task: InjectRequest): Promise<MemoryRow[]> {
  const limit = task.limit ?? 5;
  return (await candidatesFor(ctx, task, limit * 4)).slice(0, limit).map((s) => s.row);
}

export async function inject(ctx: MemoryContext, task: InjectRequest) {
  const chosen = await chosenFor(ctx, task);
  return { prompt: renderPrompt(chosen), injected: chosen.map((r) => r.name) };
}

/**
 * What `inject` renders, as data, for a caller that picks and fits entries itself (the run's
 * exploration slot and character budget): the header, the entries in prompt order, and the names
 * best first. `[header, ...entries.text].join('\n')` is exactly `inject`'s prompt.
 */
export async function injectEntries(ctx: MemoryContext, task: InjectRequest) {
  const chosen = await chosenFor(ctx, task);
  return { header: PROMPT_HEADER, entries: promptEntries(chosen), injected: chosen.map((r) => r.name) };
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
  const { gate } = await ctx.thresholds();
  const top = totalInSystem === 0 ? [] : (await rankMemories(ctx, objective, { limit, minMatch: gate })).slice(0, limit);
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
