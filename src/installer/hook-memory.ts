// Opens the memory store for the hooks, lazily: the memory module (better-sqlite3, embedders) is
// imported only when a hook actually needs it, and a missing or broken module or database is an
// ordinary error the hooks turn into "no memories". This file is the one place that knows the
// memory module's API (src/memory/index.ts: openMemoryStore); the hooks see only HookMemory.
import type { HookMemory, HookRecalledMemory } from './hooks.js';

export async function openHookMemory(dbPath: string, _root: string, env: NodeJS.ProcessEnv = process.env): Promise<HookMemory> {
  let mod: typeof import('../memory/index.js');
  try {
    mod = await import('../memory/index.js');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ERR_MODULE_NOT_FOUND' ? 'not installed' : (error as Error).message.split('\n')[0];
    throw new Error(`memory module not available: ${why}`);
  }
  // The hooks pin the lexical embedder: it starts at once, where a neural model's load alone would
  // exceed the edit hook's 250 ms budget. Warnings stay off the hook's output.
  const store = mod.openMemoryStore({ dbPath, env, embedder: mod.lexicalEmbedder, warn: () => undefined });
  const asHookMemory = (m: import('../memory/index.js').Memory): HookRecalledMemory => ({
    name: m.name,
    type: m.type,
    trigger: m.trigger,
    resolution: m.resolution,
    effectiveness: m.helped + m.failed > 0 ? m.effectiveness : null,
    ...(m.repeats !== undefined ? { seen: mod.SYSTEMIC_PRIOR_FAILURES + 1 + m.repeats } : {}),
  });
  return {
    async recallForFile(file, limit, sessionId) {
      // The dual query of memory.md: the file as the query (its name's words) plus memories naming
      // it. No "edit" word: it is in every hook query and matched any memory saying "edit".
      // A larger pool, so what this session was already shown can make room for the rest.
      const { injected } = await store.inject({ objective: file, files: [file], limit: limit * 3 });
      const memories = injected.flatMap((name) => store.get(name) ?? []);
      // Systemic warnings that govern the file come first, then the rest by the store's rank.
      const ordered = [...memories.filter((m) => m.type === 'systemic'), ...memories.filter((m) => m.type !== 'systemic')];
      // Once per session: only what this call records as shown is sent (firstShown claims it in one
      // transaction), so a second hook of the same edit running at the same time sends the rest.
      if (!sessionId) return ordered.slice(0, limit).map(asHookMemory);
      const claimed = new Set(store.firstShown(sessionId, ordered.map((m) => m.name), limit));
      return ordered.filter((m) => claimed.has(m.name)).map(asHookMemory);
    },
    systemicWarnings: (limit) => store.systemicWarnings(limit).map(asHookMemory),
    recordSessionEnd: (end) => store.recordSessionEnd(end),
    health: () => store.health(),
    close: () => store.close(),
  };
}
