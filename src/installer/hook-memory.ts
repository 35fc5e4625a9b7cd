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
  return {
    async recallForFile(file, limit) {
      // The dual query of memory.md: the file as the query (its name's words) plus memories naming
      // it. No "edit" word: it is in every hook query and matched any memory saying "edit".
      const { injected } = await store.inject({ objective: file, files: [file], limit });
      return injected.flatMap((name): HookRecalledMemory[] => {
        const m = store.get(name);
        if (!m) return [];
        const rated = m.helped + m.failed > 0;
        return [{ name: m.name, type: m.type, trigger: m.trigger, resolution: m.resolution, effectiveness: rated ? m.effectiveness : null }];
      });
    },
    health: () => store.health(),
    close: () => store.close(),
  };
}
