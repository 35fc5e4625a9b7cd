// Process facts the tracker needs: is a pid alive on this host, which host is this, and a
// synchronous sleep for lock polling (tracker writes are synchronous critical sections).
import { hostname } from 'node:os';

/** The largest pid there can be: Linux's ceiling (PID_MAX_LIMIT, 2^22); other systems stay below it. */
export const MAX_PID = 4_194_304;

export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function thisMachine(): string {
  return hostname();
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

export function sleepSync(ms: number): void {
  if (ms > 0) Atomics.wait(sleeper, 0, 0, ms);
}
