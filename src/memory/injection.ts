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
import { LEAD_RATIO, LEADER_GATE_SHARE } from './thresholds.js';

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

/** Why a candidate passed the gate: it answers enough of the task, or it is the task's clear best answer. */
export type GateReason = 'match' | 'leader';

/**
 * The gate (thresholds.ts): which candidates go into a prompt, and why. A candidate passes when it
 * answers enough of the task (match ≥ gate), or when it is the task's clear best answer — the one
 * highest match, at least LEADER_GATE_SHARE of the gate and LEAD_RATIO times the runner-up's. A
 * paraphrased task shares few words with the memory about it, but no other memory shares as many;
 * a task nothing fits shares a generic word or two with several memories alike (issue #33).
 * A systemic warning passes the same gate as any memory: its trigger states the situation it warns
 * about, and a warning shown whatever the task is noise an agent learns to skip.
 */
export function gateReasons<T extends Pick<Scored, 'match'>>(candidates: T[], gate: number): Map<T, GateReason> {
  const out = new Map<T, GateReason>();
  for (const c of candidates) if (c.match >= gate) out.set(c, 'match');
  const [best, second] = [...candidates].sort((a, b) => b.match - a.match);
  if (best && !out.has(best) && best.match >= LEADER_GATE_SHARE * gate && best.match >= LEAD_RATIO * (second?.match ?? 0) && best.match > (second?.match ?? 0)) out.set(best, 'leader');
  return out;
}

/** A candidate of one task with the gate's verdict: why it passed, or undefined. */
export type Judged = Scored & { reason?: GateReason };

/**
 * Semantic ∪ file-pattern candidates for one task, each judged by the gate: those that pass,
 * ranked, and the rest by match, best first. The task's files join the query as paths (match.ts);
 * a memory that names one of them ranks with at least the embedder's file floor as relevance
 * (contract: dual query).
 */
export async function judgeCandidates(ctx: MemoryContext, task: InjectTask & { minMatch?: number }, pool: number): Promise<{ gate: number; passed: Judged[]; rejected: Judged[] }> {
  const { gate: calibrated, fileFloor } = await ctx.thresholds();
  const gate = task.minMatch ?? calibrated;
  const ranked = await rankMemories(ctx, task.objective, { limit: pool, files: task.files ?? [] });
  const reasons = gateReasons(ranked, gate);
  const now = ctx.now();
  const passed = ranked
    .filter((s) => reasons.has(s))
    .map((s): Judged => ({ ...(s.namesFile && s.relevance < fileFloor ? { ...s, ...scoreRow(s.row, fileFloor, now, s.match) } : s), reason: reasons.get(s)! }))
    .sort(byScore);
  const rejected = ranked.filter((s) => !reasons.has(s)).sort((a, b) => b.match - a.match || byScore(a, b));
  return { gate, passed, rejected };
}

/** The candidates of one task that pass the gate, ranked, not yet cut. */
export async function candidatesFor(ctx: MemoryContext, task: InjectTask & { minMatch?: number }, pool: number): Promise<Scored[]> {
  return (await judgeCandidates(ctx, task, pool)).passed;
}

/** One candidate as `helix memory why` shows it. */
export interface ExplainedMemory {
  name: string;
  type: string;
  trigger: string;
  score: number;
  match: number;
  /** Why it passed the gate; absent for a candidate left out. */
  reason?: GateReason;
  /** What the match rests on: the words and files it shares, and whose side gave it (match.ts). */
  words: string[];
  files: string[];
  side: 'task' | 'trigger' | 'file';
}

const explained = (s: Judged): ExplainedMemory => ({
  name: s.row.name,
  type: s.row.type,
  trigger: s.row.trigger,
  score: round3(s.score),
  match: round3(s.match),
  ...(s.reason ? { reason: s.reason } : {}),
  words: s.evidence?.words ?? [],
  files: s.evidence?.files ?? [],
  side: s.evidence?.side ?? 'task',
});

/**
 * Why a task gets what it gets: the candidates that pass the gate (ranked, as inject orders them,
 * before any cut) and the best `below` of those left out, by match — what was just under the line.
 */
export async function explainInjection(ctx: MemoryContext, task: InjectRequest & { below?: number }) {
  const { gate, passed, rejected } = await judgeCandidates(ctx, task, (task.limit ?? 5) * 4);
  return {
    gate,
    leader: { floor: round3(LEADER_GATE_SHARE * gate), ratio: LEAD_RATIO },
    passed: passed.map(explained),
    below: rejected.filter((s) => s.match > 0).slice(0, task.below ?? 3).map(explained),
  };
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
  const ranked = totalInSystem === 0 ? [] : await rankMemories(ctx, objective, { limit });
  const passed = gateReasons(ranked, gate);
  const top = ranked.filter((s) => passed.has(s)).slice(0, limit);
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
