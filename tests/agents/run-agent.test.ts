import { describe, expect, it } from 'vitest';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import {
  AgentStartError,
  MissingToolError,
  claudeInvocation,
  codexInvocation,
  runAgentInvocation,
  type AgentInvocation,
} from '../../src/agents/index.js';
import { EXIT } from '../../src/errors.js';
import { tempDir } from '../helpers/cli.js';
import { isRunning, waitForFile, waitUntil } from './process-helpers.js';

const fixture = (name: string) => resolve(import.meta.dirname, 'fixtures', name);
const nodeScript = (name: string, args: string[], cwd = tempDir(), extra: Partial<AgentInvocation> = {}): AgentInvocation => ({
  file: process.execPath,
  args: [fixture(name), ...args],
  cwd,
  env: {},
  ...extra,
});

describe('runAgentInvocation', () => {
  it('captures stdout and stderr interleaved in arrival order, streams chunks, and reads tokens from stderr', async () => {
    const markers = tempDir();
    const chunks: string[] = [];
    const run = await runAgentInvocation(nodeScript('handshake.mjs', [markers]), {
      onChunk: (text, stream) => {
        chunks.push(`${stream}:${text}`);
        for (const word of ['one', 'two', 'three']) if (text.startsWith(word)) writeFileSync(join(markers, word), '');
      },
    });
    expect(run.output).toBe('one\ntwo\ntokens used\nthree\n1,234\n');
    expect(run.stdout).toBe('one\nthree\n');
    expect(run.stderr).toBe('two\ntokens used\n1,234\n');
    expect(chunks).toEqual(['stdout:one\n', 'stderr:two\ntokens used\n', 'stdout:three\n', 'stderr:1,234\n']);
    expect(run.tokens).toBe(1234);
    expect(run.exitCode).toBe(3);
    expect(run.timedOut).toBe(false);
  });

  it('passes stdin input, the working folder and the command environment', async () => {
    const cwd = tempDir();
    const run = await runAgentInvocation(nodeScript('echo-call.mjs', ['x'], cwd, { input: 'prompt text', env: { HELIX_SELECTED_ISSUE: 'hx-7' } }));
    expect(JSON.parse(run.stdout)).toEqual({ argv: ['x'], input: 'prompt text', cwd, selected: 'hx-7' });
    expect(run.exitCode).toBe(0);
  });

  it('on timeout kills the whole process group, grandchildren included, even ones ignoring SIGTERM', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'pids.json');
    const run = await runAgentInvocation(nodeScript('spawns-grandchildren.mjs', [pidFile, 'hang', 'ignore-term'], dir), {
      timeoutMs: 2000,
      killGraceMs: 200,
    });
    const { agent, grandchildren } = JSON.parse(readFileSync(pidFile, 'utf8')) as { agent: number; grandchildren: number[] };
    expect(run.timedOut).toBe(true);
    expect(run.exitCode).toBe(124);
    expect(run.output).toContain('READY');
    for (const pid of [agent, ...grandchildren]) await waitUntil(() => !isRunning(pid), `pid ${pid} to end`);
  });

  it('an agent that exits on its own does not wait for, or leave behind, processes it started', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'pids.json');
    const run = await runAgentInvocation(nodeScript('spawns-grandchildren.mjs', [pidFile, 'exit'], dir), { timeoutMs: 50_000 });
    expect(run.timedOut).toBe(false);
    expect(run.exitCode).toBe(0);
    const { grandchildren } = JSON.parse(readFileSync(pidFile, 'utf8')) as { grandchildren: number[] };
    for (const pid of grandchildren) await waitUntil(() => !isRunning(pid), `pid ${pid} to end`);
  });

  it('a harness leftover that keeps the pipe its wrapper reads to the end does not hold the call to its timeout (docs/agents.md)', async () => {
    // The wrapper reads the harness's output to its end, as DDx's Go does (exec.Cmd.Wait) and as
    // `$(…)` does; the harness exits at once, leaving a setsid loop on that pipe.
    const dir = tempDir();
    const loopPid = join(dir, 'loop.pid');
    const harness = `setsid sh -c 'echo $$ > "${loopPid}.tmp"; mv "${loopPid}.tmp" "${loopPid}"; while :; do echo tick; sleep 0.2; done' & while [ ! -e "${loopPid}" ]; do :; done; echo harness done`;
    const wrapper = `out=$(sh -c '${harness.replaceAll("'", "'\\''")}'); echo "$out" | grep -c 'harness done'`;
    const run = await runAgentInvocation({ file: '/bin/sh', args: ['-c', wrapper], cwd: dir, env: {} }, { timeoutMs: 30_000, killGraceMs: 500 });
    expect(run.timedOut).toBe(false);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe('1\n'); // the wrapper got the harness's whole output and went on
    const loop = Number(readFileSync(loopPid, 'utf8'));
    await waitUntil(() => !isRunning(loop), `the leftover loop (pid ${loop}) to end`);
  });

  it('aborting through the signal kills the group and reports aborted', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'pids.json');
    const controller = new AbortController();
    const running = runAgentInvocation(nodeScript('spawns-grandchildren.mjs', [pidFile, 'hang'], dir), { signal: controller.signal, timeoutMs: 50_000 });
    await waitForFile(pidFile);
    controller.abort();
    const run = await running;
    expect(run.aborted).toBe(true);
    expect(run.timedOut).toBe(false);
    expect(run.signal).toBe('SIGTERM');
    expect(run.exitCode).toBe(128 + 15);
    const { grandchildren } = JSON.parse(readFileSync(pidFile, 'utf8')) as { grandchildren: number[] };
    for (const pid of grandchildren) await waitUntil(() => !isRunning(pid), `pid ${pid} to end`);
  });

  it('a missing program is a missingTool error naming it', async () => {
    const error = await runAgentInvocation({ file: 'helix-no-such-agent', args: [], cwd: tempDir(), env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingToolError);
    expect((error as MissingToolError).kind).toBe('missingTool');
    expect((error as MissingToolError).exitCode).toBe(EXIT.missingTool);
    expect((error as MissingToolError).program).toBe('helix-no-such-agent');
    expect((error as Error).message).toContain('helix-no-such-agent: not found on PATH');
  });

  it('an argument over the system limit is a one-line start failure, not the command line', async () => {
    const prompt = 'x'.repeat(200 * 1024); // Linux allows 128 KB per argument
    const error = await runAgentInvocation({ file: 'true', args: ['exec', prompt], cwd: tempDir(), env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentStartError);
    expect((error as AgentStartError).code).toBe('E2BIG');
    expect((error as Error).message).toBe('helix: could not start true: its command line is too long for the system (E2BIG: 201 KB of arguments, the longest 200 KB)');
  });

  it('a program whose interpreter is missing, or that is not executable, is a one-line start failure', async () => {
    const bin = tempDir('helix-bin-');
    writeFileSync(join(bin, 'broken'), '#!/nonexistent/interpreter\n');
    chmodSync(join(bin, 'broken'), 0o755);
    writeFileSync(join(bin, 'plain'), 'not a program\n');
    chmodSync(join(bin, 'plain'), 0o644);
    const broken = await runAgentInvocation({ file: join(bin, 'broken'), args: [], cwd: bin, env: {} }).catch((e: unknown) => e);
    expect(broken).toBeInstanceOf(AgentStartError);
    expect((broken as AgentStartError).code).toBe('ENOENT');
    expect((broken as Error).message).toBe(`helix: could not start ${join(bin, 'broken')}: the interpreter its #! line names was not found (ENOENT)`);
    const plain = await runAgentInvocation({ file: join(bin, 'plain'), args: [], cwd: bin, env: {} }).catch((e: unknown) => e);
    expect((plain as AgentStartError).code).toBe('EACCES');
    expect((plain as Error).message).toBe(`helix: ${join(bin, 'plain')}: found but not executable (check its permissions)`);
  });

  it('when the caller dies by SIGKILL, the agent and everything in its group are stopped', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'pids.json');
    const caller = spawn(process.execPath, [fixture('dies-while-agent-runs.mjs'), pidFile, 'ignore-term'], { cwd: dir, stdio: 'ignore' });
    await waitForFile(pidFile);
    const { agent, grandchildren } = JSON.parse(readFileSync(pidFile, 'utf8')) as { agent: number; grandchildren: number[] };
    caller.kill('SIGKILL');
    // the one ignoring SIGTERM needs the SIGKILL after the grace period
    for (const pid of [agent, ...grandchildren]) await waitUntil(() => !isRunning(pid), `pid ${pid} to end`);
  });

  it('stopWith: an abort waits for what must come first, then gives the group the signal it answers — SIGKILL with no SIGTERM before it', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'pids.json');
    const controller = new AbortController();
    const order: string[] = [];
    const stopWith = async (): Promise<'SIGKILL'> => {
      order.push('first');
      return 'SIGKILL';
    };
    const running = runAgentInvocation(nodeScript('spawns-grandchildren.mjs', [pidFile, 'hang', 'note-term'], dir), { signal: controller.signal, timeoutMs: 50_000, stopWith });
    await waitForFile(pidFile);
    controller.abort();
    const run = await running;
    expect(order).toEqual(['first']);
    expect(run).toMatchObject({ aborted: true, signal: 'SIGKILL', exitCode: 128 + 9 });
    expect(existsSync(`${pidFile}.term`)).toBe(false);
    const { grandchildren } = JSON.parse(readFileSync(pidFile, 'utf8')) as { grandchildren: number[] };
    for (const pid of grandchildren) await waitUntil(() => !isRunning(pid), `pid ${pid} to end`);
  });

  it('when the caller dies by SIGKILL, a call with stopWith (ddx try) is killed outright by the watchdog; any other gets SIGTERM first', async () => {
    for (const outright of [true, false]) {
      const dir = tempDir();
      const pidFile = join(dir, 'pids.json');
      const caller = spawn(process.execPath, [fixture('dies-while-agent-runs.mjs'), pidFile, 'note-term', ...(outright ? ['outright'] : [])], { cwd: dir, stdio: 'ignore' });
      await waitForFile(pidFile);
      const { agent } = JSON.parse(readFileSync(pidFile, 'utf8')) as { agent: number };
      caller.kill('SIGKILL');
      await waitUntil(() => !isRunning(agent), `pid ${agent} to end`);
      expect(existsSync(`${pidFile}.term`), outright ? 'outright' : 'with a grace').toBe(!outright);
    }
  });

  it('a HELIX_AGENT_TIMEOUT beyond what a timer holds (24.8 days) means no timeout, not a kill after 1 ms', async () => {
    const run = await runAgentInvocation(nodeScript('echo-call.mjs', ['x']), { env: { ...process.env, HELIX_AGENT_TIMEOUT: '9999999999' } });
    expect(run.timedOut).toBe(false);
    expect(run.exitCode).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ argv: ['x'] });
  });

  it('a missing working folder is reported before anything runs', async () => {
    await expect(runAgentInvocation({ file: 'true', args: [], cwd: '/nonexistent/helix', env: {} })).rejects.toThrow(/working folder does not exist/);
  });
});

