// Process facts the tracker needs: is a pid alive on this host, which host is this, and a
// synchronous sleep for lock polling (tracker writes are synchronous critical sections).
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** The largest pid there can be: Linux's ceiling (PID_MAX_LIMIT, 2^22); other systems stay below it. */
export const MAX_PID = 4_194_304;

/**
 * Whether a process with this pid runs. kill(pid, 0) also succeeds on a zombie — a process that
 * exited and waits for its parent to reap it, which a late-reaping init can leave for seconds or
 * for good — so a zombie (state Z or X in /proc/<pid>/stat) counts as dead. Without /proc (not
 * Linux) the kill answer stands.
 */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return !isZombie(pid);
}

/** True when /proc says the process has exited and only waits to be reaped (state Z, or X). */
export function isZombie(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return false; // no /proc here, or the process is gone: kill(2) has the answer
  }
  // the command name (field 2) may hold spaces and parentheses: the state follows the last ')'
  const state = stat[stat.lastIndexOf(')') + 2];
  return state === 'Z' || state === 'X';
}

export function thisMachine(): string {
  return hostname();
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

export function sleepSync(ms: number): void {
  if (ms > 0) Atomics.wait(sleeper, 0, 0, ms);
}
