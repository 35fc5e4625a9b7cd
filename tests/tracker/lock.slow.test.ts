// The lock under stress (npm run test:slow): many real processes planting abandoned locks and
// taking the lock, for as long as it takes to show that no two writers ever get in at once.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess, tempDir } from '../helpers/cli.js';
import { deadPid } from './builders.js';

describe('withLock under stress', () => {
  it('many waiters breaking abandoned locks never let two writers in at once', async () => {
    // Each worker alternates: plant an abandoned lock (dead pid), then take the lock for a critical
    // section guarded by an exclusively-created marker. Before the break guard, a waiter that judged
    // one dead lock stale could remove the next, live lock, and two writers got in.
    const dir = tempDir();
    const pid = deadPid();
    const worker = join(import.meta.dirname, 'workers', 'lock-breaker.mjs');
    const runs = await Promise.all(Array.from({ length: 6 }, () => runProcess(process.execPath, [worker, dir, '150', String(pid)], dir)));
    for (const run of runs) {
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout).violations).toBe(0);
    }
    expect(runs.reduce((sum, r) => sum + JSON.parse(r.stdout).planted, 0)).toBeGreaterThan(100);
    expect(existsSync(join(dir, 'beads.lock'))).toBe(false);
  });
});
