import { describe, expect, it } from 'vitest';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  MissingToolError,
  claudeCommand,
  codexCommand,
  runAgentCommand,
  type AgentCommand,
} from '../../src/agents/index.js';
import { EXIT } from '../../src/errors.js';
import { tempDir } from '../helpers/cli.js';
import { isRunning, waitForFile, waitUntil } from './process-helpers.js';

const fixture = (name: string) => resolve(import.meta.dirname, 'fixtures', name);
const nodeScript = (name: string, args: string[], cwd = tempDir(), extra: Partial<AgentCommand> = {}): AgentCommand => ({
  file: process.execPath,
  args: [fixture(name), ...args],
  cwd,
  env: {},
  ...extra,
});

describe('runAgentCommand', () => {
  it('captures stdout and stderr interleaved in arrival order, streams chunks, and reads tokens from stderr', async () => {
    const markers = tempDir();
    const chunks: string[] = [];
    const run = await runAgentCommand(nodeScript('handshake.mjs', [markers]), {
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
    const run = await runAgentCommand(nodeScript('echo-call.mjs', ['x'], cwd, { input: 'prompt text', env: { HELIX_SELECTED_ISSUE: 'hx-7' } }));
    expect(JSON.parse(run.stdout)).toEqual({ argv: ['x'], input: 'prompt text', cwd, selected: 'hx-7' });
    expect(run.exitCode).toBe(0);
  });

  it('on timeout kills the whole process group, grandchildren included, even ones ignoring SIGTERM', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'pids.json');
    const run = await runAgentCommand(nodeScript('spawns-grandchildren.mjs', [pidFile, 'hang', 'ignore-term'], dir), {
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
    const run = await runAgentCommand(nodeScript('spawns-grandchildren.mjs', [pidFile, 'exit'], dir), { timeoutMs: 50_000 });
    expect(run.timedOut).toBe(false);
    expect(run.exitCode).toBe(0);
    const { grandchildren } = JSON.parse(readFileSync(pidFile, 'utf8')) as { grandchildren: number[] };
    for (const pid of grandchildren) await waitUntil(() => !isRunning(pid), `pid ${pid} to end`);
  });

  it('aborting through the signal kills the group and reports aborted', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'pids.json');
    const controller = new AbortController();
    const running = runAgentCommand(nodeScript('spawns-grandchildren.mjs', [pidFile, 'hang'], dir), { signal: controller.signal, timeoutMs: 50_000 });
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
    const error = await runAgentCommand({ file: 'helix-no-such-agent', args: [], cwd: tempDir(), env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingToolError);
    expect((error as MissingToolError).kind).toBe('missingTool');
    expect((error as MissingToolError).exitCode).toBe(EXIT.missingTool);
    expect((error as MissingToolError).program).toBe('helix-no-such-agent');
    expect((error as Error).message).toContain('helix-no-such-agent: not found on PATH');
  });

  it('a missing working folder is reported before anything runs', async () => {
    await expect(runAgentCommand({ file: 'true', args: [], cwd: '/nonexistent/helix', env: {} })).rejects.toThrow(/working folder does not exist/);
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
    const run = await runAgentCommand(codexCommand({ root, prompt: hostile }), { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
    const seen = JSON.parse(run.stdout) as { argv: string[]; input: string };
    expect(seen.argv.at(-1)).toBe('-');
    expect(seen.input).toBe(hostile);
    expect(existsSync(join(root, 'pwned'))).toBe(false);
    expect(existsSync(join(root, 'backtick-pwned'))).toBe(false);
  });

  it('claude receives the prompt on stdin, verbatim', async () => {
    const root = tempDir();
    const bin = recordingAgent('claude');
    const run = await runAgentCommand(claudeCommand({ root, prompt: hostile }), { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
    const seen = JSON.parse(run.stdout) as { input: string; cwd: string };
    expect(seen.input).toBe(hostile);
    expect(seen.cwd).toBe(root);
    expect(existsSync(join(root, 'pwned'))).toBe(false);
  });
});
