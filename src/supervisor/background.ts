// `helix start` / `helix stop` (docs/contract/cli.md §2): the run in the background, found again through its
// pid file. Messages and exit codes are the Bash CLI's; src/cli prints them (CommandResult).
import { spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { EXIT } from '../errors.js';
import { isPidAlive } from '../tracker/index.js';
import { readPidFile, removeStalePidFile } from './mutex.js';
import { openStore } from './project.js';
import { BACKGROUND } from './lines.js';
import type { CommandResult } from './output.js';
import { readRunState } from './run-state.js';

const STOP_GRACE_MS = 10_000;
const POLL_MS = 50;

async function waitFor(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await sleep(POLL_MS);
  }
  return condition();
}

export async function startBackground(cwd: string, env: NodeJS.ProcessEnv, runArgs: string[]): Promise<CommandResult> {
  const { root, store } = openStore(cwd, env);
  const current = readPidFile(store.dir);
  if (current && isPidAlive(current.pid)) {
    return { exitCode: EXIT.error, stderr: [BACKGROUND.alreadyActive(current.pid)] };
  }
  mkdirSync(join(root, '.helix-logs'), { recursive: true });
  const out = openSync(join(root, '.helix-logs', 'helix-start.out'), 'a');
  const launcher = fileURLToPath(new URL('../../bin/helix', import.meta.url));
  const child = spawn(process.execPath, [launcher, 'run', ...runArgs], { cwd, env, detached: true, stdio: ['ignore', out, out] });
  child.unref();
  const pid = child.pid ?? 0;
  // The run writes its own pid file and names its session log in run-state: wait for both, so
  // `helix status` right after sees the run and the line below names the run's log, not ours.
  const runLog = () => {
    const state = readRunState(store.dir);
    return state?.pid === pid && typeof state.log === 'string' ? state.log : undefined;
  };
  const started = await waitFor(() => (readPidFile(store.dir)?.pid === pid && runLog() !== undefined) || !isPidAlive(pid), 10_000);
  if (!started || !isPidAlive(pid)) {
    return { exitCode: EXIT.error, stderr: [BACKGROUND.exitedAtOnce(join('.helix-logs', 'helix-start.out'))] };
  }
  return { exitCode: EXIT.ok, stderr: [BACKGROUND.started(pid, runLog() ?? 'unknown')] };
}

export async function stopBackground(cwd: string, env: NodeJS.ProcessEnv): Promise<CommandResult> {
  const { store } = openStore(cwd, env);
  const current = readPidFile(store.dir);
  if (!current) {
    return { exitCode: EXIT.error, stderr: [BACKGROUND.noPidFile] };
  }
  if (!isPidAlive(current.pid)) {
    removeStalePidFile(store.dir, current.pid);
    return { exitCode: EXIT.error, stderr: [BACKGROUND.stalePidFile(current.pid)] };
  }
  process.kill(current.pid, 'SIGTERM');
  if (!(await waitFor(() => !isPidAlive(current.pid), STOP_GRACE_MS))) {
    process.kill(current.pid, 'SIGKILL');
    await waitFor(() => !isPidAlive(current.pid), 2_000);
    removeStalePidFile(store.dir, current.pid);
  }
  return { exitCode: EXIT.ok, stderr: [BACKGROUND.stopped(current.pid)] };
}
