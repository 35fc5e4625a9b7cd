// Opens the memory store for the hooks, lazily: the memory module (better-sqlite3, embedders) is
// imported only when a hook actually needs it, and a missing or broken module is an ordinary
// error the hooks turn into "no memories". This file is the one place that knows the memory
// module's API; everything else talks to the HookMemory interface (hooks.ts).
import type { HookMemory } from './hooks.js';

// A variable specifier keeps TypeScript from resolving the module at build time, so this layer
// builds (and degrades) even where src/memory is absent.
const MEMORY_MODULE = '../memory/index.js';

interface MemoryModule {
  openHookMemory?: (dbPath: string, root: string) => Promise<HookMemory> | HookMemory;
}

export async function openHookMemory(dbPath: string, root: string): Promise<HookMemory> {
  let mod: MemoryModule;
  try {
    mod = (await import(MEMORY_MODULE)) as MemoryModule;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ERR_MODULE_NOT_FOUND' ? 'not installed' : (error as Error).message.split('\n')[0];
    throw new Error(`memory module not available: ${why}`);
  }
  if (typeof mod.openHookMemory !== 'function') throw new Error('memory module has no hook interface');
  return await mod.openHookMemory(dbPath, root);
}
