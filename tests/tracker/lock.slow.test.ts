// The lock under stress (npm run test:slow): many real processes planting abandoned locks and
// taking the lock, for as long as it takes to show that no two writers ever get in at once.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { deadPid } from './builders.js';

describe('withLock under stress', () => {
  it('many waiters breaking abandoned locks never let two writers in at once', async () => {
    // Each worker alternates: plant an abandoned lock (dead pid), then take the lock for a critical
    // section guarded by an exclusively-created marker. Before the break guard, a waiter that judged
    // one dead lock stale could remove the next, live lock, and two writers got in.
    const dir = tempDir();
    const pid = deadPid();
    const worker = join(import.meta.dirname, 'workers', 'lock-breaker.mjs');
    const runs = await Promise.all(
      Array.from({ length: 6 }, () =>
        new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
          const child = spawn(process.execPath, [worker, dir, '150', String(pid)]);
          let out = '';
          let err = '';
          child.stdout.on('data', (d) => (out += d));
          child.stderr.on('data', (d) => (err += d));
          child.on('close', (code) => resolve({ code, out, err }));
        }),
      ),
    );
    for (const run of runs) {
      expect(run.err).toBe('');
      expect(run.code).toBe(0);
      expect(JSON.parse(run.out).violations).toBe(0);
    }
    expect(runs.reduce((sum, r) => sum + JSON.parse(r.out).planted, 0)).toBeGreaterThan(100);
    expect(existsSync(join(dir, 'beads.lock'))).toBe(false);
  });
});
