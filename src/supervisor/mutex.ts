// The run mutex (contract §4): `.ddx/helix.pid` holds `<pid> <iso>`; a live pid means another run
// is active (exit 2), a dead pid's file is stale and replaced. Created with O_EXCL so two runs
// starting together cannot both win.
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { HelixError } from '../errors.js';
import { isPidAlive } from '../tracker/index.js';

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

/** The live run's pid file, removing a stale one on the way (returns undefined then). */
export function activeRun(trackerDir: string): PidFile | undefined {
  const current = readPidFile(trackerDir);
  if (!current) return undefined;
  if (isPidAlive(current.pid)) return current;
  return undefined;
}

export function acquireRunMutex(trackerDir: string, now: Date = new Date()): () => void {
  const file = pidFilePath(trackerDir);
  // A project without a tracker yet still gets a run (empty queue → check); the pid file needs a home.
  mkdirSync(trackerDir, { recursive: true });
  for (let tries = 0; tries < 3; tries++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, `${process.pid} ${now.toISOString()}\n`);
      closeSync(fd);
      return () => {
        if (readPidFile(trackerDir)?.pid === process.pid) {
          try {
            unlinkSync(file);
          } catch {
            // already removed
          }
        }
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readPidFile(trackerDir);
    if (holder && isPidAlive(holder.pid)) {
      throw new HelixError('runActive', `helix run: already running (pid=${holder.pid}, started=${holder.started})`);
    }
    try {
      unlinkSync(file); // stale: its pid is dead
    } catch {
      // someone else removed it first
    }
  }
  throw new HelixError('runActive', 'helix run: could not take the run lock');
}
