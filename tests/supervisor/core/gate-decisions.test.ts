// The gate's decisions (src/supervisor/core/gate-decisions.ts): the check file and its command, which
// installed dependencies the gate's worktree borrows, its verdicts, and how helix reads a block
// back as the attempt's reason. The command is run with a real `sh` here: the quoting is the point.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExecuteBeadResult } from '../../../src/agents/index.js';
import {
  DEPENDENCY_FOLDERS,
  GATE_CHECK_MARKER,
  type GateRecord,
  danglingToReject,
  dependencyLinks,
  gateCheckYaml,
  gateCommand,
  gateInfra,
  gateRefusal,
  parseGateRecord,
  verdictJson,
  verdictOfRun,
} from '../../../src/supervisor/core/gate-decisions.js';

const scratch = () => mkdtempSync(join(tmpdir(), 'helix-gate-core-'));

/** A stand-in for node that writes the arguments it got, one a line. */
function argsRecorder(dir: string): { program: string; seen: () => string[] } {
  const program = join(dir, "no'de bin");
  const out = join(dir, 'args');
  writeFileSync(program, `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done > '${out}'\n`);
  chmodSync(program, 0o755);
  return { program, seen: () => readFileSync(out, 'utf8').split('\n').filter(Boolean) };
}

describe('the check file and its command', () => {
  it('calls this helix by absolute paths, each one word for sh whatever it holds (quotes, spaces, $)', () => {
    const dir = scratch();
    const node = argsRecorder(dir);
    const launcher = join(dir, "it's a $HOME `helix`");
    writeFileSync(launcher, '');
    const r = spawnSync('sh', ['-c', gateCommand(node.program, launcher)], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(node.seen()).toEqual([launcher, 'gate']);
  });

  it('answers infra itself when that helix is gone, so a moved install never blocks every attempt (DDx calls a 127 error)', () => {
    const dir = scratch();
    const r = spawnSync('sh', ['-c', gateCommand(join(dir, 'node'), join(dir, 'gone', 'bin', 'helix'))], { encoding: 'utf8', env: { ...process.env, EVIDENCE_DIR: dir, CHECK_NAME: 'helix-verify' } });
    expect(r.status).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'helix-verify.json'), 'utf8'))).toMatchObject({ status: 'infra' });
  });

  it('holds only the keys DDx knows (any other fails its load and blocks every land), the command as a JSON-quoted scalar', () => {
    const text = gateCheckYaml('/usr/bin/node', '/opt/helix "x"/bin/helix');
    const keys = text.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.slice(0, l.indexOf(':')));
    expect(keys).toEqual(['name', 'when', 'command']);
    expect(text.startsWith(GATE_CHECK_MARKER)).toBe(true);
    expect(text).toContain('name: helix-verify\nwhen: pre_merge\n');
    const command = JSON.parse(/^command: (.*)$/m.exec(text)?.[1] ?? '""') as string;
    expect(command).toBe(gateCommand('/usr/bin/node', '/opt/helix "x"/bin/helix'));
  });
});

describe('dependencyLinks: what the gate borrows from the project root', () => {
  const project = (ignored: string[]) => ({ isIgnoredFolder: (name: string) => ignored.includes(name) });
  const tree = (names: string[]) => ({ has: (name: string) => names.includes(name) });

  it.each([
    { ignored: ['node_modules'], inTree: [], links: ['node_modules'] },
    { ignored: ['node_modules', '.venv', 'vendor'], inTree: [], links: ['node_modules', '.venv', 'vendor'] },
    // a build output or cache is rebuilt in the gate's tree, never written through a link into the user's
    { ignored: ['dist', 'target', 'build', '.cache'], inTree: [], links: [] },
    // the attempt's own tree wins (a vendored folder that is tracked)
    { ignored: ['vendor'], inTree: ['vendor'], links: [] },
    // not ignored: not an install (nothing to borrow)
    { ignored: [], inTree: [], links: [] },
  ])('ignored $ignored, in the tree $inTree → $links', ({ ignored, inTree, links }) => {
    expect(dependencyLinks(project(ignored), tree(inTree))).toEqual(links);
  });

  it('names the install folders of npm, pip/uv/poetry and composer/bundler', () => {
    expect(DEPENDENCY_FOLDERS).toEqual(['node_modules', '.venv', 'venv', 'vendor']);
  });
});

