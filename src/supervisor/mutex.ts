// The run mutex (docs/contract/cli.md §4): `.ddx/helix.pid` holds `<pid> <iso>`; a live pid means another run
// is active (exit 2), a dead pid's file is stale and replaced.
import { mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import { writeFileAtomically } from '../atomic-write.js';
import { join } from 'node:path';
import { HelixError } from '../errors.js';
import { withLock } from '../tracker/lock.js';
import { isPidAlive } from '../tracker/process.js';
import { RUN } from './lines.js';

export const pidFilePath = (trackerDir: string) => join(trackerDir, 'helix.pid');

export interface PidFile {
  pid: number;
  started: string;
}

export function readPidFile(trackerDir: string): PidFile | undefined {
  try {
    const [pid, started] = readFileSync(pidFilePath(trackerDir), 'utf8').trim().split(/\s+/);
    const value = Number(pid);
    return Number.isInteger(value) && value > 0 ? { pid: value, started: started ?? '' } : undefined;
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

export function acquireRunMutex(trackerDir: string, now: Date = new Date()): () => void {
  const file = pidFilePath(trackerDir);
  // A project without a tracker yet still gets a run (empty queue → check); the pid file needs a home.
  mkdirSync(trackerDir, { recursive: true });
  // Check-then-write under the tracker lock, so two runs starting together cannot both judge the
  // file absent or stale; the file appears whole (temp + rename), so a reader never sees it empty.
  withLock(trackerDir, () => {
    const holder = activeRun(trackerDir);
    if (holder) {
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
