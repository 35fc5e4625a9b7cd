// The learning loop (issue 8): the run feeds memory and memory feeds the run.
// Before dispatch: a dual query (the bead's words + the files it names) picks memories for the
// prompt. After the attempt: verification — never the agent's say-so — decides which of them
// helped (`feedback-verify`, gated by the agent's UTILIZED claim); a failure becomes a `failure`
// memory (the store promotes the third similar one in a week to `systemic`); a success with a
// LEARNED/INSIGHT line becomes a `pattern`. Any memory error is reported once and the run goes on.
import { existsSync } from 'node:fs';
// trailers.ts alone: the agent runner (execa) is not needed to read an agent's answer
import { parseTrailers } from '../../agents/trailers.js';
import { filePatterns } from '../../memory/files.js';
import type { Bead } from '../../tracker/index.js';
import { RUN } from '../text/lines.js';

/** Optional memory hooks (the learning loop); every call may fail without breaking the run. */
export interface MemoryPort {
  inject(bead: Bead): Promise<{ block: string; names: string[] }>;
  /**
   * `output` is the agent's final answer (UTILIZED / LEARNED lines are read from it). `refuted`:
   * the agent reported success and verification failed, so its LEARNED line is the approach that
   * was refused, not a resolution.
   */
  feedback(input: { bead: Bead; injected: string[]; verified: boolean; output: string; failureDetail?: string; refuted?: boolean }): Promise<MemoryCredit | undefined>;
  /** Systemic memories, for the blocker report. */
  systemic?(): Promise<string[]>;
  close?(): void;
}

/**
 * What the store recorded for each injected memory (memory/feedback.ts verifyVerdicts): credited as
 * helping, as not helping (where it applied and was not used, or used and refuted), or left alone
 * (not about the task). Undefined when nothing was injected.
 */
export interface MemoryCredit {
  helped: string[];
  failed: string[];
  leftAlone: string[];
}

type MemoryModule = typeof import('../../memory/index.js');
type MemoryStore = import('../../memory/index.js').MemoryStore;

/** The memory block is capped so it never crowds out the bead itself. */
export const INJECTION_CHAR_BUDGET = 2000;
export const INJECTION_LIMIT = 5;
/** Ranked candidates asked of the store per injection, so the exploration slot has a choice. */
export const EXPLORATION_POOL = INJECTION_LIMIT * 4;
export const UNRESOLVED = 'UNRESOLVED - requires investigation';

/** Files a bead names: its `relevant_files` plus path-like words in its text and design. */
export function beadFiles(bead: Bead): string[] {
  const files = new Set<string>();
  const relevant = bead.relevant_files;
  if (Array.isArray(relevant)) for (const f of relevant) if (typeof f === 'string' && f.trim()) files.add(f.trim());
  if (typeof relevant === 'string') for (const f of relevant.split(/[,\s]+/)) if (f) files.add(f);
  const text = [bead.title, bead.description, bead.acceptance, bead.design].filter((v) => typeof v === 'string').map(withoutDigest).join('\n');
  // The store's own path matcher (memory/files.ts); of its tokens a bead keeps those with a folder
  // or a source-file extension.
  for (const token of filePatterns(text)) {
    if (token.includes('/') || /\.(ts|js|mjs|cjs|tsx|jsx|py|go|rs|rb|java|kt|c|h|cc|cpp|md|json|ya?ml|toml|sh|sql|css|html)$/i.test(token)) files.add(token);
  }
  return [...files];
}

export function beadObjective(bead: Bead): string {
  return [bead.title, bead.description, bead.acceptance].filter((v): v is string => typeof v === 'string' && v.trim() !== '').map(withoutDigest).join('\n');
}

/**
 * A bead's text without the `<context-digest>` block HELIX's tracker prepends to descriptions: the
 * project's principles, concerns and practices, the same for every bead. Read as the bead's words,
 * its "demo reels" and "context digests" matched the memories about demos and digests on every
 * bead of HELIX's own tracker (issue #33's real-data eval, docs/memory.md).
 */
export function withoutDigest(text: string): string {
  return text.replace(/<context-digest>[\s\S]*?<\/context-digest>/g, ' ').trim();
}

/**
 * Which of the ranked candidates (best first, with their helped + failed uses) go into the
 * prompt: the best `limit − 1` by the store's score, and for the last slot the candidate with the
 * least evidence among the rest (ties: the better score). Without that slot ranking is purely
 * greedy, and a memory whose first use happened to fail (effectiveness 0 after one try) sinks
 * below distractors that are proven useless but look a bit more relevant, and is never tried
 * again — the learning simulation (scripts/sim-learning.mjs) showed exactly that.
 */
export function chooseWithExploration(ranked: Array<{ name: string; uses: number }>, limit = INJECTION_LIMIT): string[] {
  if (ranked.length <= limit) return ranked.map((r) => r.name);
  const chosen = ranked.slice(0, limit - 1);
  let explore = ranked[limit - 1]!;
  for (const candidate of ranked.slice(limit)) if (candidate.uses < explore.uses) explore = candidate;
  return [...chosen, explore].map((r) => r.name);
}

/** The store's injection as data: its header and one entry per memory, in the store's prompt order. */
export interface InjectionEntries {
  header: string;
  entries: Array<{ name: string; text: string }>;
}

/**
 * The prompt block for the chosen names: the store's header and their entries in the store's
 * order (systemic warnings first), whole entries only, within the character budget. Returns the
 * names actually shown: only those are fed back.
 */
