// The run mutex (docs/contract/cli.md §4): `.ddx/helix.pid` = `<pid> <iso>`; a live holder refuses with exit
// 2, a dead holder's file is replaced, release removes only our own file.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { EXIT, HelixError } from '../../../src/errors.js';
import { acquireRunMutex, activeRun, pidFilePath, readPidFile, removeStalePidFile } from '../../../src/supervisor/shell/mutex.js';
import { tempDir } from '../../helpers/cli.js';

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

  it('removing a stale file leaves it when it now names another run', () => {
    const dir = tempDir();
    const dead = deadPid();
    writeFileSync(pidFilePath(dir), `${process.pid} 2026-01-01T00:00:00Z\n`);
    removeStalePidFile(dir, dead);
    expect(readPidFile(dir)?.pid).toBe(process.pid);
    writeFileSync(pidFilePath(dir), `${dead} 2026-01-01T00:00:00Z\n`);
    removeStalePidFile(dir, dead);
    expect(existsSync(pidFilePath(dir))).toBe(false);
  });

  it('8 processes contending 150 times each: never two inside at once, and every refusal is exit-2 runActive', async () => {
    const dir = tempDir();
    const mutex = pathToFileURL(resolve('dist/supervisor/shell/mutex.js')).href;
    // Inside the mutex each worker creates `inside/` (mkdir fails if another holder is already in),
    // so a breach is seen by the process that suffers it, not inferred from timing.
    const worker = `
      import { mkdirSync, rmdirSync } from 'node:fs';
      import { join } from 'node:path';
      const { acquireRunMutex } = await import(${JSON.stringify(mutex)});
      const dir = process.argv[1];
      let entered = 0, refused = 0, breaches = 0, other = 0;
      for (let i = 0; i < 150; i++) {
        let release;
        try { release = acquireRunMutex(dir); } catch (e) { if (e.exitCode === 2) refused++; else other++; continue; }
        entered++;
        try { mkdirSync(join(dir, 'inside')); } catch { breaches++; release(); continue; }
        for (let spin = 0; spin < 2000; spin++) Math.sqrt(spin);
        rmdirSync(join(dir, 'inside'));
        release();
      }
      process.stdout.write(JSON.stringify({ entered, refused, breaches, other }));`;
    const runs = Array.from({ length: 8 }, () =>
      new Promise<{ entered: number; refused: number; breaches: number; other: number }>((done, fail) => {
        const child = spawn(process.execPath, ['--input-type=module', '-e', worker, dir]);
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => process.stderr.write(d));
        child.on('error', fail);
        child.on('close', () => done(JSON.parse(out)));
      }),
    );
    const results = await Promise.all(runs);
    const total = results.reduce((sum, r) => ({
      entered: sum.entered + r.entered, refused: sum.refused + r.refused, breaches: sum.breaches + r.breaches, other: sum.other + r.other,
    }));
    expect(total.breaches).toBe(0);
    expect(total.other).toBe(0);
    expect(total.entered + total.refused).toBe(8 * 150);
    expect(total.entered).toBeGreaterThan(0);
    expect(total.refused).toBeGreaterThan(0);
    expect(existsSync(pidFilePath(dir))).toBe(false);
  }, 120_000);
});
