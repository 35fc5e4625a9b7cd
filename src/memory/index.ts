// helix's memory store: failures, patterns and systemic failures that agents learn from, ranked by
// relevance, effectiveness (did it help verified tasks?) and recency. One SQLite file; no network.
//
// Library API (what the supervisor, the edit hook and `helix memory` call in-process):
//
//   const store = openMemoryStore({ dbPath: resolveDbPath(cwd, env), env, now, embedder?, warn? });
//   await store.store({ trigger, resolution, type?, source?, tags? }, { mergeNearDuplicates? }) → { status, name, reason }
//   await store.recall(query, { type?, limit?, minEffectiveness?, minRelevance?, minMatch?, expand? })
//   store.get(name)                                                     → Memory | undefined
//   await store.inject({ objective, files?, limit?, minMatch? })        → { prompt, injected }
//   await store.injectEntries({ objective, files?, limit?, minMatch? }) → { header, entries, injected }
//   await store.explainInjection({ objective, files?, limit?, below? })  → { gate, passed, below }: why each passed, what fell short
//   await store.batchInject(tasks, limit?)                              → { results, total_unique }
//   await store.strategicRecall(objective, limit?)
//   store.feedback(names, delta)
//   store.feedbackVerify({ taskId, verifyPassed, injected, utilized? })  → verification-gated feedback
//   await store.similarRecent(trigger, { threshold?, days?, type? })
//   store.edge(from, to, rel, weight?) · store.edges({ name?, rel? }) · store.connected(name, hops?)
//   await store.suggestEdges(name, limit?) · store.decayEdges(days?)
//   store.decay(days?, minUses?) · store.prune(threshold?, minUses?) · await store.consolidate(threshold?)
//   await store.chunk({ task, outcome, approach }) · await store.health()
//   store.list({ type?, archived? }) · store.show(name) · await store.edit(name, { trigger?, resolution?, type?, tags? })
//   store.forget(names) · await store.restore(name) · store.exportStore() → JSONL · await store.importStore(jsonl)
//   store.systemicWarnings(limit?) · store.firstShown(sessionId, names, limit?) · store.shownIn(sessionId) · await store.recordSessionEnd({ sessionId, utilized, learned })
//   await store.embedderId() · store.close()
//
// `now` (a Clock) defaults to HELIX_NOW or the wall clock; `embedder` overrides the run-time
// choice (HELIX_EMBEDDER / HELIX_MODEL_PATH, see embedders/select.ts). Errors are HelixErrors:
// `storeUnavailable` when the file cannot be opened, `notFound`, `validation`.
// This folder imports nothing from src/tracker, src/supervisor, src/agents or src/cli.
import { chunk, type ChunkInput } from './chunk.js';
import { clockFromEnv, type Clock } from './clock.js';
import { MemoryContext } from './store-context.js';
import { openDatabase } from './db.js';
import type { Embedder } from './embedders/embedder.js';
import type { Warn } from './embedders/select.js';
import { feedback, feedbackVerify, type VerifyFeedback } from './feedback.js';
import { connected, decayEdges, edge, edges, suggestEdges } from './graph.js';
import { health } from './health.js';
import { batchInject, explainInjection, inject, injectEntries, strategicRecall, type InjectRequest, type InjectTask } from './injection.js';
import { consolidate, decay, prune } from './maintenance.js';
import { recall, type RecallOptions } from './recall.js';
import { toMemory, type MemoryRow } from './rows.js';
import { similarRecent, type SimilarOptions } from './similar.js';
import { storeMemory, type StoreInput, type StoreOptions } from './store.js';
import { firstShown, recordSessionEnd, shownIn, type SessionEnd } from './session.js';
import { edit, exportStore, forget, importStore, list, restore, show, type EditInput } from './curation.js';

export { resolveDbPath } from './paths.js';
export { clockFromEnv, type Clock } from './clock.js';
export type { Embedder } from './embedders/embedder.js';
export type { Memory } from './rows.js';
export type { RecalledMemory } from './recall.js';
export type { StoreInput, StoreOptions, StoreResult } from './store.js';
export * from './constants.js';
export { lexicalEmbedder, LEXICAL_ID } from './embedders/lexical.js';
export { selectEmbedder, embedderChoice, EMBEDDER_CHOICES, OFFLINE_DEFAULT } from './embedders/select.js';
export { thresholdsFor, type Thresholds } from './thresholds.js';
export { memoryText } from './text.js';