describe('verdicts', () => {
  it('a verify run: exit 0 passes; anything else (a timeout too) blocks with the exit and the last lines, as helix words its own verification', () => {
    expect(verdictOfRun('hx-1', 'abc', 'npm test', { exitCode: 0, timedOut: false, output: 'ok\n' })).toEqual({ bead: 'hx-1', diff_head: 'abc', status: 'pass', message: 'npm test exited 0: ok', command: 'npm test' });
    const blocked = verdictOfRun('hx-1', 'abc', 'npm test', { exitCode: 1, timedOut: false, output: 'a\nb\nFAIL x\n' });
    expect(blocked).toMatchObject({ status: 'block', message: 'npm test exited 1: a | b | FAIL x', output: ['a', 'b', 'FAIL x'] });
    expect(verdictOfRun('hx-1', 'abc', 'sleep 9', { exitCode: 124, timedOut: true, output: '' })).toMatchObject({ status: 'block', message: 'sleep 9 exited 124' });
  });

  it('a failure of the gate itself is infra (DDx lands, helix verifies after landing), never error (which would block every bead)', () => {
    expect(gateInfra('hx-1', '', 'DDx gave no DIFF_HEAD')).toEqual({ bead: 'hx-1', diff_head: '', status: 'infra', message: 'helix gate could not verify: DDx gave no DIFF_HEAD' });
  });

  it('DDx reads status and message; helix reads the whole record back, and nothing that is not one', () => {
    const record: GateRecord = { bead: 'hx-1', diff_head: 'abc', status: 'block', message: 'm', command: 'c', output: ['x'] };
    expect(JSON.parse(verdictJson(record))).toEqual({ status: 'block', message: 'm' });
    expect(parseGateRecord(JSON.stringify(record))).toEqual(record);
    for (const bad of ['', '{', '[]', '{"bead":"hx-1","diff_head":"a","status":"error","message":"m"}', '{"bead":1,"diff_head":"a","status":"pass","message":"m"}']) expect(parseGateRecord(bad)).toBeUndefined();
  });
});

describe('gateRefusal: a block read back as the attempt’s reason', () => {
  const blocked = (fields: Partial<ExecuteBeadResult> = {}) =>
    ({ bead_id: 'hx-1', status: 'post_run_check_failed', detail: 'pre-merge checks blocked: helix-verify', result_rev: 'abc', preserve_ref: 'refs/ddx/iterations/hx-1/x', ...fields }) as ExecuteBeadResult;
  const record = (fields: Partial<GateRecord> = {}): GateRecord => ({ bead: 'hx-1', diff_head: 'abc', status: 'block', message: 'npm test exited 1: FAIL', output: ['FAIL'], ...fields });

  it('the verification’s words and where DDx kept the work', () => {
    expect(gateRefusal(blocked(), record())).toEqual({ detail: 'verification failed before landing: npm test exited 1: FAIL; DDx kept it under refs/ddx/iterations/hx-1/x, not landed', output: ['FAIL'] });
  });

  it.each([
    ['another check blocked it (no record)', blocked(), undefined],
    ['the record is about another result', blocked(), record({ diff_head: 'def' })],
    ['the gate passed it (another check blocked)', blocked(), record({ status: 'pass' })],
    ['DDx did not block it', blocked({ status: 'success' }), record()],
  ])('none when %s: DDx’s own detail stands', (_what, result, gate) => {
    expect(gateRefusal(result, gate)).toBeUndefined();
  });
});

describe('danglingToReject: a result DDx would land with no check', () => {
  const facts = (onBranch: string[] = [], rejected: string[] = []) => ({ onBranch: (r: string) => onBranch.includes(r), rejected: (r: string) => rejected.includes(r) });

  it.each([
    ['not on the branch, not rejected: reject it', { result_rev: 'r1', base_rev: 'b' }, facts(), 'r1'],
    ['none', undefined, facts(), undefined],
    ['already rejected', { result_rev: 'r1', base_rev: 'b' }, facts([], ['r1']), undefined],
    ['on the branch already: DDx only closes the bead (helix verifies it)', { result_rev: 'r1', base_rev: 'b' }, facts(['r1']), undefined],
    ['no change (result = base)', { result_rev: 'b', base_rev: 'b' }, facts(), undefined],
    ['helix’s gate passed it (DDx died before landing it): DDx may land it, helix verifies after landing', { result_rev: 'r1', base_rev: 'b', gatePassed: true }, facts(), undefined],
  ])('%s', (_what, newest, f, expected) => {
    expect(danglingToReject(newest, f)).toBe(expected);
  });
});