export function renderChosen({ header, entries }: InjectionEntries, names: string[], budget = INJECTION_CHAR_BUDGET): { block: string; names: string[] } {
  const keep = new Set(names);
  let text = header;
  const shown: string[] = [];
  for (const entry of entries) {
    if (!keep.has(entry.name) || text.length + entry.text.length + 2 > budget) continue; // + two newlines
    text += `\n${entry.text}`;
    shown.push(entry.name);
  }
  return shown.length > 0 ? { block: `${text}\n`, names: shown } : { block: '', names: [] };
}

export function failureTrigger(bead: Bead, detail: string): string {
  const files = beadFiles(bead);
  return `${bead.title}: ${detail}${files.length ? ` (files: ${files.join(', ')})` : ''}`.slice(0, 500);
}

/**
 * What the run injects for a bead: the store's gated candidates for its text and files, the
 * exploration slot, the character budget. One home for it: the port calls it before each attempt,
 * `helix memory why` to show what would be injected.
 */
export async function injectionFor(store: Pick<MemoryStore, 'injectEntries' | 'get'>, bead: Bead): Promise<{ block: string; names: string[] }> {
  const ranked = await store.injectEntries({ objective: beadObjective(bead), files: beadFiles(bead), limit: EXPLORATION_POOL });
  if (ranked.injected.length === 0) return { block: '', names: [] };
  const uses = (name: string) => {
    const memory = store.get(name);
    return memory ? memory.helped + memory.failed : 0;
  };
  const chosen = chooseWithExploration(ranked.injected.map((name) => ({ name, uses: uses(name) })));
  return renderChosen(ranked, chosen);
}

class StoreMemoryPort implements MemoryPort {
  constructor(private readonly store: MemoryStore) {}

  inject(bead: Bead): Promise<{ block: string; names: string[] }> {
    return injectionFor(this.store, bead);
  }

  async feedback(input: { bead: Bead; injected: string[]; verified: boolean; output: string; failureDetail?: string; refuted?: boolean }): Promise<MemoryCredit | undefined> {
    const trailers = parseTrailers(input.output);
    const verdict =
      input.injected.length > 0
        ? this.store.feedbackVerify({
            taskId: input.bead.id,
            verifyPassed: input.verified,
            injected: input.injected,
            utilized: trailers.utilized,
            // Fair credit: an injected memory the bead is not about is left alone (docs/memory.md).
            task: { objective: beadObjective(input.bead), files: beadFiles(input.bead) },
          })
        : undefined;
    const learned = trailers.learned.join(' ').trim();
    if (!input.verified && input.failureDetail) {
      // A LEARNED line is the failure's resolution, unless the agent called the attempt a success
      // and verification refused it: then it states the approach that failed, not a fix.
      const resolution = (!input.refuted && learned) || UNRESOLVED;
      // Two failures of one bead that differ only in what the check said, or in what the agent
      // learned ("= immediate is rejected", "= linear-backoff is rejected"), are near-duplicates by
      // cosine but different lessons: keep each (the same text still merges).
      await this.store.store(
        { type: 'failure', trigger: failureTrigger(input.bead, input.failureDetail), resolution, source: `helix-run:${input.bead.id}` },
        { mergeNearDuplicates: false },
      );
    } else if (input.verified && learned) {
      // An agent that restates the pattern it was given must not credit it twice for one success.
      await this.store.chunk({ task: input.bead.title, outcome: 'success', approach: learned, credited: verdict?.helped ?? [] });
    }
    return verdict ? { helped: verdict.helped, failed: verdict.unhelpful, leftAlone: verdict.left_alone } : undefined;
  }

  async systemic(): Promise<string[]> {
    const found = await this.store.recall('Repeated failure', { type: 'systemic', limit: 10 });
    return found.map((m) => `${m.name}: ${m.trigger}`);
  }

  close(): void {
    this.store.close();
  }
}

async function loadMemory(): Promise<MemoryModule> {
  return import('../../memory/index.js');
}

export async function openMemoryPort(root: string, env: NodeJS.ProcessEnv, say: (line: string) => void): Promise<MemoryPort | undefined> {
  try {
    const memory = await loadMemory();
    const store = memory.openMemoryStore({ dbPath: memory.resolveDbPath(root, env), env, warn: () => undefined });
    await store.health(); // fails now, not mid-run, when the file is unreadable
    return new StoreMemoryPort(store);
  } catch (error) {
    say(RUN.memoryUnavailable((error as Error).message));
    return undefined;
  }
}

/** The memory line of `helix status`: counts and embedder, or null when there is no store yet. */
export async function memoryHealth(root: string, env: NodeJS.ProcessEnv): Promise<Record<string, unknown> | null> {
  let dbPath: string | undefined;
  try {
    // The path alone first: a project without a memory store must not pay for loading SQLite
    // (`helix status --json` stays fast, bench:status).
    const { resolveDbPath } = await import('../../memory/paths.js');
    dbPath = resolveDbPath(root, env);
    if (!existsSync(dbPath)) return null;
    const memory = await loadMemory();
    const store = memory.openMemoryStore({ dbPath, env, warn: () => undefined });
    try {
      const health = await store.health();
      return { total_memories: health.total_memories, with_feedback: health.with_feedback, effectiveness: health.effectiveness, embedder: health.embedder, status: health.status };
    } finally {
      store.close();
    }
  } catch (error) {
    return { unavailable: (error as Error).message, db: dbPath ?? null };
  }
}
