// `helix log [-f]`: the current (or last) run's event log, found through run-state's `events`
// key. Without -f: its events as lines. With -f: follows it as it grows, each event with the run's
// progress (bead n of m, elapsed, spend), until the run's stop event — or until the run's process
// is gone without one (killed), or the reader is interrupted.
import { readFileSync } from 'node:fs';
import { isPidAlive } from '../../tracker/index.js';
import { HelixError } from '../../errors.js';
import type { HelixEvent } from '../core/run-events.js';
import { NO_PROGRESS, eventText, progressAfter, progressText } from '../text/log.js';
import { followEvents, parseEvents } from './events.js';
import type { CommandResult } from './output.js';
import { openStore } from './project.js';
import { readRunState } from './run-state.js';

/** The event file of the current or last run, from run-state; `command` words the refusal when there is none. */
export function currentEventLog(cwd: string, env: NodeJS.ProcessEnv, command = 'helix log'): string {
  return currentRun(cwd, env, command).events;
}

function currentRun(cwd: string, env: NodeJS.ProcessEnv, command = 'helix log'): { events: string; pid: number | undefined } {
  const { store } = openStore(cwd, env);
  const state = readRunState(store.dir);
  const events = state?.events;
  if (typeof events !== 'string' || events === '') throw new HelixError('notFound', `${command}: no run has written an event log here yet (run \`helix run\` first)`);
  return { events, pid: typeof state?.run_pid === 'number' ? state.run_pid : undefined };
}

/** `helix log`: every event of the run so far, one line each. */
export function printLog(cwd: string, env: NodeJS.ProcessEnv): CommandResult {
  const path = currentEventLog(cwd, env);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new HelixError('notFound', `helix log: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return { exitCode: 0, stdout: parseEvents(text).events.map(eventText) };
}

/**
 * `helix log -f`: prints `[<progress>] <event>` for each event until the run stops; resolves with
 * 0 when the stop event came, 1 when the run's process died without one.
 */
export async function followLog(cwd: string, env: NodeJS.ProcessEnv, print: (line: string) => void, signal: AbortSignal, pollMs = 250): Promise<number> {
  const { events: path, pid } = currentRun(cwd, env);
  const until = new AbortController();
  const stopAll = () => until.abort();
  signal.addEventListener('abort', stopAll, { once: true });
  // the run's pid from run-state until its run_start event is read
  let progress = { ...NO_PROGRESS, pid };
  // a run killed without its stop event: checked on every poll through the follower's own wait
  const watch = setInterval(() => {
    if (progress.pid !== undefined && !progress.stopped && !isPidAlive(progress.pid)) until.abort();
  }, pollMs);
  try {
    for await (const event of followEvents(path, { signal: until.signal, pollMs })) {
      progress = progressAfter(progress, event as HelixEvent);
      print(`[${progressText(progress, Date.parse(event.t))}] ${eventText(event)}`);
      if (progress.stopped) until.abort();
    }
  } finally {
    clearInterval(watch);
    signal.removeEventListener('abort', stopAll);
  }
  if (progress.stopped || signal.aborted) return 0;
  print(`helix log: the run (pid ${progress.pid ?? '?'}) ended without a stop event`);
  return 1;
}
