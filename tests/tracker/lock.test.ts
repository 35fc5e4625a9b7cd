import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { lockTimeoutMs, withLock } from '../../src/tracker/index.js';
import { PIDLESS_LOCK_GRACE_MS, staleLockReason } from '../../src/tracker/lock.js';
import { helix, tempDir, tempGitRepo } from '../helpers/cli.js';
import { deadPid, errorOf, jsonl } from './builders.js';
import { bead } from '../helpers/bead.js';

function plantLock(dir: string, pid: number | undefined, acquiredAt: Date = new Date()): string {
  const lockDir = join(dir, 'beads.lock');
  mkdirSync(lockDir, { recursive: true });
  if (pid !== undefined) writeFileSync(join(lockDir, 'pid'), `${pid}\n`);
  writeFileSync(join(lockDir, 'acquired_at'), `${acquiredAt.toISOString()}\n`);
  return lockDir;
}

describe('lockTimeoutMs', () => {
  it('reads DDX_BEAD_LOCK_TIMEOUT as seconds or a Go duration, default 10 s', () => {
    expect(lockTimeoutMs({})).toBe(10_000);
    expect(lockTimeoutMs({ DDX_BEAD_LOCK_TIMEOUT: '3' })).toBe(3000);
    expect(lockTimeoutMs({ DDX_BEAD_LOCK_TIMEOUT: '0.5' })).toBe(500);
    expect(lockTimeoutMs({ DDX_BEAD_LOCK_TIMEOUT: '250ms' })).toBe(250);
    expect(lockTimeoutMs({ DDX_BEAD_LOCK_TIMEOUT: '2s' })).toBe(2000);
    expect(lockTimeoutMs({ DDX_BEAD_LOCK_TIMEOUT: '1m' })).toBe(60_000);
    expect(lockTimeoutMs({ DDX_BEAD_LOCK_TIMEOUT: '1h' })).toBe(3_600_000);
  });

  it('refuses a value it cannot read or bound (exit 7) instead of silently waiting 10 s', () => {
    for (const bad of ['soon', '5 s', '99999999999999999999', '1000h']) {
      expect(() => lockTimeoutMs({ DDX_BEAD_LOCK_TIMEOUT: bad }), bad).toThrow(expect.objectContaining({ kind: 'validation' }));
    }
    expect(() => lockTimeoutMs({ DDX_BEAD_LOCK_TIMEOUT: 'soon' })).toThrow('helix: DDX_BEAD_LOCK_TIMEOUT must be a number of seconds or a Go duration (500ms, 10s, 1m30s) up to 2147483 s, got "soon"');
  });
});

describe('withLock', () => {
  it('holds <dir>/beads.lock with pid and acquired_at while working, and removes it after', () => {
    const dir = tempDir();
    const seen = withLock(dir, () => ({
      pid: readFileSync(join(dir, 'beads.lock', 'pid'), 'utf8'),
      acquiredAt: readFileSync(join(dir, 'beads.lock', 'acquired_at'), 'utf8'),
    }), {});
    expect(seen.pid).toBe(`${process.pid}\n`);
    expect(Math.abs(Date.parse(seen.acquiredAt.trim()) - Date.now())).toBeLessThan(60_000);
    expect(existsSync(join(dir, 'beads.lock'))).toBe(false);
  });

  it('releases the lock when the work throws', () => {
    const dir = tempDir();
    expect(() => withLock(dir, () => { throw new Error('boom'); }, {})).toThrow('boom');
    expect(existsSync(join(dir, 'beads.lock'))).toBe(false);
  });

  it('breaks a lock whose owner pid is dead', () => {
    const dir = tempDir();
    const pid = deadPid();
    plantLock(dir, pid);
    expect(staleLockReason(join(dir, 'beads.lock'), Date.now())).toBe(`owner pid ${pid} is dead`);
    expect(withLock(dir, () => readFileSync(join(dir, 'beads.lock', 'pid'), 'utf8'), {})).toBe(`${process.pid}\n`);
  });

  it('breaks a lock older than 2 h even when its pid is alive', () => {
    const dir = tempDir();
    plantLock(dir, process.pid, new Date(Date.now() - 2 * 3600_000 - 1000));
    expect(staleLockReason(join(dir, 'beads.lock'), Date.now())).toMatch(/^older than 2h/);
    expect(withLock(dir, () => 'got it', {})).toBe('got it');
  });

  it('respects a live, fresh lock and times out naming the owner pid', () => {
    const dir = tempDir();
    plantLock(dir, process.pid);
    const error = errorOf(() => withLock(dir, () => 'never', { DDX_BEAD_LOCK_TIMEOUT: '200ms' }));
    expect(error.exitCode).toBe(EXIT.lockTimeout);
    expect(error.message).toMatch(new RegExp(`^bead: lock timeout after 0.2s: .*beads\\.lock held by pid ${process.pid} since `));
    expect(readFileSync(join(dir, 'beads.lock', 'pid'), 'utf8')).toBe(`${process.pid}\n`);
  });

  it('a lock without a pid is respected for a short grace (its writer is about to record one), then broken — not after the full timeout', () => {
    const dir = tempDir();
    const lockDir = plantLock(dir, undefined, new Date(Date.now() - 5000));
    const now = Date.now();
    const at = (msAgo: number) => utimesSync(lockDir, (now - msAgo) / 1000, (now - msAgo) / 1000);
    at(0);
    expect(staleLockReason(lockDir, now)).toBeUndefined();
    at(PIDLESS_LOCK_GRACE_MS - 100);
    expect(staleLockReason(lockDir, now)).toBeUndefined();
    at(5000); // far below the 10 s default timeout a writer would otherwise wait out
    expect(staleLockReason(lockDir, now)).toBe('no owner pid recorded 5.0s after it was taken');
    expect(PIDLESS_LOCK_GRACE_MS).toBe(2000);
  });
});

describe('lock through the CLI', () => {
  it('a write waits for a live lock and fails with exit 5 naming the owner pid, file unchanged', () => {
    const repo = tempGitRepo();
    mkdirSync(join(repo, '.ddx'));
    const text = jsonl([bead({ id: 'a' })]);
    writeFileSync(join(repo, '.ddx', 'beads.jsonl'), text);
    plantLock(join(repo, '.ddx'), process.pid);
    const r = helix(['tracker', 'update', 'a', '--claim'], { cwd: repo, env: { DDX_BEAD_LOCK_TIMEOUT: '0.3' } });
    expect(r.status).toBe(EXIT.lockTimeout);
    expect(r.stderr).toMatch(new RegExp(`^bead: lock timeout after 0.3s: .*held by pid ${process.pid} since .*Z\\n$`));
    expect(readFileSync(join(repo, '.ddx', 'beads.jsonl'), 'utf8')).toBe(text);
  });

  it('a write breaks a dead pid lock and succeeds', () => {
    const repo = tempGitRepo();
    mkdirSync(join(repo, '.ddx'));
    writeFileSync(join(repo, '.ddx', 'beads.jsonl'), jsonl([bead({ id: 'a' })]));
    plantLock(join(repo, '.ddx'), deadPid());
    const r = helix(['tracker', 'update', 'a', '--claim'], { cwd: repo, env: { DDX_BEAD_LOCK_TIMEOUT: '5' } });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(existsSync(join(repo, '.ddx', 'beads.lock'))).toBe(false);
  });
});