describe('bead and prompt text never reaches a shell', () => {
  const hostile = 'Fix `touch backtick-pwned` and $(touch pwned); echo "$HOME" \'quoted\'';

  function recordingAgent(name: string): string {
    const bin = tempDir('helix-bin-');
    const path = join(bin, name);
    writeFileSync(path, `#!/bin/sh\nexec "${process.execPath}" "${fixture('echo-call.mjs')}" "$@"\n`);
    chmodSync(path, 0o755);
    return bin;
  }

  it('codex receives the prompt on stdin (`exec -`), verbatim', async () => {
    const root = tempDir();
    const bin = recordingAgent('codex');
    const run = await runAgentInvocation(codexInvocation({ root, prompt: hostile }), { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
    const seen = JSON.parse(run.stdout) as { argv: string[]; input: string };
    expect(seen.argv.at(-1)).toBe('-');
    expect(seen.input).toBe(hostile);
    expect(existsSync(join(root, 'pwned'))).toBe(false);
    expect(existsSync(join(root, 'backtick-pwned'))).toBe(false);
  });

  it('claude receives the prompt on stdin, verbatim', async () => {
    const root = tempDir();
    const bin = recordingAgent('claude');
    const run = await runAgentInvocation(claudeInvocation({ root, prompt: hostile }), { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
    const seen = JSON.parse(run.stdout) as { input: string; cwd: string };
    expect(seen.input).toBe(hostile);
    expect(seen.cwd).toBe(root);
    expect(existsSync(join(root, 'pwned'))).toBe(false);
  });
});
