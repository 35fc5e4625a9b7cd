// The tracker's write lock, compatible with the one DDx takes on the same file: a directory
// `<dir>/beads.lock` created with mkdir (atomic), holding the files `pid` and `acquired_at`.
// Waiters poll every 50 ms up to DDX_BEAD_LOCK_TIMEOUT (10 s). A lock is broken when its owner
// pid is dead on this host or it is older than 2 h.
//
// Why not proper-lockfile: it judges staleness by the lock's mtime (refreshing it on a timer) and
// writes no pid/acquired_at, so it would break a lock DDx holds for longer than its stale window
// and DDx could not tell who holds ours.
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HelixError } from '../errors.js';
import { isPidAlive, sleepSync } from './process.js';
import { MAX_TIMER_SECONDS, parseNumber } from '../numbers.js';

export const LOCK_DIR_NAME = 'beads.lock';
export const LOCK_POLL_MS = 50;
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
/** DDx treats a lock older than two hours as abandoned whatever its pid says. */
export const LOCK_MAX_AGE_MS = 2 * 60 * 60 * 1000;

export interface LockOwner {
  pid: number | undefined;
  acquiredAt: Date | undefined;
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * DDX_BEAD_LOCK_TIMEOUT: seconds ("10", "2.5") or a duration ("500ms", "10s", "1m", "1h"), as DDx
 * reads it, up to 24.8 days; unset → 10 s. Where DDx falls back to 10 s on a value it cannot read,
 * helix refuses it (exit 7): a typo should not silently mean ten seconds.
 */
export function lockTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.DDX_BEAD_LOCK_TIMEOUT?.trim();
  if (!raw) return DEFAULT_LOCK_TIMEOUT_MS;
  const [, number = raw, unit] = /^(.*?)(ms|s|m|h)?$/.exec(raw) ?? [];
  const scale = UNIT_MS[unit ?? 's'] ?? 1000;
  const name = `DDX_BEAD_LOCK_TIMEOUT (${unit ? `in ${unit}` : 'seconds, or with ms/s/m/h'})`;
  return parseNumber(name, number, { min: 0, max: Math.floor((MAX_TIMER_SECONDS * 1000) / scale), fraction: true }) * scale;
}

export function readLockOwner(lockDir: string): LockOwner {
  const read = (name: string): string | undefined => {
    try {
      return readFileSync(join(lockDir, name), 'utf8').trim();
    } catch {
      return undefined;
    }
  };
  const pidText = read('pid');
  const acquiredText = read('acquired_at');
  const pid = pidText && /^\d+$/.test(pidText) ? Number(pidText) : undefined;
  const acquired = acquiredText ? new Date(acquiredText) : undefined;
  return { pid, acquiredAt: acquired && !Number.isNaN(acquired.getTime()) ? acquired : undefined };
}

/**
 * How long a lock may lack its `pid` file. helix and DDx (0.6.1 and current) both write it right
 * after the mkdir — microseconds apart, behind only DDx's owner_token — so a lock still without
 * one seconds later lost its writer in between (killed, disk full) and would otherwise block every
 * writer for the full timeout, every time. DDx itself never breaks such a lock before 2 h, so this
 * grace only has to outlast a writer's own mkdir-to-pid gap, with room for a loaded machine.
 */
export const PIDLESS_LOCK_GRACE_MS = 2000;

/** Why an existing lock may be broken, or undefined while it must be respected. */
export function staleLockReason(lockDir: string, now: number): string | undefined {
  let createdMs: number;
  try {
    createdMs = statSync(lockDir).mtimeMs;
  } catch {
    return undefined; // gone already: the next mkdir will tell
  }
  const owner = readLockOwner(lockDir);
  const acquiredMs = owner.acquiredAt?.getTime() ?? createdMs;
  if (now - acquiredMs > LOCK_MAX_AGE_MS) return `older than 2h (acquired ${new Date(acquiredMs).toISOString()})`;
  if (owner.pid !== undefined) return isPidAlive(owner.pid) ? undefined : `owner pid ${owner.pid} is dead`;
  // mtime moves with every file the writer adds, so this counts from its last sign of life
  if (now - createdMs > PIDLESS_LOCK_GRACE_MS) return `no owner pid recorded ${((now - createdMs) / 1000).toFixed(1)}s after it was taken`;
  return undefined;
}

