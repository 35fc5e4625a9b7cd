// The tracker's write lock, compatible with the one DDx takes on the same file: a directory
// `<dir>/beads.lock` created with mkdir (atomic), holding `owner_token`, `pid` and `acquired_at`
// (DDx ae663ca012 cli/internal/bead/lock.go writeCollectionLockMetadata). Waiters poll every
// 50 ms up to DDX_BEAD_LOCK_TIMEOUT, a Go duration (default 10 s). A lock is broken when its owner
// pid is dead on this host or it is older than 2 h. Release removes the lock only while it still
// carries this holder's owner token, as current DDx does (releaseDirLockObserved).
//
// Breaking a stale lock is serialised with DDx's breakers through the same advisory lock DDx
// takes: flock(2) on `<dir>/beads.lock.stale-break.lock` (lock_stale_guard_unix.go). Node has no
// flock, so helix runs util-linux `flock -n 3` on an inherited descriptor: the lock belongs to
// the open file description, outlives the short-lived child and is released when helix closes
// its descriptor. Where flock(1) is missing, a `beads.lock.break` directory serialises helix's
// own breakers only (said once on stderr).
//
// Why not proper-lockfile: it judges staleness by the lock's mtime (refreshing it on a timer) and
// writes no pid/acquired_at, so it would break a lock DDx holds for longer than its stale window
// and DDx could not tell who holds ours.
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { HelixError } from '../errors.js';
import { isPidAlive, sleepSync } from './process.js';
import { MAX_TIMER_SECONDS, quoted } from '../numbers.js';

// node:child_process and node:crypto are loaded when a lock is taken or broken, not when this
// module is: every read-only command (status, ready) loads the store and so this file, and the
// two modules cost it several milliseconds of start-up (npm run bench:start).
const load = createRequire(import.meta.url);
const randomBytes = (size: number): Buffer => (load('node:crypto') as typeof import('node:crypto')).randomBytes(size);
const childProcess = (): typeof import('node:child_process') => load('node:child_process') as typeof import('node:child_process');

export const LOCK_DIR_NAME = 'beads.lock';
export const LOCK_POLL_MS = 50;
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
/** DDx treats a lock older than two hours as abandoned whatever its pid says. */
export const LOCK_MAX_AGE_MS = 2 * 60 * 60 * 1000;

export interface LockOwner {
  pid: number | undefined;
  acquiredAt: Date | undefined;
}

const GO_UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PLAIN_SECONDS = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const GO_DURATION = /^([+-]?)((?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+)$/;

/**
 * A duration the way DDx reads it (store.go parseDurationOr): a plain number is seconds
 * (strconv.ParseFloat), else a Go duration such as `500ms`, `10s` or `1m30s`
 * (time.ParseDuration). Returns milliseconds, or undefined when it is neither.
 */
export function parseGoDurationMs(text: string): number | undefined {
  const raw = text.trim();
  if (PLAIN_SECONDS.test(raw)) return Number(raw) * 1000;
  if (raw === '0') return 0;
  const match = GO_DURATION.exec(raw);
  if (!match) return undefined;
  let total = 0;
  for (const [, value, unit] of (match[2] ?? '').matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += Number(value) * (GO_UNIT_MS[unit ?? 's'] ?? 0);
  }
  return match[1] === '-' ? -total : total;
}

/**
 * DDX_BEAD_LOCK_TIMEOUT in ms, read as DDx reads it: seconds or a Go duration; negative means one
 * try. Where DDx falls back to 10 s on a value it cannot read, helix refuses it (exit 7): a typo
 * should not silently mean ten seconds. Above 24.8 days is refused too (no timer holds it).
 */
export function lockTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.DDX_BEAD_LOCK_TIMEOUT?.trim();
  if (!raw) return DEFAULT_LOCK_TIMEOUT_MS;
  const ms = parseGoDurationMs(raw);
  const limitMs = MAX_TIMER_SECONDS * 1000;
  if (ms === undefined || Number.isNaN(ms) || ms > limitMs) {
    throw new HelixError('validation', `helix: DDX_BEAD_LOCK_TIMEOUT must be a number of seconds or a Go duration (500ms, 10s, 1m30s) up to ${MAX_TIMER_SECONDS} s, got ${quoted(raw)}`);
  }
  return Math.max(0, ms);
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
  const token = randomBytes(32).toString('hex');
  for (;;) {
    if (tryAcquire(lockDir, token)) break;
    const seen = lockIdentity(lockDir);
    const reason = staleLockReason(lockDir, Date.now());
    // A broken lock is retried at once; one another breaker is working on waits like any lock.
    if (reason && seen && breakLock(lockDir, seen)) continue;
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
    releaseLock(lockDir, token);
  }
}

