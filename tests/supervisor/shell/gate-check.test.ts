// helix's side of the gate around `ddx try` (src/supervisor/shell/gate-check.ts), on a real git
// repository: the check file out of git's sight, removed only when it is helix's, the gate's record
// taken back, and an earlier result DDx would land unchecked rejected through `ddx` itself (a
// recording stand-in here; tests/ddx/scenarios.ts runs it against DDx).
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExecuteBeadResult } from '../../../src/agents/index.js';
import { GATE_CHECK_FILE, GATE_CHECK_MARKER, gatePidPath, gateRecordPath } from '../../../src/supervisor/core/gate-decisions.js';
import { callQuietly } from '../../../src/supervisor/shell/agent-call.js';
import { type GateOptions, gateAfterTry, installGateCheck, prepareGate, removeGateCheck, stopTryAfterGate, takeGateRecord } from '../../../src/supervisor/shell/gate-check.js';
import type { Say } from '../../../src/supervisor/text/lines.js';
import { bead } from '../../helpers/bead.js';
import { waitForFile } from '../../agents/process-helpers.js';

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@helix.invalid', ...args], { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

function repo(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'helix-gate-check-')));
  git(root, 'init', '-q', '-b', 'main');
  writeFileSync(join(root, 'README'), 'x\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'init');
  return root;
}

const PATH = process.env.PATH;
afterEach(() => {
  process.env.PATH = PATH;
});

describe('the check file', () => {
  it('is written with this helix’s paths, and git never sees it: no untracked file for DDx’s dirty-tree refusal, nothing to commit', () => {
    const root = repo();
    installGateCheck(root, { node: '/usr/bin/node', launcher: '/opt/helix/bin/helix' });
    const text = readFileSync(join(root, GATE_CHECK_FILE), 'utf8');
    expect(text.startsWith(GATE_CHECK_MARKER)).toBe(true);
    expect(text).toContain("'/usr/bin/node' '/opt/helix/bin/helix' gate");
    expect(git(root, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(git(root, 'status', '--porcelain', '--ignored=matching', '--untracked-files=all', '--', '.ddx/checks')).toBe(`!! ${GATE_CHECK_FILE}`);
    git(root, 'add', '-A');
    expect(git(root, 'diff', '--cached', '--name-only')).toBe('');
  });

  it('is refreshed when this helix moved, and left as it is when it is right', () => {
    const root = repo();
    installGateCheck(root, { node: '/usr/bin/node', launcher: '/old/bin/helix' });
    installGateCheck(root, { node: '/usr/bin/node', launcher: '/new/bin/helix' });
    expect(readFileSync(join(root, GATE_CHECK_FILE), 'utf8')).toContain('/new/bin/helix');
  });

  it('is removed with its folder when the run ends; a check of the project’s own, or a file helix did not write, stays', () => {
    const root = repo();
    installGateCheck(root);
    removeGateCheck(root);
    expect(existsSync(join(root, '.ddx', 'checks'))).toBe(false);
    installGateCheck(root);
    writeFileSync(join(root, '.ddx', 'checks', 'lint.yaml'), 'name: lint\nwhen: pre_merge\ncommand: make lint\n');
    removeGateCheck(root);
    expect(existsSync(join(root, GATE_CHECK_FILE))).toBe(false);
    expect(existsSync(join(root, '.ddx', 'checks', 'lint.yaml'))).toBe(true);
    writeFileSync(join(root, GATE_CHECK_FILE), 'name: helix-verify\nwhen: pre_merge\ncommand: my own\n');
    removeGateCheck(root);
    expect(existsSync(join(root, GATE_CHECK_FILE))).toBe(true);
  });
});

describe('the gate’s record after ddx try', () => {
  const record = (diffHead: string, status = 'block') => JSON.stringify({ bead: 'hx-1', diff_head: diffHead, status, message: 'npm test exited 1: FAIL' });
  const result = (rev: string) => ({ bead_id: 'hx-1', status: 'post_run_check_failed', result_rev: rev }) as ExecuteBeadResult;
  const leave = (root: string, text: string) => {
    mkdirSync(join(root, '.helix', 'gate'), { recursive: true });
    writeFileSync(gateRecordPath(root, 'hx-1'), text);
  };

  it('is taken (read and removed), and only when it is about this attempt’s result', () => {
    const root = repo();
    const said: Say[] = [];
    leave(root, record('r1'));
    expect(gateAfterTry(root, 'hx-1', result('r1'), (l) => said.push(l))).toMatchObject({ status: 'block', diff_head: 'r1' });
    expect(existsSync(gateRecordPath(root, 'hx-1'))).toBe(false);
    leave(root, record('r0'));
    expect(gateAfterTry(root, 'hx-1', result('r1'), (l) => said.push(l))).toBeUndefined();
    expect(takeGateRecord(root, 'hx-1')).toBeUndefined();
    expect(said).toEqual([]);
  });

  it('a gate that could not verify (infra) is said in one line: DDx landed it, helix verifies after landing', () => {
    const root = repo();
    const said: Say[] = [];
    leave(root, record('r1', 'infra'));
    gateAfterTry(root, 'hx-1', { ...result('r1'), status: 'success' }, (l) => said.push(l));
    expect(said).toEqual([{ level: 'always', text: 'helix: hx-1 was not verified before landing (npm test exited 1: FAIL); helix verifies it after landing' }]);
  });
});

/** How a run makes DDx's bookkeeping call (attempt-ports.ts): the `ddx` on PATH, as this test sets it. */
const ddx: GateOptions['ddx'] = (invocation, timeoutSec) => callQuietly({ env: process.env }, invocation, timeoutSec);

describe('prepareGate: before ddx try', () => {
  /** A `ddx` first on PATH that records its arguments. */
  function recordingDdx(): () => string[][] {
    const bin = mkdtempSync(join(tmpdir(), 'helix-gate-ddx-'));
    const log = join(bin, 'calls');
    writeFileSync(join(bin, 'ddx'), `#!/bin/sh\nfor a in "$@"; do printf '%s\\t' "$a"; done >> '${log}'\necho >> '${log}'\n`);
    chmodSync(join(bin, 'ddx'), 0o755);
    process.env.PATH = `${bin}:${PATH}`;
    return () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => l.split('\t').filter(Boolean)) : []);
  }

  /** An attempt's commit that is not on the branch and DDx's result.json saying task_succeeded. */
  function dangling(root: string, folder: string, verdict?: string): string {
    const base = git(root, 'rev-parse', 'HEAD');
    const tree = git(root, 'write-tree');
    const rev = git(root, 'commit-tree', tree, '-p', base, '-m', 'attempt');
    mkdirSync(join(root, '.ddx', 'executions', folder, 'checks'), { recursive: true });
    writeFileSync(join(root, '.ddx', 'executions', folder, 'result.json'), JSON.stringify({ bead_id: 'hx-1', base_rev: base, result_rev: rev, outcome: 'task_succeeded' }));
    if (verdict) writeFileSync(join(root, '.ddx', 'executions', folder, 'checks', 'helix-verify.json'), verdict);
    return rev;
  }

  it('installs the check, and rejects the newest result no gate passed through `ddx bead evidence add`, saying so', async () => {
    const root = repo();
    const calls = recordingDdx();
    dangling(root, '20260101T000000-aa');
    const rev = dangling(root, '20260101T000001-bb');
    const said: Say[] = [];
    await prepareGate(root, bead({ id: 'hx-1' }), (l) => said.push(l), { ddx });
    expect(existsSync(join(root, GATE_CHECK_FILE))).toBe(true);
    expect(calls()).toEqual([['bead', 'evidence', 'add', 'hx-1', '--kind', 'preserved-result-rejected', '--summary', expect.stringMatching(/^helix: /), '--body', `result_rev=${rev}`]]);
    expect(said.map((l) => l.text)).toEqual([expect.stringMatching(new RegExp(`^helix: hx-1: DDx would land ${rev.slice(0, 12)}, an earlier attempt no gate passed`))]);
  });

  it('leaves alone a result already rejected (the bead’s events say so), one helix’s gate passed, and one on the branch', async () => {
    const root = repo();
    const calls = recordingDdx();
    const rejected = dangling(root, '20260101T000000-aa');
    await prepareGate(root, bead({ id: 'hx-1', events: [{ kind: 'preserved-result-rejected', body: `result_rev=${rejected}` }] }), () => undefined, { ddx });
    dangling(root, '20260101T000001-bb', '{"status":"pass","message":"npm test exited 0"}');
    await prepareGate(root, bead({ id: 'hx-1' }), () => undefined, { ddx });
    const onBranch = dangling(root, '20260101T000002-cc');
    git(root, 'merge', '-q', '--ff-only', onBranch);
    await prepareGate(root, bead({ id: 'hx-1' }), () => undefined, { ddx });
    expect(calls()).toEqual([]);
  });
});

