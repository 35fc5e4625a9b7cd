// Test worker: hammers the tracker lock while planting abandoned locks (a dead pid) between its own
// critical sections, so waiters keep breaking stale locks. Mutual exclusion is checked with a marker
// file created exclusively inside the critical section. Exits 3 on a violation.
// Usage: node lock-breaker.mjs <dir> <iterations> <dead pid> [tracker module, default dist/tracker/index.js]
import { mkdirSync, openSync, closeSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, iterationsText, deadPid, trackerModule] = process.argv.slice(2);
const { withLock } = await import(trackerModule ?? new URL('../../../dist/tracker/index.js', import.meta.url).href);
const lockDir = join(dir, 'beads.lock');
const inside = join(dir, 'inside');
let violations = 0;
let planted = 0;

for (let i = 0; i < Number(iterationsText); i++) {
  // Act as a holder that took the lock and died: mkdir (atomic, like a real acquire), then the dead
  // pid written last, since from that moment a waiter may break the lock and any later write of
  // ours could land in the next holder's lock.
  try {
    mkdirSync(lockDir);
    writeFileSync(join(lockDir, 'acquired_at'), `${new Date().toISOString()}\n`);
    writeFileSync(join(lockDir, 'pid'), `${deadPid}\n`);
    planted++;
  } catch {
    // held by someone: fine
  }
  withLock(dir, () => {
    let fd;
    try {
      fd = openSync(inside, 'wx');
    } catch {
      violations++;
      return;
    }
    closeSync(fd);
    for (let spin = Date.now(); Date.now() - spin < 1; );
    unlinkSync(inside);
  }, { DDX_BEAD_LOCK_TIMEOUT: '20' });
}
process.stdout.write(JSON.stringify({ violations, planted }) + '\n');
process.exit(violations ? 3 : 0);
