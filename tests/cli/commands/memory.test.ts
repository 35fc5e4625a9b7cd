// Wiring of `helix memory <sub>` through the real launcher: flags, JSON on stdout, exit codes.
// Behaviour itself is tested against the library in the other files.
import { describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { helix, tempDir, tempGitRepo } from '../../helpers/cli.js';
import { resolveDbPath } from '../../../src/memory/index.js';

const ENV = { HELIX_EMBEDDER: 'lexical', HELIX_NOW: '2026-03-01T12:00:00Z' };

function memoryCli(cwd: string) {
  return (...args: string[]) => {
    const r = helix(['memory', ...args], { cwd, env: ENV });
    return { ...r, json: r.stdout ? JSON.parse(r.stdout) : undefined };
  };
}

describe('helix memory (CLI)', () => {
  it('show of a forgotten memory says it was forgotten and how to bring it back; a name never stored stays not found', () => {
    const m = memoryCli(tempDir('helix-memory-forgot-'));
    const name = m('store', '--trigger', 'Docker build cannot find dist/ in the context', '--resolution', 'Use a multi-stage build').json.name as string;
    expect(m('forget', name).status).toBe(0);
    const shown = m('show', name);
    expect(shown.status).toBe(3);
    expect(shown.stderr).toBe(`helix memory: ${name} was forgotten (archived 2026-03-01T12:00:00.000Z); \`helix memory restore ${name}\` brings it back\n`);
    expect(m('show', 'never-stored').stderr).toBe('helix memory: not found: never-stored\n');
  });

  it('runs every contract sub-command and prints one JSON document each', () => {
    const cwd = tempDir('helix-memory-cli-');
    const m = memoryCli(cwd);
    const store = m('store', '--trigger', 'Docker build cannot find dist/ in the context', '--resolution', 'Use a multi-stage build', '--tags', '["docker"]');
    expect(store).toMatchObject({ status: 0, json: { status: 'added', name: 'docker-build-cannot-find-dist-in-the-context', reason: '' } });
    const name = store.json.name as string;
    const pattern = m('store', '--trigger', 'Multi-stage docker builds for dist output', '--resolution', 'Build inside the image', '--type', 'pattern').json.name as string;

    expect(m('recall', 'docker dist', '--limit', '1', '--type', 'failure').json.map((x: { name: string }) => x.name)).toEqual([name]);
    expect(m('get', name).json).toMatchObject({ name, type: 'failure', tags: ['docker'], created_at: '2026-03-01T12:00:00.000Z' });
    expect(m('edge', '--from', pattern, '--to', name, '--rel', 'causes', '--weight', '2').json).toEqual({ from: pattern, to: name, rel_type: 'causes', weight: 2 });
    expect(m('edges', '--name', name, '--rel', 'causes').json).toHaveLength(1);
    expect(m('feedback', '--names', JSON.stringify([name]), '--delta', '1').json).toEqual({ updated: 1, delta: 1, names: [name] });
    expect(m('feedback-verify', '--task-id', 'b-1', '--verify-passed', 'true', '--injected', JSON.stringify([name, pattern]), '--utilized', JSON.stringify([name])).json).toEqual({
      credited: 1,
      task_id: 'b-1',
      verify_passed: true,
      injected_count: 2,
      helped: [name],
      unhelpful: [pattern],
      left_alone: [],
    });
    expect(m('decay').json).toEqual({ decayed: 0, threshold_days: 30, min_uses: 2 });
    expect(m('prune').json).toEqual({ pruned: 0, remaining: 2, removed: [] });
    expect(m('consolidate').json).toEqual({ merged: 0, remaining: 2, pairs: [] });
    expect(m('health').json).toMatchObject({ status: 'HEALTHY', total_memories: 2, embedder: 'lexical-v1-384' });
    expect(m('similar-recent', 'Docker build cannot find dist in the context').json.map((x: { name: string }) => x.name)).toEqual([name]);
    expect(Array.isArray(m('suggest-edges', name, '--limit', '3').json)).toBe(true);
    const injected = m('inject', '--objective', 'the docker build cannot find dist in the build context', '--files', '["dist/index.js"]', '--limit', '2').json;
    expect(injected.injected).toContain(name);
    expect(m('batch-inject', '--tasks', '["fix the docker build", {"objective": "docker build again"}]').json.total_unique).toBe(2);
    expect(m('strategic-recall', 'docker build').json.summary).toMatchObject({ total_in_system: 2 });
    expect(m('chunk', '--task', 'Speed up the docker build', '--outcome', 'success', '--approach', 'Cache layers').json).toMatchObject({ status: 'added' });
    expect(m('connected', name, '--hops', '1').json.map((x: { name: string }) => x.name)).toContain(pattern);
    expect(m('decay-edges', '--days', '60').json).toEqual({ edges_decayed: 0, threshold_days: 60 });
  });

  it('a rejected store is a handled result: exit 0 with the reason', () => {
    const m = memoryCli(tempDir('helix-memory-cli-'));
    expect(m('store', '--trigger', 'short', '--resolution', 'x')).toMatchObject({ status: 0, json: { status: 'rejected', reason: 'trigger too short' } });
  });

  it('get of a missing name prints {"error":"not found"} and exits 3', () => {
    const r = memoryCli(tempDir('helix-memory-cli-'))('get', 'no-such-memory');
    expect(r.status).toBe(3);
    expect(r.json).toEqual({ error: 'not found' });
    expect(r.stderr).toBe('helix memory: not found: no-such-memory\n');
  });

  it.each([
    [['feedback', '--names', 'not-json', '--delta', '1'], 7, 'helix memory: --names must be a JSON list of strings'],
    [['recall', 'x', '--limit', 'zero'], 7, 'helix memory: --limit must be a whole number from 1 to 100000, got "zero"'],
    [['recall', 'x', '--limit', '9223372036854775808'], 7, 'helix memory: --limit must be a whole number from 1 to 100000, got "9223372036854775808"'],
    [['feedback-verify', '--task-id', 't', '--verify-passed', 'maybe', '--injected', '[]'], 7, 'helix memory: --verify-passed must be true or false (got maybe)'],
    [['edge', '--from', 'a', '--to', 'b', '--rel', 'likes'], 7, 'helix memory: --rel must be one of solves, co_occurs, similar, causes'],
    [['recall', 'x', '--bogus'], 1, 'unknown option for recall: --bogus'],
  ])('bad arguments %j exit %i with one message on stderr and no output', (args, code, message) => {
    const r = memoryCli(tempDir('helix-memory-cli-'))(...args);
    expect(r.status).toBe(code);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim()).toBe(message);
  });

  it('an unreadable database exits 10 (storeUnavailable)', () => {
    const cwd = tempDir('helix-memory-cli-');
    const bad = join(cwd, 'not-a-db.db');
    writeFileSync(bad, 'this is not an SQLite file, just text that is long enough to have a header............');
    const r = helix(['memory', 'health', '--db', bad], { cwd, env: ENV });
    expect(r.status).toBe(10);
    expect(r.stderr).toMatch(/^helix memory: the memory database .*not-a-db\.db is damaged \(file is not a database, SQLITE_NOTADB\)/);
  });

  it('uses HELIX_DB_PATH, and --db over it', () => {
    const cwd = tempDir('helix-memory-cli-');
    const viaEnv = join(cwd, 'env.db');
    const viaFlag = join(cwd, 'flag.db');
    const env = { ...ENV, HELIX_DB_PATH: viaEnv };
    helix(['memory', 'store', '--trigger', 'Stored via the environment', '--resolution', 'ok'], { cwd, env });
    helix(['memory', 'store', '--trigger', 'Stored via the flag here', '--resolution', 'ok', '--db', viaFlag], { cwd, env });
    expect(JSON.parse(helix(['memory', 'health', '--db', viaEnv], { cwd, env: ENV }).stdout).total_memories).toBe(1);
    expect(JSON.parse(helix(['memory', 'get', 'stored-via-the-flag-here', '--db', viaFlag], { cwd, env: ENV }).stdout).name).toBe('stored-via-the-flag-here');
  });
});

