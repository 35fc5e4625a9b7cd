// A full disk during the bead write and during the memory write. Simulated with RLIMIT_FSIZE
// (`ulimit -f` in the shell that starts helix): writing past the limit fails with EFBIG, as a full
// disk fails with ENOSPC — a real failed write(2), with no root, mount or tmpfs needed, so it runs
// the same in CI. (Node ignores SIGXFSZ, so helix sees the error rather than dying of the signal.)
// Each asserts: the previous file intact (byte for byte; SQLite: integrity_check ok and the same
// rows), no temp file left, no process left, no claim left, one clear line and a distinct exit code.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { openMemoryStore } from '../../src/memory/index.js';
import { HELIX_BIN, cleanEnv } from '../helpers/cli.js';
import { Project, RUN_COMPLETE } from '../run/stub-project.js';
import { bead } from '../helpers/bead.js';
import { beadState, generic, lineMatching, report } from './fault-checks.js';

const TARGET = 'hx-000000aa';
const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu'.split(' ');
/** Small enough that a memory write fails, big enough for the run's own small files. */
const MEMORY_LIMIT_KB = 32;

/** helix under a file-size limit of `kb` KB. */
function limited(p: Project, kb: number, args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync('bash', ['-c', `ulimit -f ${kb}; exec "${process.execPath}" "${HELIX_BIN}" "$@"`, 'helix', ...args], {
    cwd: p.root,
    env: { ...cleanEnv(), ...p.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** A bead file bigger than the limit: every rewrite of it fails. */
function bigBeads(): ReturnType<typeof bead>[] {
  return [bead({ id: TARGET, title: 'Target' }), ...Array.from({ length: 60 }, (_, i) => bead({ id: `hx-1${i.toString(16).padStart(7, '0')}`, title: `filler ${i}`, status: 'closed', description: 'x'.repeat(800) }))];
}

describe('a full disk', () => {
  it('during the bead write (the claim): helix run stops with exit 12 and one line; the file is as it was', () => {
    const p = new Project({ beads: bigBeads() });
    const before = readFileSync(p.beadsFile, 'utf8');
    expect(statSync(p.beadsFile).size).toBeGreaterThan(40 * 1024);
    const r = limited(p, 40, ['run', '--summary']);
    expect(r.status).toBe(EXIT.writeFailed);
    expect(r.status).toBe(12);
    const line = lineMatching(r.stderr, /could not write/);
    expect(line).toMatch(/^bead: could not write .*beads\.jsonl: EFBIG: file too large, write; the previous file is unchanged$/);
    expect(r.stderr).toMatch(RUN_COMPLETE);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(readFileSync(p.beadsFile, 'utf8')).toBe(before);
    expect(readdirSync(join(p.root, '.ddx')).filter((f) => f.includes('.tmp'))).toEqual([]);
    expect(existsSync(join(p.root, '.ddx', 'helix.pid'))).toBe(false);
    expect(p.buildCalls()).toEqual([]); // no agent was started for a bead it could not claim
    report({ group: 'disk', scenario: 'full disk during the bead write (helix run claims)', exit: String(r.status), bead: beadState(p.bead(TARGET)), processes: '0', recovery: '—', line: generic(line, p.root) });
  });

  it('during the bead write of a tracker command: exit 12, nothing changed', () => {
    const p = new Project({ beads: bigBeads() });
    const before = readFileSync(p.beadsFile, 'utf8');
    const r = limited(p, 40, ['tracker', 'create', 'One more']);
    expect(r.status).toBe(12);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
    expect(readFileSync(p.beadsFile, 'utf8')).toBe(before);
    report({ group: 'disk', scenario: 'full disk during helix tracker create', exit: String(r.status), bead: 'unchanged', processes: '0', recovery: '—', line: generic(r.stderr.trim(), p.root) });
  });

  describe('during the memory write', () => {
    /** A memory store bigger than the limit (its writes fail), beside a small bead file (its writes work). */
    async function withMemories(p: Project): Promise<{ db: string; rows: number }> {
      const db = join(p.root, '.helix', 'helix.db');
      mkdirSync(join(p.root, '.helix'), { recursive: true });
      const store = openMemoryStore({ dbPath: db, env: { HELIX_EMBEDDER: 'lexical' } });
      // distinct words, so none merges into another: about 300 KB of store
      const word = (i: number, k: number) => `${WORDS[(i * 7 + k * 3) % WORDS.length]}${i * 13 + k}`;
      for (let i = 0; i < 40; i++) {
        const added = await store.store({ type: 'failure', trigger: `${word(i, 1)} ${word(i, 2)} ${word(i, 3)} breaks when ${word(i, 4)} meets ${word(i, 5)}`, resolution: `pin ${word(i, 6)} and ${word(i, 7)}` });
        expect(added.status).toBe('added');
      }
      store.close();
      return { db, rows: count(db) };
    }
    const count = (db: string) => {
      const d = new Database(db, { readonly: true });
      try {
        expect(d.pragma('integrity_check', { simple: true })).toBe('ok');
        return (d.prepare('SELECT count(*) AS n FROM memories').get() as { n: number }).n;
      } finally {
        d.close();
      }
    };

    it('helix memory store: exit 12, one line, the store as it was', async () => {
      const p = new Project();
      const { db, rows } = await withMemories(p);
      expect(statSync(db).size).toBeGreaterThan(MEMORY_LIMIT_KB * 1024);
      const r = limited(p, MEMORY_LIMIT_KB, ['memory', 'store', '--trigger', 'a new failure nobody has seen before in this repo', '--resolution', 'a new fix'], { HELIX_EMBEDDER: 'lexical' });
      expect(r.status).toBe(12);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^helix: write failed: .*\(SQLITE_(IOERR|FULL)\w*\); nothing was changed\n$/);
      expect(count(db)).toBe(rows);
      report({ group: 'disk', scenario: 'full disk during helix memory store', exit: String(r.status), bead: '—', processes: '0', recovery: '—', line: r.stderr.trim() });
    });

    it('a run whose memory write fails goes on: the failed attempts are counted, the bead released, the store as it was', async () => {
      // a failed attempt makes helix store a failure memory: the write that fails here
      const failed = { when: 'execute-bead', result: { status: 'execution_failed', outcome: 'error', exit_code: 1, detail: 'tests fail' }, exit: 1 };
      const p = new Project({ beads: [bead({ id: TARGET, title: 'Target' })], script: { responses: [failed, failed, failed, failed] }, env: { HELIX_MEMORY: '1', HELIX_EMBEDDER: 'lexical' } });
      const { db, rows } = await withMemories(p);
      const r = limited(p, MEMORY_LIMIT_KB, ['run', '--summary']);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).toMatch(RUN_COMPLETE);
      expect(RUN_COMPLETE.exec(r.stderr)?.slice(1, 4)).toEqual(['4', '0', '1']);
      const after = p.bead(TARGET);
      expect(after.status).toBe('open');
      for (const key of ['claimed-pid', 'claim-token', 'owner']) expect(after).not.toHaveProperty(key);
      const log = readFileSync(String(p.runState().log), 'utf8');
      const line = lineMatching(log, /memory feedback skipped/);
      expect(line).toMatch(/^helix: memory feedback skipped: disk I\/O error$/);
      expect(count(db)).toBe(rows);
      report({ group: 'disk', scenario: 'full disk during the memory writes of helix run', exit: String(r.status), bead: beadState(after), processes: '0', recovery: '—', line: `${generic(line, p.root)} (in the session log)` });
    });
  });
});
