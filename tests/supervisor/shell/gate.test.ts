// `helix gate` as DDx runs it (src/supervisor/shell/gate.ts): a real git repository in a temp
// folder, the attempt's commit that the project root does not have checked out, DDx's check
// environment, and the verdict files it leaves. Nothing of DDx is needed: the gate is a program
// of its own that DDx starts.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isHelixError } from '../../../src/errors.js';
import { gatePidPath, gateRecordPath } from '../../../src/supervisor/core/gate-decisions.js';
import { runGate } from '../../../src/supervisor/shell/gate.js';
import type { Bead } from '../../../src/tracker/index.js';
import { bead } from '../../helpers/bead.js';

const ID = 'hx-00000001';

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@helix.invalid', ...args], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/**
 * A project whose branch has the bead; the attempt's commit (which writes `work.txt`) exists only
 * under a ref, as DDx keeps it while its checks run; and a folder for DDx's evidence.
 */
function world(fields: Partial<Bead> = {}, options: { ignore?: string[]; installed?: string[] } = {}) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'helix-gate-')));
  git(root, 'init', '-q', '-b', 'main');
  mkdirSync(join(root, '.ddx'));
  writeFileSync(join(root, '.ddx', 'beads.jsonl'), `${JSON.stringify(bead({ id: ID, title: 'write work.txt', ...fields }))}\n`);
  writeFileSync(join(root, '.gitignore'), (options.ignore ?? []).map((p) => `${p}\n`).join(''));
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'tracker');
  const base = git(root, 'rev-parse', 'HEAD');
  git(root, 'checkout', '-q', '--detach');
  writeFileSync(join(root, 'work.txt'), 'the work\n');
  git(root, 'add', 'work.txt');
  git(root, 'commit', '-q', '-m', 'the attempt');
  const head = git(root, 'rev-parse', 'HEAD');
  git(root, 'update-ref', 'refs/ddx/iterations/attempt/0', head);
  git(root, 'checkout', '-q', 'main');
  for (const folder of options.installed ?? []) {
    mkdirSync(join(root, folder, 'dep'), { recursive: true });
    writeFileSync(join(root, folder, 'dep', 'index.js'), 'module.exports = 42;\n');
  }
  const evidence = join(root, '.ddx', 'executions', 'a1', 'checks');
  const env = { ...process.env, BEAD_ID: ID, DIFF_BASE: base, DIFF_HEAD: head, PROJECT_ROOT: root, EVIDENCE_DIR: evidence, CHECK_NAME: 'helix-verify', RUN_ID: 'r1', HELIX_VERIFY_CMD: '' };
  return {
    root,
    head,
    env,
    verdict: () => JSON.parse(readFileSync(join(evidence, 'helix-verify.json'), 'utf8')) as { status: string; message: string },
    record: () => JSON.parse(readFileSync(gateRecordPath(root, ID), 'utf8')) as Record<string, unknown>,
    worktrees: () => git(root, 'worktree', 'list', '--porcelain').split('\n').filter((l) => l.startsWith('worktree ')).length,
  };
}

