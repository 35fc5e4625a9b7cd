// A real memory store in a temp folder, with the lexical embedder pinned and a clock the test moves.
import { join } from 'node:path';
import { openMemoryStore, lexicalEmbedder, type Embedder } from '../../src/memory/index.js';
import { tempDir } from '../helpers/cli.js';

export const DAY = 86_400_000;

export function testStore(options: { now?: string; embedder?: Embedder } = {}) {
  const dir = tempDir('helix-memory-');
  const dbPath = join(dir, '.helix', 'helix.db');
  let at = new Date(options.now ?? '2026-03-01T12:00:00.000Z');
  const store = openMemoryStore({
    dbPath,
    env: {},
    now: () => new Date(at),
    embedder: options.embedder ?? lexicalEmbedder,
    warn: () => undefined,
  });
  const clock = {
    set: (iso: string) => (at = new Date(iso)),
    advanceDays: (days: number) => (at = new Date(at.getTime() + days * DAY)),
    now: () => new Date(at),
  };
  return { store, dir, dbPath, clock };
}

/** Stores and returns the name, failing the test when the store did not add it. */
export async function added(
  store: ReturnType<typeof testStore>['store'],
  trigger: string,
  resolution: string,
  extra: { type?: string; tags?: string[]; source?: string } = {},
): Promise<string> {
  const result = await store.store({ trigger, resolution, ...extra });
  if (result.status !== 'added') throw new Error(`expected added, got ${JSON.stringify(result)}`);
  return result.name;
}