function tryAcquire(lockDir: string, token: string): boolean {
  try {
    mkdirSync(lockDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  // DDx's order: the token first, so a release can always tell whose lock this is.
  writeFileSync(join(lockDir, OWNER_TOKEN_FILE), token, { mode: 0o600 });
  writeFileSync(join(lockDir, 'pid'), `${process.pid}\n`);
  writeFileSync(join(lockDir, 'acquired_at'), `${new Date().toISOString().replace(/\.\d+Z$/, 'Z')}\n`);
  return true;
}

export const OWNER_TOKEN_FILE = 'owner_token';

/**
 * Removes the lock only while it still carries our token: a lock that was broken as stale and
 * re-taken by another writer (helix or DDx) is theirs now. Renamed aside first, as DDx does, so
 * the canonical path is never half-removed.
 */
export function releaseLock(lockDir: string, token: string): boolean {
  let current: string;
  try {
    current = readFileSync(join(lockDir, OWNER_TOKEN_FILE), 'utf8').trim();
  } catch {
    return false; // gone, or not ours to judge
  }
  if (current !== token) return false;
  const aside = `${lockDir}.tombstone.${process.pid}-${Date.now()}-${randomBytes(3).toString('hex')}.lock`;
  try {
    renameSync(lockDir, aside);
  } catch {
    return false;
  }
  rmSync(aside, { recursive: true, force: true });
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

/** A breaker holds the fallback guard for microseconds; one older than this crashed while breaking. */
const BREAK_GUARD_MAX_AGE_MS = 10_000;

/** DDx's stale-break advisory lock file (staleLockBreakGuardPath). */
export const staleBreakGuardPath = (lockDir: string) => `${lockDir}.stale-break.lock`;

let flockMissing = false;

/**
 * Takes DDx's stale-break guard without waiting: flock(2) LOCK_EX|LOCK_NB on the guard file, set
 * by `flock -n 3` on a descriptor the child inherits. Returns the descriptor to close (which
 * releases it), `busy` when another breaker holds it, or `unavailable` without flock(1).
 */
export function tryStaleBreakGuard(lockDir: string): number | 'busy' | 'unavailable' {
  if (flockMissing) return 'unavailable';
  const fd = openSync(staleBreakGuardPath(lockDir), 'a+', 0o600);
  const r = childProcess().spawnSync('flock', ['-n', '3'], { stdio: ['ignore', 'ignore', 'ignore', fd] });
  if (r.error) {
    closeSync(fd);
    if ((r.error as NodeJS.ErrnoException).code === 'ENOENT') {
      flockMissing = true;
      process.stderr.write('helix: warning: flock(1) not found; breaking a stale tracker lock is not serialised with DDx\n');
      return 'unavailable';
    }
    throw r.error;
  }
  if (r.status === 0) return fd;
  closeSync(fd);
  return 'busy';
}

/**
 * Breaks the stale lock `judged`. Two waiters can judge the same dead lock stale; if the first
 * breaks it and takes a fresh lock before the second acts, a plain rename by the second would
 * remove the fresh, live lock and let two writers in. So breakers hold the stale-break guard
 * (shared with DDx) and, under it, break the lock only if it is still the very one judged stale
 * (same inode, pid, acquired_at).
 */
function breakLock(lockDir: string, judged: LockIdentity): boolean {
  const guard = tryStaleBreakGuard(lockDir);
  if (guard === 'busy') return false; // another breaker (helix or DDx) is at it
  const release = guard === 'unavailable' ? takeFallbackGuard(lockDir) : () => closeSync(guard);
  if (!release) return false;
  try {
    if (!sameLock(lockIdentity(lockDir), judged)) return true; // already broken (and maybe re-taken): look again
    const aside = `${lockDir}.tombstone.${process.pid}-${Date.now()}-${randomBytes(3).toString('hex')}.lock`;
    try {
      renameSync(lockDir, aside);
    } catch {
      return true; // released meanwhile
    }
    rmSync(aside, { recursive: true, force: true });
    return true;
  } finally {
    release();
  }
}

/** Without flock(1): a `beads.lock.break` directory serialises helix's breakers among themselves. */
function takeFallbackGuard(lockDir: string): (() => void) | undefined {
  const guard = `${lockDir}.break`;
  try {
    mkdirSync(guard);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    removeAbandonedGuard(guard);
    return undefined;
  }
  return () => rmSync(guard, { recursive: true, force: true });
}

function removeAbandonedGuard(guard: string): void {
  try {
    if (Date.now() - statSync(guard).mtimeMs > BREAK_GUARD_MAX_AGE_MS) rmSync(guard, { recursive: true, force: true });
  } catch {
    // gone already
  }
}
