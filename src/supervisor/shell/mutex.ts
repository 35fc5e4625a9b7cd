// The run mutex (docs/contract/cli.md §4): `.ddx/helix.pid` holds `<pid> <iso>`; a live pid means another run
// is active (exit 2), a dead pid's file is stale and replaced.
import { mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import { writeFileAtomically } from '../../atomic-write.js';
import { join } from 'node:path';
import { HelixError } from '../../errors.js';
import { withLock } from '../../tracker/lock.js';
import { isPidAlive } from '../../tracker/process.js';
import { RUN } from '../text/lines.js';

export const pidFilePath = (trackerDir: string) => join(trackerDir, 'helix.pid');

/** The third word of a pid file `helix start` wrote in its own name. */
const RESERVED = 'starting';

export interface PidFile {
  pid: number;
  started: string;
  /** Written by `helix start` for the run it is starting (the file names start itself). */
  reserved?: boolean;
}

export function readPidFile(trackerDir: string): PidFile | undefined {
  try {
    const [pid, started, mark] = readFileSync(pidFilePath(trackerDir), 'utf8').trim().split(/\s+/);
    const value = Number(pid);
    return Number.isInteger(value) && value > 0 ? { pid: value, started: started ?? '', ...(mark === RESERVED ? { reserved: true } : {}) } : undefined;
  } catch {
    return undefined;
  }
}

/** The live run's pid file; undefined when there is none or its pid is dead (a stale file). */
export function activeRun(trackerDir: string): PidFile | undefined {
  const current = readPidFile(trackerDir);
  return current && isPidAlive(current.pid) ? current : undefined;
}

/**
 * Removes the pid file of a run that is gone, if it still names that run. Under the tracker lock,
 * so it cannot remove the file a new run wrote in between. Best effort: a busy lock leaves it.
 */
export function removeStalePidFile(trackerDir: string, deadPid: number): void {
  try {
    withLock(trackerDir, () => {
      if (readPidFile(trackerDir)?.pid === deadPid) unlinkSync(pidFilePath(trackerDir));
    });
  } catch {
    // removed already, or the lock is busy: the next reader judges it stale again
  }
}

/**
 * `helix start` takes the pid file in its own name before it starts the run, so a `helix stop`
 * that comes while the run is still starting finds it (and start passes the SIGTERM on);
 * handOverPidFile then names the run. Refused (exit 2) while another run is active.
 */
export function reservePidFile(trackerDir: string, now: Date = new Date()): void {
  mkdirSync(trackerDir, { recursive: true });
  withLock(trackerDir, () => {
    const holder = activeRun(trackerDir);
    if (holder) throw new HelixError('runActive', RUN.alreadyRunning(holder.pid, holder.started));
    writeFileAtomically(pidFilePath(trackerDir), `${process.pid} ${now.toISOString()} ${RESERVED}\n`);
  });
}

/** Names `to` in the pid file `from` reserved (nothing happens when it no longer names `from`). */
export function handOverPidFile(trackerDir: string, from: number, to: number | undefined): void {
  withLock(trackerDir, () => {
    const current = readPidFile(trackerDir);
    if (current?.pid !== from) return;
    if (to === undefined) unlinkSync(pidFilePath(trackerDir));
    else writeFileAtomically(pidFilePath(trackerDir), `${to} ${current.started} ${RESERVED}\n`);
  });
}

export function acquireRunMutex(trackerDir: string, now: Date = new Date()): () => void {
  const file = pidFilePath(trackerDir);
  // A project without a tracker yet still gets a run (empty queue → check); the pid file needs a home.
  mkdirSync(trackerDir, { recursive: true });
  // Check-then-write under the tracker lock, so two runs starting together cannot both judge the
  // file absent or stale; the file appears whole (temp + rename), so a reader never sees it empty.
  withLock(trackerDir, () => {
    const holder = activeRun(trackerDir);
    // the file `helix start` reserved for this very run (naming start, or already this run) is ours
    if (holder && !(holder.reserved && (holder.pid === process.pid || holder.pid === process.ppid))) {
      throw new HelixError('runActive', RUN.alreadyRunning(holder.pid, holder.started));
    }
    writeFileAtomically(file, `${process.pid} ${now.toISOString()}\n`);
  });
  return () => {
    // Only this run's own file: nobody replaces it while this pid is alive.
    if (readPidFile(trackerDir)?.pid !== process.pid) return;
    try {
      unlinkSync(file);
    } catch {
      // already removed
    }
  };
}
