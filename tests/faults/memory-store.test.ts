// A damaged memory store (a corrupt page inside helix.db) and one a newer helix made (a schema
// version this helix does not know). Every memory entry point answers damage with exit 10 and one
// line — the hooks with "no memories" and exit 0, since they must never block the agent — and a
// newer store is refused with exit 17 and the helix version it needs, the file left as it was.
import { copyFileSync, mkdirSync, openSync, readFileSync, closeSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { lexicalEmbedder, openMemoryStore } from '../../src/memory/index.js';
import { SCHEMA_VERSION } from '../../src/memory/migrations.js';
import { helix, tempDir } from '../helpers/cli.js';
import { generic, report } from './fault-checks.js';

const ENV = { HELIX_EMBEDDER: 'lexical' };
let healthy: string;

beforeAll(async () => {
  healthy = join(tempDir('helix-memory-damage-'), 'healthy.db');
  const store = openMemoryStore({ dbPath: healthy, embedder: lexicalEmbedder, warn: () => undefined });
  for (let i = 0; i < 40; i++) {
    await store.store({ trigger: `the build of module ${i} fails when ${'the cache is stale '.repeat(20)}`, resolution: `clear the cache of module ${i} and rebuild` });
  }
  store.close();
});

/** A copy of the healthy store with the first b-tree page of `memories` overwritten. */
function damagedCopy(): { cwd: string; db: string } {
  const cwd = tempDir('helix-memory-damage-');
  mkdirSync(join(cwd, '.helix'));
  const db = join(cwd, '.helix', 'helix.db');
  copyFileSync(healthy, db);
  const probe = new Database(db, { readonly: true });
  const pageSize = probe.pragma('page_size', { simple: true }) as number;
  const page = (probe.prepare("SELECT pageno FROM dbstat WHERE name = 'memories' ORDER BY pageno LIMIT 1").get() as { pageno: number }).pageno;
  probe.close();
  const fd = openSync(db, 'r+');
  writeSync(fd, Buffer.alloc(pageSize, 0xff), 0, pageSize, (page - 1) * pageSize);
  closeSync(fd);
  return { cwd, db };
}

const lines = (text: string) => text.split('\n').filter(Boolean);

describe('a damaged memory store', () => {
  it('recall, store, health and the other memory commands exit 10 with one line; the hooks still answer and exit 0', () => {
    const { cwd, db } = damagedCopy();
    const expected = `helix memory: the memory database ${db} is damaged (database disk image is malformed, SQLITE_CORRUPT): move it aside to start a new one, or restore a copy`;
    const commands = [
      ['memory', 'recall', 'build module'],
      ['memory', 'store', '--trigger', 'the deploy of service nine times out', '--resolution', 'raise the deploy timeout of service nine'],
      ['memory', 'health'],
      ['memory', 'inject', '--objective', 'build module 3'],
      ['memory', 'decay'],
      ['memory', 'prune'],
    ];
    for (const args of commands) {
      const r = helix(args, { cwd, env: ENV });
      expect([args.slice(0, 2).join(' '), r.status, lines(r.stderr)]).toEqual([args.slice(0, 2).join(' '), 10, [expected]]);
    }
    report({ group: 'memory', scenario: `a corrupt page in helix.db: ${commands.map((c) => c.slice(0, 2).join(' ')).join(', ')}`, exit: '10 from each', bead: '—', processes: '0', recovery: '—', line: generic(expected, cwd) });

    const hooks = [
      helix(['hook', 'session-start'], { cwd, env: ENV, input: '{}' }),
      helix(['hook', 'pre-tool-use'], { cwd, env: ENV, input: JSON.stringify({ tool_name: 'Edit', tool_input: { file_path: join(cwd, 'src', 'module3.ts') } }) }),
    ];
    expect(hooks.map((h) => h.status)).toEqual([0, 0]);
    expect(hooks[0]!.stdout).toContain('memory unavailable (database disk image is malformed)');
    expect(hooks[1]!.stdout).toBe('');
    report({ group: 'memory', scenario: 'the same store: hook session-start, hook pre-tool-use', exit: '0 / 0', bead: '—', processes: '0', recovery: '—', line: '(session-start) memory unavailable (database disk image is malformed); edits go on without injected memories' });
  });

  it('a store whose schema is newer than this helix knows is refused with exit 17, naming the helix it needs, and left as it was', () => {
    const cwd = tempDir('helix-memory-newer-');
    const db = join(cwd, 'newer.db');
    copyFileSync(healthy, db);
    const newer = new Database(db);
    newer.prepare('INSERT INTO schema_version (version, applied_at, helix) VALUES (?, ?, ?)').run(SCHEMA_VERSION + 1, '2027-01-01T00:00:00.000Z', '9.1.0');
    newer.close();
    const before = readFileSync(db);
    const version = (JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string }).version;
    for (const args of [['memory', 'recall', 'build'], ['memory', 'store', '--trigger', 'a new failure of module nine', '--resolution', 'rebuild module nine']]) {
      const r = helix([...args, '--db', db], { cwd, env: ENV });
      expect(r.status).toBe(17);
      expect(lines(r.stderr)).toEqual([`helix memory: ${db} has schema version ${SCHEMA_VERSION + 1}, newer than this helix ${version} reads (up to ${SCHEMA_VERSION}): it needs helix 9.1.0 or later; nothing was changed`]);
    }
    expect(readFileSync(db).equals(before)).toBe(true);
    report({ group: 'memory', scenario: `helix.db at schema version ${SCHEMA_VERSION + 1}, made by helix 9.1.0: recall, store`, exit: '17 / 17', bead: '—', processes: '0', recovery: '—', line: generic(`helix memory: ${db} has schema version ${SCHEMA_VERSION + 1}, newer than this helix ${version} reads (up to ${SCHEMA_VERSION}): it needs helix 9.1.0 or later; nothing was changed`, cwd) });
  });
});
