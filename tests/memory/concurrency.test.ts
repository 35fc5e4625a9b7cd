import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { REPO_ROOT, tempDir } from '../helpers/cli.js';

const CHILD = join(REPO_ROOT, 'tests/memory/fixtures/store-many.mjs');
const DIST_INDEX = join(REPO_ROOT, 'dist/memory/index.js');

function writer(dbPath: string, type: string, count: number, dir: string) {
  const ready = join(dir, `${type}.ready`);
  const child = spawn(process.execPath, [CHILD, dbPath, type, String(count), ready, join(dir, 'go'), DIST_INDEX], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const done = new Promise<{ status: string; name: string }[]>((resolve, reject) =>
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`writer exited ${code}: ${err}`)))),
  );
  return { ready, done };
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setImmediate(r));
}

describe('two processes storing into one database at once', () => {
  it('both succeed and every name is unique', async () => {
    const dir = tempDir('helix-memory-concurrency-');
    const dbPath = join(dir, 'helix.db');
    const count = 20;
    const a = writer(dbPath, 'failure', count, dir);
    const b = writer(dbPath, 'pattern', count, dir);
    // Release both only once both have opened the store, so their stores overlap.
    await until(() => existsSync(a.ready) && existsSync(b.ready));
    writeFileSync(join(dir, 'go'), '');
    const [ra, rb] = await Promise.all([a.done, b.done]);
    expect(ra.every((r) => r.status === 'added')).toBe(true);
    expect(rb.every((r) => r.status === 'added')).toBe(true);
    const names = [...ra, ...rb].map((r) => r.name);
    expect(new Set(names).size).toBe(2 * count);
    const db = new Database(dbPath, { readonly: true });
    expect(db.prepare('SELECT COUNT(*) AS n FROM memories').get()).toEqual({ n: 2 * count });
    // Same trigger, two types: one of each pair carries the clash suffix.
    expect(db.prepare("SELECT COUNT(*) AS n FROM memories WHERE name LIKE '%-2'").get()).toEqual({ n: count });
    db.close();
  });
});