describe('helix gate', () => {
  it('runs the bead’s verify command in the tree of DIFF_HEAD, not the project root’s, and passes it', async () => {
    const w = world({ verify: 'test -f work.txt && echo found it' });
    expect(existsSync(join(w.root, 'work.txt'))).toBe(false);
    const r = await runGate(w.env);
    expect(r.exitCode).toBe(0);
    expect(w.verdict()).toEqual({ status: 'pass', message: 'test -f work.txt && echo found it exited 0: found it' });
    expect(w.record()).toMatchObject({ bead: ID, diff_head: w.head, status: 'pass' });
    expect(r.stderr).toEqual([`helix gate: ${ID}: pass: test -f work.txt && echo found it exited 0: found it`]);
    expect(w.worktrees()).toBe(1);
  });

  it('blocks on a failing verify with its exit and last lines, still exiting 0 (a non-zero exit is DDx’s `error`), and removes its worktree', async () => {
    const w = world({ verify: 'echo "expected 42, got 41" >&2; exit 3' });
    const r = await runGate(w.env);
    expect(r.exitCode).toBe(0);
    expect(w.verdict()).toEqual({ status: 'block', message: 'echo "expected 42, got 41" >&2; exit 3 exited 3: expected 42, got 41' });
    expect(w.record()).toMatchObject({ status: 'block', output: ['expected 42, got 41'] });
    expect(w.worktrees()).toBe(1);
  });

  it('falls back to HELIX_VERIFY_CMD (DDx passes helix’s environment on), and passes a bead with no verify command at all', async () => {
    const w = world();
    await runGate({ ...w.env, HELIX_VERIFY_CMD: 'false' });
    expect(w.verdict().status).toBe('block');
    await runGate(w.env);
    expect(w.verdict()).toMatchObject({ status: 'pass', message: expect.stringMatching(/^no verify command/) });
  });

  it('links the project’s ignored node_modules into its worktree, and no build output (dist is rebuilt there, never written through a link)', async () => {
    const w = world({ verify: `node -e "process.exit(require('dep') === 42 ? 0 : 1)" && test ! -e dist && mkdir dist && touch dist/built` }, { ignore: ['node_modules/', 'dist/'], installed: ['node_modules', 'dist'] });
    await runGate(w.env);
    expect(w.verdict()).toMatchObject({ status: 'pass' });
    expect(existsSync(join(w.root, 'dist', 'built'))).toBe(false);
  });

  it('a folder git does not ignore is not an install: not linked', async () => {
    const w = world({ verify: 'test ! -e node_modules' }, { installed: ['node_modules'] });
    await runGate(w.env);
    expect(w.verdict()).toMatchObject({ status: 'pass' });
  });

  it('a failure of its own is infra, so DDx lands and helix verifies after landing: no DIFF_HEAD, a commit git cannot check out, a bead not in the tracker', async () => {
    const w = world({ verify: 'true' });
    await runGate({ ...w.env, DIFF_HEAD: '' });
    expect(w.verdict()).toMatchObject({ status: 'infra', message: expect.stringMatching(/DIFF_HEAD/) });
    await runGate({ ...w.env, DIFF_HEAD: '0123456789abcdef0123456789abcdef01234567' });
    expect(w.verdict()).toMatchObject({ status: 'infra', message: expect.stringMatching(/^helix gate could not verify: git worktree add 0123456789ab failed: /) });
    await runGate({ ...w.env, BEAD_ID: 'hx-0000ffff' });
    expect(w.verdict()).toMatchObject({ status: 'infra', message: expect.stringMatching(/hx-0000ffff is not in the tracker/) });
    expect(w.worktrees()).toBe(1);
  });

  it('removes a worktree a killed gate left behind (its pid is gone)', async () => {
    const w = world({ verify: 'true' });
    const left = join(realpathSync(tmpdir()), `helix-gate-999999999-left`);
    git(w.root, 'worktree', 'add', '--detach', left, w.head);
    expect(w.worktrees()).toBe(2);
    await runGate(w.env);
    expect(w.worktrees()).toBe(1);
    expect(existsSync(left)).toBe(false);
  });

  it('removes one a gate killed inside `git worktree add` left: locked `initializing`, its folder half made or gone (the chaos soak)', async () => {
    const w = world({ verify: 'true' });
    const half = join(realpathSync(tmpdir()), `helix-gate-999999998-${Date.now()}`);
    const gone = join(realpathSync(tmpdir()), `helix-gate-999999997-${Date.now()}`);
    for (const left of [half, gone]) {
      git(w.root, 'worktree', 'add', '--detach', left, w.head);
      git(w.root, 'worktree', 'lock', '--reason', 'initializing', left);
    }
    rmSync(gone, { recursive: true, force: true });
    expect(w.worktrees()).toBe(3);
    await runGate(w.env);
    expect(w.worktrees()).toBe(1);
    expect(existsSync(half)).toBe(false);
  });

  it('leaves its pid where helix looks for it, and appends its phase and its verdict to the run’s event log (--events)', async () => {
    const w = world({ verify: 'echo checked' });
    const events = join(w.root, '.helix-logs', 'helix-20260101-000000.events.ndjson');
    await runGate(w.env, { events });
    expect(readFileSync(gatePidPath(w.root, ID), 'utf8')).toBe(`${process.pid}\n`);
    const written = readFileSync(events, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(written).toEqual([
      { v: 1, t: expect.any(String), run: 'helix-20260101-000000', type: 'phase', bead: ID, phase: 'gate' },
      { v: 1, t: expect.any(String), run: 'helix-20260101-000000', type: 'gate', bead: ID, verdict: 'pass', seconds: expect.any(Number), detail: 'echo checked exited 0: checked', cpu_ms: expect.any(Number), diff_head: w.head },
    ]);
  });

  it('stopped (SIGTERM) while its verify runs: answers block at once — never infra — and removes its worktree', async () => {
    const w = world({ verify: 'sleep 30' });
    const events = join(w.root, 'run.events.ndjson');
    const gate = runGate(w.env, { events });
    // the verify runs once its phase is written; then stop the gate as helix does
    while (!existsSync(events)) await new Promise((r) => setTimeout(r, 20));
    process.emit('SIGTERM', 'SIGTERM');
    await gate;
    expect(w.verdict()).toEqual({ status: 'block', message: 'helix gate was stopped before it verified: not landed unverified' });
    expect(readFileSync(events, 'utf8')).toMatch(/"type":"gate","bead":"hx-00000001","verdict":"block"/);
    expect(w.worktrees()).toBe(1);
  });

  it('run by hand, without DDx’s check environment: one line and exit 7, nothing written', async () => {
    const w = world({ verify: 'true' });
    const error = await runGate({ ...w.env, EVIDENCE_DIR: '' }).catch((e: unknown) => e);
    expect(isHelixError(error) && error.exitCode).toBe(7);
    expect((error as Error).message).toMatch(/^helix gate: EVIDENCE_DIR and CHECK_NAME are not set: .*; nothing was checked$/);
    expect(existsSync(gateRecordPath(w.root, ID))).toBe(false);
  });
});