describe('helix memory why <bead>', () => {
  /** A git project with a tracker bead about double assignment and a store with one memory about it, one look-alike. */
  function project() {
    const cwd = tempGitRepo();
    const h = (...args: string[]) => helix(args, { cwd, env: ENV });
    h('tracker', 'init');
    const bead = h('tracker', 'create', 'Fix double assignment of deliveries', '--description', "The same delivery showed up in two drivers' apps since dispatch runs on three replicas.").stdout.trim();
    const right = JSON.parse(h('memory', 'store', '--trigger', 'Two drivers get assigned the same delivery when dispatch runs on two replicas', '--resolution', 'Claim the row with SELECT ... FOR UPDATE SKIP LOCKED').stdout).name as string;
    const lookAlike = JSON.parse(h('memory', 'store', '--trigger', 'Drivers are logged out of the app every hour', '--resolution', 'Serialise the token refresh').stdout).name as string;
    return { h, bead, right, lookAlike };
  }

  it('prints what would be injected and why it passed, and what was left out just under the line', () => {
    const { h, bead, right, lookAlike } = project();
    const out = h('memory', 'why', bead);
    expect(out).toMatchObject({ status: 0, stderr: '' });
    const [injected, below] = out.stdout.split('left out, just under the line:');
    expect(injected).toContain(`${bead}: Fix double assignment of deliveries`);
    expect(injected).toMatch(new RegExp(`would be injected \\(1\\):\\n  ${right} \\[failure\\] score [0-9.]+, match [0-9.]+ \\(≥ 0\\.40\\): the task holds \\d+ words of its trigger: .*replicas`));
    expect(below).toMatch(new RegExp(`  ${lookAlike} \\[failure\\] score [0-9.]+, match 0\\.[0-3][0-9]* < 0\\.40: the task holds \\d+ words of its trigger: drivers`));
    const json = JSON.parse(h('memory', 'why', bead, '--json').stdout);
    expect(json).toMatchObject({ bead, gate: 0.4, injected: [{ name: right, reason: 'match', side: 'trigger' }], passed_not_injected: [], below: [{ name: lookAlike }] });
    expect(json.injected[0].words).toEqual(expect.arrayContaining(['drivers', 'delivery', 'replicas']));
  });

  it('an unknown bead is one line on stderr and exit 3, and nothing is written', () => {
    const { h } = project();
    const out = h('memory', 'why', 'tmp-nothere');
    expect(out.status).toBe(3);
    expect(out.stdout).toBe('');
    expect(out.stderr).toMatch(/^helix memory why: no bead tmp-nothere in .*\.ddx\n$/);
  });
});

describe('resolveDbPath', () => {
  it('finds the nearest ancestor holding .helix/ or .ddx/, else the current folder', () => {
    const root = tempDir('helix-memory-root-');
    mkdirSync(join(root, '.ddx'));
    mkdirSync(join(root, 'a', 'b'), { recursive: true });
    expect(resolveDbPath(join(root, 'a', 'b'), {})).toBe(join(root, '.helix', 'helix.db'));
    const bare = tempDir('helix-memory-bare-');
    expect(resolveDbPath(bare, {})).toBe(join(bare, '.helix', 'helix.db'));
    expect(resolveDbPath(bare, { HELIX_DB_PATH: 'x/y.db' })).toBe(join(bare, 'x', 'y.db'));
  });
});
