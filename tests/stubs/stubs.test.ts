// Light tests of the stub agents themselves: they are test infrastructure, but a stub that
// answered wrongly would make the supervisor's tests lie.
import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseExecuteBeadResult, parseNextAction, readAgentAnswer } from '../../src/agents/index.js';
import { tempDir, tempGitRepo } from '../helpers/cli.js';
import { STUBS } from '../run/stub-project.js';

interface Setup { dir: string; log: string; script: string; env: NodeJS.ProcessEnv }

function setup(script: object = { responses: [] }): Setup {
  const dir = tempDir('helix-stub-');
  const log = join(dir, 'calls.jsonl');
  const scriptPath = join(dir, 'script.json');
  writeFileSync(scriptPath, JSON.stringify(script));
  // a fake `helix` that records how it was called, standing in for the real CLI
  const helix = join(dir, 'helix');
  writeFileSync(helix, `#!/bin/sh\nprintf '%s\\n' "$*" >> "${join(dir, 'helix-calls.txt')}"\n`);
  chmodSync(helix, 0o755);
  const env = { ...process.env, PATH: `${STUBS}:${dir}:${process.env.PATH}`, HELIX_STUB_LOG: log, HELIX_STUB_SCRIPT: scriptPath };
  return { dir, log, script: scriptPath, env };
}

