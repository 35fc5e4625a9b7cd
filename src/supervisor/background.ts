// `helix start` / `helix stop` (contract §2): the run in the background, found again through its
// pid file. Messages and exit codes are the Bash CLI's.
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

export async function startBackground(cwd: string, env: NodeJS.ProcessEnv, runArgs: string[]): Promise<number> {
  const { root, store } = openStore(cwd, env);
  const current = readPidFile(store.dir);
  if (current && isPidAlive(current.pid)) {
    process.stderr.write(`${BACKGROUND.alreadyActive(current.pid)}\n`);
    return EXIT.error;
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
    process.stderr.write(`${BACKGROUND.exitedAtOnce(join('.helix-logs', 'helix-start.out'))}\n`);
    return EXIT.error;
  }
  process.stderr.write(`${BACKGROUND.started(pid, runLog() ?? 'unknown')}\n`);
  return EXIT.ok;
}

export async function stopBackground(cwd: string, env: NodeJS.ProcessEnv): Promise<number> {
  const { store } = openStore(cwd, env);
  const current = readPidFile(store.dir);
  if (!current) {
    process.stderr.write(`${BACKGROUND.noPidFile}\n`);
    return EXIT.error;
  }
  if (!isPidAlive(current.pid)) {
    removeStalePidFile(store.dir, current.pid);
    process.stderr.write(`${BACKGROUND.stalePidFile(current.pid)}\n`);
    return EXIT.error;
  }
  process.kill(current.pid, 'SIGTERM');
  if (!(await waitFor(() => !isPidAlive(current.pid), STOP_GRACE_MS))) {
    process.kill(current.pid, 'SIGKILL');
    await waitFor(() => !isPidAlive(current.pid), 2_000);
    removeStalePidFile(store.dir, current.pid);
  }
  process.stderr.write(`${BACKGROUND.stopped(current.pid)}\n`);
  return EXIT.ok;
}