describe('stopping a ddx try: DDx hears the stop only after its gate answered (DDx, cancelled, lands what no check passed)', () => {
  /** A stand-in gate: a child of this test (its parent reaps it, as DDx reaps its check), its pid where the gate leaves it. */
  function gate(root: string, onTerm: 'answer' | 'ignore') {
    const handler = onTerm === 'answer' ? "() => { fs.writeFileSync(process.argv[1], 'block'); process.exit(0); }" : '() => {}';
    // the handler in place, it says so (a file): only then is a SIGTERM its to answer
    const body = `const fs = require('fs'); process.on('SIGTERM', ${handler}); fs.writeFileSync(process.argv[1] + '.ready', ''); setInterval(() => {}, 1e6)`;
    const answer = join(root, 'answer');
    const child = spawn(process.execPath, ['-e', body, answer], { stdio: 'ignore' });
    mkdirSync(join(root, '.helix', 'gate'), { recursive: true });
    writeFileSync(gatePidPath(root, 'hx-1'), `${child.pid}\n`);
    const ended = new Promise((r) => child.on('exit', r));
    return { child, answer, ended, ready: () => waitForFile(`${answer}.ready`) };
  }

  it('before its gate has started: SIGKILL, so DDx lands nothing', async () => {
    expect(await stopTryAfterGate(repo(), 'hx-1')).toBe('SIGKILL');
  });

  it('while its gate runs: the gate is stopped first (it answers block), then SIGTERM once the gate is gone', async () => {
    const root = repo();
    const g = gate(root, 'answer');
    await g.ready();
    expect(await stopTryAfterGate(root, 'hx-1')).toBe('SIGTERM');
    expect(readFileSync(g.answer, 'utf8')).toBe('block');
    expect(existsSync(`/proc/${g.child.pid}`)).toBe(false);
  });

  it('a gate that does not end in time: SIGKILL', async () => {
    const root = repo();
    const g = gate(root, 'ignore');
    await g.ready();
    expect(await stopTryAfterGate(root, 'hx-1', 300)).toBe('SIGKILL');
    g.child.kill('SIGKILL');
    await g.ended;
  });

  it('a pid an earlier gate of the bead left is gone before the next ddx try (prepareGate)', async () => {
    const root = repo();
    mkdirSync(join(root, '.helix', 'gate'), { recursive: true });
    writeFileSync(gatePidPath(root, 'hx-1'), '12345\n');
    await prepareGate(root, bead({ id: 'hx-1' }), () => undefined, { ddx });
    expect(existsSync(gatePidPath(root, 'hx-1'))).toBe(false);
  });
});