function call(s: Setup, program: string, args: string[], options: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv } = {}) {
  const r = spawnSync(program, args, { cwd: options.cwd ?? s.dir, env: { ...s.env, ...options.env }, input: options.input ?? '', encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const logLines = (s: Setup) => readFileSync(s.log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);

describe('stub agents', () => {
  it('answer from the script queue in order, matching `when`, then fall back to defaults', () => {
    const s = setup({
      responses: [
        { when: 'execute-bead', stdout: 'advisory\n', result: { status: 'execution_failed', outcome: 'error', exit_code: 1 }, exit: 1 },
        { when: 'check', stdout: '**NEXT_ACTION:** `WAIT`\n' },
      ],
    });
    const check = call(s, 'codex', ['exec', '-C', s.dir, '--ephemeral', 'Run the check action now']);
    expect(parseNextAction(check.stdout)).toBe('WAIT');
    const failed = call(s, 'ddx', ['agent', 'execute-bead', 'hx-1', '--effort', 'medium', '--json'], { env: { HELIX_SELECTED_ISSUE: 'hx-1' } });
    expect(failed.status).toBe(1);
    expect(parseExecuteBeadResult(failed.stdout)).toMatchObject({ bead_id: 'hx-1', status: 'execution_failed' });
    const again = call(s, 'codex', ['exec', 'the check action']);
    expect(parseNextAction(again.stdout)).toBe('STOP');
    expect(logLines(s).map((l) => [l.kind, l.action, l.response])).toEqual([
      ['codex', 'check', 1],
      ['execute-bead', null, 0],
      ['codex', 'check', null],
    ]);
    expect(logLines(s)[1]).toMatchObject({ id: 'hx-1', env: { HELIX_SELECTED_ISSUE: 'hx-1' }, cwd: s.dir });
  });

  it('execute-bead by default closes the bead through helix and prints a success result with git revisions', () => {
    const s = setup();
    const repo = tempGitRepo();
    const head = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).stdout.trim();
    const r = call(s, 'ddx', ['agent', 'execute-bead', 'hx-2', '--effort', 'medium', '--json'], { cwd: repo });
    expect(r.status).toBe(0);
    expect(parseExecuteBeadResult(r.stdout)).toMatchObject({ bead_id: 'hx-2', status: 'success', outcome: 'merged', result_rev: head });
    expect(readFileSync(join(s.dir, 'helix-calls.txt'), 'utf8')).toBe('tracker close hx-2\n');
  });

  it('claude reads its prompt on stdin and the log records it', () => {
    const s = setup({ responses: [{ when: 'claude', stdout: 'NEXT_ACTION: BUILD\n' }] });
    const r = call(s, 'claude', ['-p'], { input: 'This is the check action.' });
    expect(r.stdout).toBe('NEXT_ACTION: BUILD\n');
    expect(logLines(s)[0]).toMatchObject({ program: 'claude', stdin: 'This is the check action.', action: 'check' });
  });

  it('execute-bead --help succeeds unless the script says otherwise, and takes no response', () => {
    const ok = setup({ responses: [{ stdout: 'x' }] });
    expect(call(ok, 'ddx', ['agent', 'execute-bead', '--help']).status).toBe(0);
    expect(logLines(ok)[0]).toMatchObject({ kind: 'execute-bead-help', response: null });
    const old = setup({ executeBeadHelp: false, responses: [] });
    expect(call(old, 'ddx', ['agent', 'execute-bead', '--help']).status).toBe(1);
  });

  it('run commands substitute {{id}}; plain codex exec puts its transcript and `tokens used` on stderr, the answer alone on stdout', () => {
    const s = setup({ responses: [{ run: [['helix', 'tracker', 'update', '{{id}}', '--set', 'spec-id=NEW']], tokens: 12345, stdout: 'done\n', transcript: 'NEXT_ACTION: POLISH' }] });
    const r = call(s, 'codex', ['exec', 'implementation action\nImplementation target: hx-3']);
    expect(r.stdout).toBe('done\n');
    expect(r.stderr).toContain('user\nimplementation action\nImplementation target: hx-3\n');
    expect(r.stderr).toContain('NEXT_ACTION: POLISH');
    expect(r.stderr.endsWith('tokens used\n12,345\n')).toBe(true);
    expect(readFileSync(join(s.dir, 'helix-calls.txt'), 'utf8')).toBe('tracker update hx-3 --set spec-id=NEW\n');
  });

  it('codex exec --json - reads the prompt on stdin and prints JSONL events: the answer, the transcript apart, usage', () => {
    const s = setup({ responses: [{ when: 'check', stdout: 'NEXT_ACTION: WAIT\n', transcript: 'skill says NEXT_ACTION: POLISH', tokens: 777 }] });
    const r = call(s, 'codex', ['exec', '--json', '-'], { input: 'Run the check action.' });
    expect(logLines(s)[0]).toMatchObject({ stdin: 'Run the check action.', action: 'check', response: 0 });
    expect(r.stderr).toBe('');
    expect(readAgentAnswer('codex-json', r.stdout)).toEqual({
      answer: 'NEXT_ACTION: WAIT',
      usage: { input: 777, cachedInput: 0, cacheCreation: 0, output: 0, reasoning: 0 },
    });
    expect(r.stdout).toContain('skill says NEXT_ACTION: POLISH');
  });

  it('claude stream-json needs --verbose and ends with a result event carrying usage and cost', () => {
    const s = setup({ responses: [{ when: 'claude', stdout: 'REVIEW_STATUS: CLEAN\n', transcript: 'REVIEW_STATUS: ISSUES_FOUND', tokens: 50, cost: 0.25 }] });
    const refused = call(s, 'claude', ['-p', '--output-format', 'stream-json'], { input: 'review' });
    expect(refused).toMatchObject({ status: 1, stderr: 'Error: When using --print, --output-format=stream-json requires --verbose\n' });
    const r = call(s, 'claude', ['-p', '--output-format', 'stream-json', '--verbose'], { input: 'the fresh-eyes review' });
    expect(r.status).toBe(0);
    expect(readAgentAnswer('claude-stream-json', r.stdout)).toEqual({
      answer: 'REVIEW_STATUS: CLEAN',
      usage: { input: 50, cachedInput: 0, cacheCreation: 0, output: 0, reasoning: 0, costUsd: 0.25 },
    });
  });

  it('claude refuses the bypass flags as root unless IS_SANDBOX=1, as the real one does', () => {
    const s = setup({ responses: [{ when: 'claude', stdout: 'ok\n' }] });
    const args = ['-p', '--permission-mode', 'bypassPermissions', '--dangerously-skip-permissions'];
    const refused = call(s, 'claude', args, { input: 'p', env: { HELIX_STUB_AS_ROOT: '1', IS_SANDBOX: '' } });
    expect(refused).toEqual({ status: 1, stdout: '', stderr: '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n' });
    expect(call(s, 'claude', args, { input: 'p', env: { HELIX_STUB_AS_ROOT: '1', IS_SANDBOX: '1' } })).toMatchObject({ status: 0, stdout: 'ok\n' });
  });

  it('concurrent calls never take the same response', async () => {
    const responses = Array.from({ length: 6 }, (_, i) => ({ stdout: `r${i}` }));
    const s = setup({ responses });
    const outputs = await Promise.all(
      responses.map(
        () =>
          new Promise<string>((done) => {
            const child = spawn('codex', ['exec', 'p'], { cwd: s.dir, env: s.env });
            let out = '';
            child.stdout.on('data', (d: Buffer) => (out += d.toString()));
            child.on('close', () => done(out));
          }),
      ),
    );
    expect(outputs.sort()).toEqual(responses.map((r) => r.stdout).sort());
  });

  it('a hanging response writes its marker and runs until killed', async () => {
    const s = setup();
    const marker = join(s.dir, 'started.json');
    writeFileSync(s.script, JSON.stringify({ responses: [{ hang: true, marker }] }));
    const child = spawn('codex', ['exec', 'p'], { cwd: s.dir, env: s.env, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((done) => child.on('exit', (_code, signal) => done(signal)));
    const { waitForFile } = await import('../agents/process-helpers.js');
    await waitForFile(marker);
    expect(JSON.parse(readFileSync(marker, 'utf8'))).toMatchObject({ pid: child.pid });
    child.kill('SIGTERM');
    expect(await exited).toBe('SIGTERM');
  });
});
