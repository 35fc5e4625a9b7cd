// The run mutex (contract §4): `.ddx/helix.pid` = `<pid> <iso>`; a live holder refuses with exit
// 2, a dead holder's file is replaced, release removes only our own file.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT, HelixError } from '../../src/errors.js';
import { acquireRunMutex, activeRun, pidFilePath, readPidFile } from '../../src/supervisor/mutex.js';
import { tempDir } from '../helpers/cli.js';

const deadPid = () => spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' }).pid as number;

describe('run mutex', () => {
  it('writes `<pid> <iso>` and removes it on release', () => {
    const dir = tempDir();
    const release = acquireRunMutex(dir, new Date('2026-03-01T00:00:00Z'));
    expect(readFileSync(pidFilePath(dir), 'utf8')).toBe(`${process.pid} 2026-03-01T00:00:00.000Z\n`);
    expect(activeRun(dir)).toEqual({ pid: process.pid, started: '2026-03-01T00:00:00.000Z' });
    release();
    expect(existsSync(pidFilePath(dir))).toBe(false);
  });

  it('refuses while a live run (here: this test process) holds it, with the contract message and exit code 2', () => {
    const dir = tempDir();
    writeFileSync(pidFilePath(dir), `${process.pid} 2026-01-01T00:00:00Z\n`);
    let error: unknown;
    try {
      acquireRunMutex(dir);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(HelixError);
    expect((error as HelixError).message).toBe(`helix run: already running (pid=${process.pid}, started=2026-01-01T00:00:00Z)`);
    expect((error as HelixError).exitCode).toBe(EXIT.runActive);
    expect(EXIT.runActive).toBe(2);
  });

  it('replaces a dead run’s stale file', () => {
    const dir = tempDir();
    const dead = deadPid();
    writeFileSync(pidFilePath(dir), `${dead} 2026-01-01T00:00:00Z\n`);
    expect(activeRun(dir)).toBeUndefined();
    const release = acquireRunMutex(dir);
    expect(readPidFile(dir)?.pid).toBe(process.pid);
    release();
  });

  it('creates the tracker folder when a project has none yet', () => {
    const dir = join(tempDir(), '.ddx');
    const release = acquireRunMutex(dir);
    expect(readPidFile(dir)?.pid).toBe(process.pid);
    release();
  });

  it('release leaves a file that another run wrote meanwhile', () => {
    const dir = tempDir();
    const release = acquireRunMutex(dir);
    writeFileSync(pidFilePath(dir), `${deadPid()} 2026-01-01T00:00:00Z\n`);
    release();
    expect(existsSync(pidFilePath(dir))).toBe(true);
  });
});