/**
 * Runs `work` while holding the lock. The lock is released even when `work` throws.
 * Throws HelixError('lockTimeout') naming the owner pid when the wait runs out.
 */
export function withLock<T>(dir: string, work: () => T, env: NodeJS.ProcessEnv = process.env): T {
  const lockDir = join(dir, LOCK_DIR_NAME);
  const timeoutMs = lockTimeoutMs(env);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (tryAcquire(lockDir)) break;
    const seen = lockIdentity(lockDir);
    const reason = staleLockReason(lockDir, Date.now());
    if (reason && seen) {
      breakLock(lockDir, seen);
      continue;
    }
    if (Date.now() >= deadline) {
      const owner = readLockOwner(lockDir);
      throw new HelixError(
        'lockTimeout',
        `bead: lock timeout after ${timeoutMs / 1000}s: ${lockDir} held by pid ${owner.pid ?? 'unknown'}` +
          (owner.acquiredAt ? ` since ${owner.acquiredAt.toISOString()}` : ''),
      );
    }
    sleepSync(LOCK_POLL_MS);
  }
  try {
    return work();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

function tryAcquire(lockDir: string): boolean {
  try {
    mkdirSync(lockDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  writeFileSync(join(lockDir, 'pid'), `${process.pid}\n`);
  writeFileSync(join(lockDir, 'acquired_at'), `${new Date().toISOString()}\n`);
  return true;
}

/** What makes one lock directory distinct from a later one at the same path. */
interface LockIdentity {
  ino: number;
  pid: string | undefined;
  acquiredAt: string | undefined;
}

function lockIdentity(lockDir: string): LockIdentity | undefined {
  try {
    const { ino } = statSync(lockDir);
    const owner = readLockOwner(lockDir);
    return { ino, pid: owner.pid?.toString(), acquiredAt: owner.acquiredAt?.toISOString() };
  } catch {
    return undefined;
  }
}

const sameLock = (a: LockIdentity | undefined, b: LockIdentity): boolean =>
  a !== undefined && a.ino === b.ino && a.pid === b.pid && a.acquiredAt === b.acquiredAt;

/** A breaker holds the break guard for microseconds; one older than this crashed while breaking. */
const BREAK_GUARD_MAX_AGE_MS = 10_000;

/**
 * Breaks the stale lock `judged`. Two waiters can judge the same dead lock stale; if the first
 * breaks it and takes a fresh lock before the second acts, a plain rename by the second would
 * remove the fresh, live lock and let two writers in. So breakers take a guard directory and, under
 * it, break the lock only if it is still the very one judged stale (same inode, pid, acquired_at).
 */
function breakLock(lockDir: string, judged: LockIdentity): void {
  const guard = `${lockDir}.break`;
  try {
    mkdirSync(guard);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    removeAbandonedGuard(guard);
    sleepSync(1); // another waiter is breaking it; look again
    return;
  }
  try {
    if (!sameLock(lockIdentity(lockDir), judged)) return; // already broken (and maybe re-taken)
    const aside = `${lockDir}.stale-${process.pid}-${Date.now()}`;
    try {
      renameSync(lockDir, aside);
    } catch {
      return; // released meanwhile
    }
    rmSync(aside, { recursive: true, force: true });
  } finally {
    rmSync(guard, { recursive: true, force: true });
  }
}

function removeAbandonedGuard(guard: string): void {
  try {
    if (Date.now() - statSync(guard).mtimeMs > BREAK_GUARD_MAX_AGE_MS) rmSync(guard, { recursive: true, force: true });
  } catch {
    // gone already
  }
}