export interface OpenOptions {
  dbPath: string;
  env?: NodeJS.ProcessEnv;
  now?: Clock;
  embedder?: Embedder;
  warn?: Warn;
}

export type MemoryStore = ReturnType<typeof openMemoryStore>;

export function openMemoryStore(options: OpenOptions) {
  const env = options.env ?? process.env;
  const now = options.now ?? clockFromEnv(env);
  const db = openDatabase(options.dbPath, now());
  const ctx = new MemoryContext({
    db,
    now,
    env,
    warn: options.warn ?? ((message) => process.stderr.write(`${message}\n`)),
    embedder: options.embedder,
  });
  return {
    dbPath: options.dbPath,
    store: (input: StoreInput, opts?: StoreOptions) => storeMemory(ctx, input, opts),
    recall: (query: string, opts?: RecallOptions) => recall(ctx, query, opts),
    get: (name: string) => {
      const row = ctx.rowByName(name);
      return row ? toMemory(row) : undefined;
    },
    inject: (task: InjectRequest) => inject(ctx, task),
    injectEntries: (task: InjectRequest) => injectEntries(ctx, task),
    explainInjection: (task: InjectRequest & { below?: number }) => explainInjection(ctx, task),
    batchInject: (tasks: InjectTask[], limit?: number) => batchInject(ctx, tasks, limit),
    strategicRecall: (objective: string, limit?: number) => strategicRecall(ctx, objective, limit),
    feedback: (names: string[], delta: number) => feedback(ctx, names, delta),
    feedbackVerify: (input: VerifyFeedback) => feedbackVerify(ctx, input),
    similarRecent: (trigger: string, opts?: SimilarOptions) => similarRecent(ctx, trigger, opts),
    edge: (from: string, to: string, rel: string, weight?: number) => edge(ctx, from, to, rel, weight),
    edges: (filter?: { name?: string; rel?: string }) => edges(ctx, filter),
    connected: (name: string, hops?: number) => connected(ctx, name, hops),
    suggestEdges: (name: string, limit?: number) => suggestEdges(ctx, name, limit),
    decayEdges: (days?: number) => decayEdges(ctx, days),
    decay: (days?: number, minUses?: number) => decay(ctx, days, minUses),
    prune: (threshold?: number, minUses?: number) => prune(ctx, threshold, minUses),
    consolidate: (threshold?: number) => consolidate(ctx, threshold),
    chunk: (input: ChunkInput) => chunk(ctx, input),
    health: () => health(ctx),
    list: (options?: { type?: string; archived?: boolean }) => list(ctx, options),
    show: (name: string) => show(ctx, name),
    edit: (name: string, input: EditInput) => edit(ctx, name, input),
    forget: (names: string[]) => forget(ctx, names),
    restore: (name: string) => restore(ctx, name),
    exportStore: () => exportStore(ctx),
    importStore: (text: string) => importStore(ctx, text),
    /** Systemic warnings, most repeated first, then most recent. */
    systemicWarnings: (limit = 3) =>
      (ctx.sql("SELECT * FROM memories WHERE type = 'systemic' ORDER BY repeats DESC, COALESCE(last_used, created_at) DESC, name LIMIT ?").all(limit) as MemoryRow[]).map(toMemory),
    firstShown: (sessionId: string, names: string[], limit?: number) => firstShown(ctx, sessionId, names, limit),
    shownIn: (sessionId: string) => shownIn(ctx, sessionId),
    /** How many sessions said they used the memory (UTILIZED through the Stop hooks). */
    sessionUses: (name: string) => ctx.rowByName(name)?.session_uses ?? 0,
    recordSessionEnd: (end: SessionEnd) => recordSessionEnd(ctx, end),
    embedderId: async () => (await ctx.embedder()).id,
    close: () => {
      ctx.saveVectorCache();
      db.close();
    },
  };
}
