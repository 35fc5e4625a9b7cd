// `helix start` / `helix stop` (docs/contract/cli.md §2): the run in the background, found again through its
// pid file. Messages and exit codes are the Bash CLI's; src/cli prints them (CommandResult).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { EXIT, isHelixError } from '../../errors.js';
import { isPidAlive } from '../../tracker/index.js';
import { activeRun, handOverPidFile, readPidFile, removeStalePidFile, reservePidFile } from './mutex.js';
import { openStore } from './project.js';
import { assertGitWorkTree } from './git.js';
import { BACKGROUND } from '../text/lines.js';
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

/**
 * Starts `helix run` in the background. The pid file is taken in start's own name first and handed
 * to the run once it is spawned, so a `helix stop` while the run is still starting always finds
 * something to stop: a SIGTERM (or SIGINT, SIGHUP) start receives is passed on to the run, or,
 * before it was spawned, cancels it.
 */
export async function startBackground(cwd: string, env: NodeJS.ProcessEnv, runArgs: string[]): Promise<CommandResult> {
  assertGitWorkTree(cwd); // before the pid file, the log folder or the run exist
  const { root, store } = openStore(cwd, env);
  let child: ChildProcess | undefined;
  let stopped = false;
  const stop = (signal: NodeJS.Signals) => {
    stopped = true;
    if (child?.pid !== undefined) process.kill(child.pid, signal === 'SIGHUP' ? 'SIGTERM' : signal);
  };
  const handlers = (['SIGTERM', 'SIGINT', 'SIGHUP'] as const).map((name) => [name, () => stop(name)] as const);
  for (const [name, handler] of handlers) process.on(name, handler);
  try {
    try {
      reservePidFile(store.dir);
    } catch (error) {
      // the exit of `helix run` against a live run (docs/contract/cli.md §4), so a script tells the two cases apart alike
      if (isHelixError(error) && error.kind === 'runActive') return { exitCode: EXIT.runActive, stderr: [BACKGROUND.alreadyActive(activeRun(store.dir)?.pid ?? 0)] };
      throw error;
    }
    await signalsDelivered();
    if (stopped) {
      handOverPidFile(store.dir, process.pid, undefined);
      return { exitCode: EXIT.terminated, stderr: [BACKGROUND.stoppedWhileStarting(undefined)] };
    }
    mkdirSync(join(root, '.helix-logs'), { recursive: true });
    const out = openSync(join(root, '.helix-logs', 'helix-start.out'), 'a');
    const launcher = fileURLToPath(new URL('../../../bin/helix', import.meta.url));
    child = spawn(process.execPath, [launcher, 'run', ...runArgs], { cwd, env, detached: true, stdio: ['ignore', out, out] });
    // Kept referenced while start watches it: a run already dead to /proc (a zombie) may not have
    // delivered its exit event yet, and awaiting that event with nothing else referenced would let
    // Node end start with 13 (unsettled top-level await). Unreferenced on the way out (finally).
    // how the run ended, once it did (our own child: Node reaps it and says so)
    const ended = new Promise<number | null>((resolve) => child?.on('exit', (code, signal) => resolve(signal ? EXIT.terminated : code)));
    const pid = child.pid ?? 0;
    handOverPidFile(store.dir, process.pid, child.pid);
    // The run writes its own pid file and names its session log in run-state: wait for both, so
    // `helix status` right after sees the run and the line below names the run's log, not ours.
    const runLog = () => {
      const state = readRunState(store.dir);
      return state?.pid === pid && typeof state.log === 'string' ? state.log : undefined;
    };
    const started = await waitFor(() => stopped || (readPidFile(store.dir)?.pid === pid && runLog() !== undefined) || !isPidAlive(pid), 10_000);
    // a stop may have reached the run itself (the pid file named it): it ends with 143
    if (stopped || (!isPidAlive(pid) && (await ended) === EXIT.terminated)) {
      // the run got the signal: wait for it to release what it took
      await waitFor(() => !isPidAlive(pid), STOP_GRACE_MS);
      removeStalePidFile(store.dir, pid);
      return { exitCode: EXIT.terminated, stderr: [BACKGROUND.stoppedWhileStarting(pid)] };
    }
    if (!started || !isPidAlive(pid)) {
      removeStalePidFile(store.dir, pid);
      return { exitCode: EXIT.error, stderr: [BACKGROUND.exitedAtOnce(join('.helix-logs', 'helix-start.out'))] };
    }
    return { exitCode: EXIT.ok, stderr: [BACKGROUND.started(pid, runLog() ?? 'unknown')] };
  } finally {
    child?.unref(); // start ends now; the run goes on without it
    for (const [name, handler] of handlers) process.off(name, handler);
  }
}

/** Two turns of the event loop: the second has a poll phase, which delivers pending signals. */
function signalsDelivered(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
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
