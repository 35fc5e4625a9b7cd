// bin/helix serves plain `tracker ready|blocked`, `status` and `next` without commander
// (src/cli/plain.ts); they must print exactly what the full CLI prints for the same question,
// warnings and exit codes included.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cleanEnv, HELIX_BIN, helix, tempGitRepo } from '../helpers/cli.js';

function projectWithBeads(): string {
  const root = tempGitRepo();
  mkdirSync(join(root, '.ddx'));
  const stamp = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, '0')}Z`;
  const beads = [
    { id: 'hx-00000001', title: 'done', status: 'closed', priority: 2, issue_type: 'task', created_at: stamp(1), updated_at: stamp(1) },
    { id: 'hx-00000002', title: 'ready after done', status: 'open', priority: 1, issue_type: 'task', created_at: stamp(2), updated_at: stamp(2), dependencies: [{ issue_id: 'hx-00000002', depends_on_id: 'hx-00000001', type: 'blocks' }] },
    { id: 'hx-00000003', title: 'blocked', status: 'open', priority: 0, issue_type: 'task', created_at: stamp(3), updated_at: stamp(3), dependencies: [{ issue_id: 'hx-00000003', depends_on_id: 'hx-00000002', type: 'blocks' }] },
    { id: 'hx-00000004', title: 'not for execution', status: 'open', priority: 0, issue_type: 'task', created_at: stamp(4), updated_at: stamp(4), 'execution-eligible': false },
  ];
  writeFileSync(join(root, '.ddx', 'beads.jsonl'), `${beads.map((b) => JSON.stringify(b)).join('\n')}\nnot json\n`);
  return root;
}

describe('tracker read fast path', () => {
  const cwd = projectWithBeads();

  it.each([
    [['ready', '--json']],
    [['ready', '--execution', '--json']],
    [['ready']],
    [['blocked', '--json']],
    [['blocked']],
  ])('tracker %j prints what the full CLI prints, warnings included', (args) => {
    const fast = helix(['tracker', ...args], { cwd });
    // `--agent codex` is not a fast-path flag, so this call goes through commander
    const full = helix(['tracker', ...args, '--agent', 'codex'], { cwd });
    expect(fast.status).toBe(0);
    expect(fast.stdout).toBe(full.stdout);
    expect(fast.stderr).toBe(full.stderr);
    expect(fast.stderr).toContain('malformed line(s) 5');
  });

  it('ready --execution leaves out the ineligible bead that plain ready lists', () => {
    const ids = (args: string[]) => (JSON.parse(helix(['tracker', ...args, '--json'], { cwd }).stdout) as Array<{ id: string }>).map((b) => b.id);
    expect(ids(['ready'])).toEqual(['hx-00000004', 'hx-00000002']);
    expect(ids(['ready', '--execution'])).toEqual(['hx-00000002']);
  });

  it.each([[['tracker', 'ready']], [['tracker', 'blocked', '--json']], [['status', '--json']], [['next']]])(
    '%j is refused with exit 14 when DDx keeps the beads in another backend, on both paths',
    (args) => {
      const env = { DDX_BEAD_BACKEND: 'axon' };
      for (const r of [helix(args, { cwd, env }), helix([...args, '--agent', 'codex'], { cwd, env })]) {
        expect(r.status).toBe(14);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(/^helix: DDx keeps this project's beads in the axon backend \(DDX_BEAD_BACKEND\)[^\n]*\n$/);
      }
    },
  );

  it('an unknown flag still gets the contract error from the full CLI', () => {
    const r = helix(['tracker', 'ready', '--bogus'], { cwd });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('unknown option for ready: --bogus');
  });

  it('a reader that closes the pipe early ends helix with status 0 and no stack trace', () => {
    const r = spawnSync('bash', ['-c', `set -o pipefail; node ${JSON.stringify(HELIX_BIN)} tracker ready | head -c 1`], { cwd, encoding: 'utf8' });
    expect(r.stderr).not.toContain('EPIPE');
    expect(r.status).toBe(0);
  });

  describe('output larger than a pipe buffer', () => {
    // ~0.6 MB of ready beads with non-ASCII text: the fast path writes to fd 1 itself.
    const big = tempGitRepo();
    mkdirSync(join(big, '.ddx'));
    const lines = Array.from({ length: 2500 }, (_, i) =>
      JSON.stringify({ id: `hx-${String(i).padStart(8, '0')}`, title: `Bead ${i} — ünïcödé ✓`, status: 'open', priority: i % 5, created_at: '2026-01-01T00:00:00Z', description: 'x'.repeat(150) }),
    );
    writeFileSync(join(big, '.ddx', 'beads.jsonl'), `${lines.join('\n')}\n`);
    const expected = helix(['tracker', 'ready', '--json', '--agent', 'codex'], { cwd: big }).stdout;

    it('arrives whole and identical to the full CLI output', () => {
      const fast = helix(['tracker', 'ready', '--json'], { cwd: big });
      expect(fast.status).toBe(0);
      expect(fast.stdout).toBe(expected);
      expect((JSON.parse(fast.stdout) as unknown[]).length).toBe(2500);
    });

    it('arrives whole through a non-blocking stdout and a slow reader', () => {
      // process.stdout on a pipe makes the pipe non-blocking (a parent may hand such a pipe on);
      // running bin/helix in that process, with a reader taking 64 bytes at a time, makes the fast
      // path's writes to fd 1 fail with EAGAIN again and again. None of the output may be lost.
      const script = `await new Promise((done) => process.stdout.write('', done)); process.argv = [process.argv[0], ${JSON.stringify(HELIX_BIN)}, 'tracker', 'ready', '--json']; await import(${JSON.stringify(pathToFileURL(HELIX_BIN).href)});`;
      const r = spawnSync('bash', ['-c', 'set -o pipefail; node --input-type=module -e "$0" | dd bs=64 status=none', script], { cwd: big, encoding: 'utf8', env: cleanEnv(), maxBuffer: 1 << 26 });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(expected);
    });

    it('a reader that stops early ends helix with status 0 and nothing on stderr', () => {
      const r = spawnSync('bash', ['-c', `set -o pipefail; node ${JSON.stringify(HELIX_BIN)} tracker ready --json | head -c 100 >/dev/null`], { cwd: big, encoding: 'utf8', env: cleanEnv() });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
    });
  });
});

describe('plain status and next', () => {
  const cwd = projectWithBeads();

  it.each([[['status']], [['status', '--json']], [['status', '--json', '-q']], [['next']], [['next', '--summary']]])(
    '%j prints what the full CLI prints, warnings included',
    (args) => {
      const plain = helix(args, { cwd });
      // `--agent codex` takes a value, so this call goes through commander
      const full = helix([...args, '--agent', 'codex'], { cwd });
      expect(plain.status).toBe(0);
      // a parked bead's age is counted in whole seconds at each call: the two calls may straddle one
      const ageless = (text: string) => text.replace(/"age_seconds": \d+/g, '"age_seconds": N');
      expect(ageless(plain.stdout)).toBe(ageless(full.stdout));
      expect(plain.stderr).toBe(full.stderr);
      expect(plain.stderr).toContain('malformed line(s) 5');
    },
  );

  it('next names the first ready execution bead; a positional or --help goes to the full CLI', () => {
    expect(helix(['next'], { cwd }).stdout).toBe('hx-00000002\n');
    expect(helix(['next', 'extra'], { cwd }).status).not.toBe(0);
    expect(helix(['status', '--help'], { cwd }).stdout).toMatch(/^tracker counts, the active run, claimed beads and the last run\n\nUsage: helix status /);
  });
});

describe('helix gate from its own bundle (issue 38: DDx runs it once an attempt)', () => {
  const cwd = projectWithBeads();

  it.each([[['gate']], [['gate', '--events', '/nonexistent/run.events.ndjson']]])('%j answers as the full CLI does, without commander', (args) => {
    const fast = helix(args, { cwd });
    // `--agent codex` is not a line the gate's bundle serves: this call goes through commander
    const full = helix([...args, '--agent', 'codex'], { cwd });
    expect(fast.status).toBe(7);
    expect(fast.stderr).toBe(full.stderr);
    expect(fast.stderr).toMatch(/^helix gate: EVIDENCE_DIR and CHECK_NAME are not set/);
  });

  it('writes its verdict where DDx reads it, from the bundle', () => {
    const evidence = join(cwd, 'evidence');
    const env = { EVIDENCE_DIR: evidence, CHECK_NAME: 'helix-verify', BEAD_ID: 'hx-00000002', DIFF_HEAD: 'HEAD', DIFF_BASE: 'HEAD', PROJECT_ROOT: cwd };
    const r = helix(['gate'], { cwd, env });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(evidence, 'helix-verify.json'), 'utf8'))).toMatchObject({ status: 'pass' });
  });
});
