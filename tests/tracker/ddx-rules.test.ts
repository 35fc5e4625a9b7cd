// The tracker against DDx's own rules (issue #15): its lifecycle, what its next rewrite would
// damage, its lock (Go durations, owner token, the stale-break flock), its claims (heartbeat keys,
// worker lease files) and claim liveness beyond a bare pid (issue #12 item 6). Each rule's source
// is named in the src/tracker module that implements it.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.js';
import {
  leaseDir,
  lockTimeoutMs,
  parseGoDurationMs,
  processStartOf,
  releaseLock,
  staleBreakGuardPath,
  staleClaimOf,
  tryStaleBreakGuard,
  withLock,
} from '../../src/tracker/index.js';
import { type CliResult, helix, tempDir, tempGitRepo } from '../helpers/cli.js';
import { deadPid, jsonl, readBeadsFile, writeBeadsFile } from './builders.js';
import { bead } from '../helpers/bead.js';

function tracker(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): CliResult {
  return helix(['tracker', ...args], { cwd, env: { TMPDIR: join(cwd, '..', `${cwd.split('/').pop()}-tmp`), ...env } });
}

function repoWith(beads: object[]): string {
  const repo = tempGitRepo();
  writeBeadsFile(repo, jsonl(beads));
  mkdirSync(join(repo, '..', `${repo.split('/').pop()}-tmp`), { recursive: true });
  return repo;
}

describe('DDx lifecycle: six statuses read and kept, forbidden transitions refused with exit 7', () => {
  it.each([
    [['update', 'a', '--status', 'proposed'], 'bead: a: lifecycle transition open -> proposed rejected: transition_requires_operator: open -> proposed'],
    [['update', 'a', '--status', 'blocked'], 'bead: a: lifecycle transition open -> blocked rejected: transition_requires_external_blocker: open -> blocked'],
    [['update', 'p', '--status', 'closed'], 'bead: p: lifecycle transition proposed -> closed rejected: transition_unsupported: proposed -> closed'],
    [['update', 'x', '--status', 'open'], 'bead: x: lifecycle transition cancelled -> open rejected: transition_from_terminal: cancelled -> open'],
    [['close', 'x'], 'bead: x: lifecycle transition cancelled -> closed rejected: transition_from_terminal: cancelled -> closed'],
    [['reopen', 'x'], 'bead: x: lifecycle transition cancelled -> open rejected: transition_from_terminal: cancelled -> open'],
  ])('%j → one line, exit 7, file unchanged', (args, message) => {
    const repo = repoWith([bead({ id: 'a' }), bead({ id: 'p', status: 'proposed' }), bead({ id: 'x', status: 'cancelled' })]);
    const before = readBeadsFile(repo);
    const r = tracker(repo, args);
    expect(r.status).toBe(EXIT.validation);
    expect(r.stderr).toBe(`${message}\n`);
    expect(readBeadsFile(repo)).toBe(before);
  });

  it('allowed moves: blocked with an external reason, back to open, a manual close of a proposed bead', () => {
    const repo = repoWith([bead({ id: 'a' }), bead({ id: 'p', status: 'proposed' })]);
    expect(tracker(repo, ['update', 'a', '--status', 'blocked', '--external-blocker-reason', 'waiting on vendor']).status).toBe(0);
    const blocked = JSON.parse(tracker(repo, ['blocked', '--json']).stdout);
    expect(blocked).toEqual([expect.objectContaining({ id: 'a', status: 'blocked', blocker: { kind: 'blocked-status', reason: 'waiting on vendor' } })]);
    expect(tracker(repo, ['update', 'a', '--status', 'open']).status).toBe(0);
    expect(tracker(repo, ['close', 'p']).status).toBe(0); // DDx's manual close takes proposed → closed
  });

  it('proposed, blocked and cancelled beads are never ready, and a cancelled dependency still blocks', () => {
    const repo = repoWith([bead({ id: 'p', status: 'proposed' }), bead({ id: 'c', status: 'cancelled' }), bead({ id: 'd', deps: ['c'] })]);
    expect(JSON.parse(tracker(repo, ['ready', '--json']).stdout)).toEqual([]);
  });
});

describe('what DDx would damage: refused on write (exit 7), reported and repaired by doctor', () => {
  it.each([
    [['update', 'a', '--set', 'labels=x,y'], 'bead: refusing to write a: labels is the string "x,y", not a list of strings (DDx would drop it)'],
    [['update', 'a', '--set', 'dependencies=["b"]'], 'bead: refusing to write a: dependencies[0] is the string "b", not an object (DDx would rewrite it as an empty dependency and lose its target)'],
    [['update', 'a', '--set', 'issue_type=[1]'], 'bead: refusing to write a: issue_type is a list, not a string (DDx would drop it)'],
    [['update', 'a', '--set', 'schema_version=one'], 'bead: refusing to write a: schema_version is the string "one", not a whole number (DDx would read it as 0)'],
    [['update', 'a', '--set', 'created_at=yesterday'], 'bead: refusing to write a: created_at is the string "yesterday", not an RFC 3339 time (DDx would write 0001-01-01T00:00:00Z)'],
  ])('%j', (args, message) => {
    const repo = repoWith([bead({ id: 'a' }), bead({ id: 'b' })]);
    const before = readBeadsFile(repo);
    const r = tracker(repo, args);
    expect(r.status).toBe(EXIT.validation);
    expect(r.stderr).toBe(`${message}\n`);
    expect(readBeadsFile(repo)).toBe(before);
  });

  it('doctor names damage already in the file; --fix repairs string-form dependencies and a labels string', () => {
    const repo = repoWith([bead({ id: 'a', dependencies: ['b'] as never, labels: 'x,y' as never }), bead({ id: 'b' })]);
    const report = tracker(repo, ['doctor']);
    expect(report.status).toBe(EXIT.error);
    expect(report.stdout).toContain('DDx would damage a: labels is the string "x,y", not a list of strings (DDx would drop it)');
    expect(report.stdout).toContain('DDx would damage a: dependencies[0] is the string "b", not an object');
    const fix = tracker(repo, ['doctor', '--fix']);
    expect(fix.stderr).toContain('helix: repaired fields DDx would damage in a');
    const a = JSON.parse(readBeadsFile(repo).split('\n')[0]!);
    expect(a.labels).toEqual(['x', 'y']);
    expect(a.dependencies).toEqual([{ issue_id: 'a', depends_on_id: 'b', type: 'blocks' }]);
    expect(tracker(repo, ['doctor']).status).toBe(0);
  });
});

describe('ddx bead parity', () => {
  it('create --depends-on is --deps (comma-separated or repeated), writing schema_version 1', () => {
    const repo = repoWith([bead({ id: 'a' }), bead({ id: 'b' }), bead({ id: 'c' })]);
    const created = JSON.parse(tracker(repo, ['create', 'new', '--depends-on', 'a,b', '--depends-on', 'c', '--json']).stdout);
    expect(created.dependencies.map((d: { depends_on_id: string }) => d.depends_on_id)).toEqual(['a', 'b', 'c']);
    expect(created.schema_version).toBe(1);
  });

  it('reopen --append-notes appends after a blank line, as DDx does', () => {
    const repo = repoWith([bead({ id: 'a', status: 'closed', notes: 'first' })]);
    expect(tracker(repo, ['reopen', 'a', '--append-notes', 'second']).status).toBe(0);
    expect(JSON.parse(readBeadsFile(repo)).notes).toBe('first\n\nsecond');
  });

  it('blocked --json carries DDx\'s blocker object: unclosed dependency ids, or the retry cool-down under either key', () => {
    const repo = repoWith([
      bead({ id: 'a' }),
      bead({ id: 'b', dependencies: [{ issue_id: 'b', depends_on_id: 'a', type: 'related' }] }),
      bead({ id: 'c', 'work-retry-after': '2999-01-01T00:00:00Z', 'work-last-status': 'no_changes' }),
      bead({ id: 'd', 'execute-loop-retry-after': '2999-01-01T00:00:00Z' }),
    ]);
    const blocked = JSON.parse(tracker(repo, ['blocked', '--json']).stdout) as Array<{ id: string; blocker: object }>;
    expect(blocked.map((b) => [b.id, b.blocker])).toEqual([
      ['b', { kind: 'dependency', unclosed_dep_ids: ['a'] }],
      ['c', { kind: 'retry-cooldown', next_eligible_at: '2999-01-01T00:00:00Z', last_status: 'no_changes' }],
      ['d', { kind: 'retry-cooldown', next_eligible_at: '2999-01-01T00:00:00Z' }],
    ]);
    expect(JSON.parse(tracker(repo, ['ready', '--execution', '--json']).stdout).map((b: { id: string }) => b.id)).toEqual(['a']);
  });

  it('an epic is not execution work (ready --execution), though plain ready lists it', () => {
    const repo = repoWith([bead({ id: 'e', issue_type: 'epic' }), bead({ id: 't', parent: 'e' })]);
    expect(JSON.parse(tracker(repo, ['ready', '--execution', '--json']).stdout).map((b: { id: string }) => b.id)).toEqual(['t']);
    expect(JSON.parse(tracker(repo, ['ready', '--json']).stdout).map((b: { id: string }) => b.id)).toEqual(['e', 't']);
  });
});

describe('the lock, as DDx takes it', () => {
  it('DDX_BEAD_LOCK_TIMEOUT is a Go duration: 1m30s = 90 s; a plain number is seconds; a negative one means one try', () => {
    expect(parseGoDurationMs('1m30s')).toBe(90_000);
    expect(parseGoDurationMs('1h2m3.5s')).toBe(3_723_500);
    expect(parseGoDurationMs('1.5h')).toBe(5_400_000);
    expect(parseGoDurationMs('250ms')).toBe(250);
    expect(parseGoDurationMs('1e1')).toBe(10_000);
    expect(lockTimeoutMs({ DDX_BEAD_LOCK_TIMEOUT: '1m30s' })).toBe(90_000);
    expect(lockTimeoutMs({ DDX_BEAD_LOCK_TIMEOUT: '-5s' })).toBe(0);
    // where DDx falls back to 10 s on a value it cannot read, helix refuses it (exit 7)
    expect(() => lockTimeoutMs({ DDX_BEAD_LOCK_TIMEOUT: '5 s' })).toThrow(expect.objectContaining({ kind: 'validation' }));
  });

  it('writes an owner token and releases only a lock that still carries it', () => {
    const dir = tempDir();
    const lock = join(dir, 'beads.lock');
    withLock(dir, () => {
      const token = readFileSync(join(lock, 'owner_token'), 'utf8');
      expect(token).toMatch(/^[0-9a-f]{64}$/);
      // someone broke ours and took a fresh lock meanwhile: ours must not remove theirs
      writeFileSync(join(lock, 'owner_token'), 'f'.repeat(64));
    }, {});
    expect(existsSync(lock)).toBe(true);
    expect(releaseLock(lock, 'f'.repeat(64))).toBe(true);
    expect(existsSync(lock)).toBe(false);
  });

  it('breaks a stale lock only under DDx\'s stale-break flock, never while another breaker holds it', async () => {
    const dir = tempDir();
    const lock = join(dir, 'beads.lock');
    mkdirSync(lock);
    writeFileSync(join(lock, 'pid'), String(deadPid()));
    writeFileSync(join(lock, 'acquired_at'), new Date().toISOString());
    // a DDx breaker holds the guard (flock(2) on beads.lock.stale-break.lock) for a while
    writeFileSync(staleBreakGuardPath(lock), '');
    // its own process group, so the test can end flock and the shell holding the lock together
    const holder = spawn('flock', [staleBreakGuardPath(lock), 'sh', '-c', 'echo held; sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    await new Promise((ready) => holder.stdout!.once('data', ready));
    try {
      expect(tryStaleBreakGuard(lock)).toBe('busy');
      expect(() => withLock(dir, () => 'in', { DDX_BEAD_LOCK_TIMEOUT: '300ms' })).toThrow(/lock timeout/);
      expect(existsSync(lock)).toBe(true);
    } finally {
      // the whole group: killing flock alone leaves the shell holding the lock (and the pipe) for 30 s
      process.kill(-holder.pid!, 'SIGKILL');
      await new Promise((done) => holder.on('close', done));
    }
    expect(withLock(dir, () => 'in', { DDX_BEAD_LOCK_TIMEOUT: '2s' })).toBe('in');
  });
});

describe('claims across tools and crashes', () => {
  it('a claim records pid start time, host and both DDx heartbeat keys', () => {
    const repo = repoWith([bead({ id: 'a' })]);
    const claimed = JSON.parse(tracker(repo, ['update', 'a', '--claim', '--pid', String(process.pid), '--json']).stdout);
    expect(claimed['claimed-pid-start']).toBe(processStartOf(process.pid));
    expect(claimed['execute-loop-heartbeat-at']).toBe(claimed['claimed-at']);
    expect(claimed['work-heartbeat-at']).toBe(claimed['claimed-at']);
    const released = JSON.parse(tracker(repo, ['update', 'a', '--unclaim', '--json']).stdout);
    for (const key of ['claimed-pid-start', 'execute-loop-heartbeat-at', 'work-heartbeat-at', 'claim-token']) expect(released).not.toHaveProperty(key);
  });

  it('a bead a live DDx worker lease holds is taken: not ready, not claimable (exit 4)', () => {
    const repo = repoWith([bead({ id: 'a' }), bead({ id: 'b' })]);
    const env = { TMPDIR: join(repo, '..', `${repo.split('/').pop()}-tmp`) };
    const dir = leaseDir(join(repo, '.ddx'), env);
    mkdirSync(dir, { recursive: true });
    const now = new Date().toISOString();
    writeFileSync(join(dir, 'a.json'), `${JSON.stringify({ bead_id: 'a', owner: 'ddx-worker', machine: 'elsewhere', started_at: now, updated_at: now, pid: 1 })}\n`);
    expect(JSON.parse(tracker(repo, ['ready', '--execution', '--json'], env).stdout).map((b: { id: string }) => b.id)).toEqual(['b']);
    const r = tracker(repo, ['update', 'a', '--claim'], env);
    expect(r.status).toBe(EXIT.conflict);
    expect(r.stderr).toBe('bead: cannot claim a: a DDx worker lease holds it (ddx-worker, pid 1, on elsewhere)\n');
    // a lease older than DDx's 90 s TTL from another host has lapsed
    const old = new Date(Date.now() - 120_000).toISOString();
    writeFileSync(join(dir, 'a.json'), `${JSON.stringify({ bead_id: 'a', machine: 'elsewhere', started_at: old, updated_at: old, pid: 1 })}\n`);
    expect(tracker(repo, ['update', 'a', '--claim'], env).status).toBe(0);
  });

  it('a reused pid does not keep a dead claim: same pid, another start time → reclaimed (issue #12 item 6)', () => {
    const live = spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }); // a pid that is gone now
    expect(live.status).toBe(0);
    const now = new Date('2026-06-01T12:00:00Z');
    const claim = (fields: object) => bead({ id: 'a', status: 'in_progress', owner: 'helix', 'claimed-at': '2026-06-01T00:00:00Z', 'claimed-machine': 'host', ...fields });
    const facts = { now, thresholdSec: 7200, machine: 'host', isAlive: () => true };
    const mine = processStartOf(process.pid);
    if (mine === undefined) return; // no /proc here: the heartbeat rule below still applies
    // this process's pid, recorded with another process's start time: the pid was reused
    expect(staleClaimOf(claim({ 'claimed-pid': String(process.pid), 'claimed-pid-start': `${mine.split(':')[0]}:1` }), facts)).toMatchObject({ why: 'reused' });
    // the same pid with its own start time is the claimer itself: left alone, however old
    expect(staleClaimOf(claim({ 'claimed-pid': String(process.pid), 'claimed-pid-start': mine }), facts)).toBeUndefined();
  });

  it('where the start time cannot be checked, a claim whose heartbeat is older than the threshold has lapsed', () => {
    const now = new Date('2026-06-01T12:00:00Z');
    const facts = { now, thresholdSec: 7200, machine: 'host', isAlive: () => true, startOf: () => undefined };
    const claim = bead({ id: 'a', status: 'in_progress', owner: 'helix', 'claimed-pid': '4242', 'claimed-at': '2026-06-01T00:00:00Z', 'claimed-machine': 'host', 'execute-loop-heartbeat-at': '2026-06-01T08:00:00Z' });
    expect(staleClaimOf(claim, facts)).toMatchObject({ why: 'lapsed', pid: 4242 });
    expect(staleClaimOf({ ...claim, 'execute-loop-heartbeat-at': '2026-06-01T11:59:00Z' }, facts)).toBeUndefined();
  });

  it('orphan recovery reclaims a crashed claimer\'s bead whose pid now belongs to another process', () => {
    const repo = repoWith([bead({ id: 'a' })]);
    const sleeper = spawn('sleep', ['30']);
    try {
      // the claim names a live pid, but with a start time that is not that process's
      const start = processStartOf(sleeper.pid!);
      if (start === undefined) return;
      tracker(repo, ['update', 'a', '--claim', '--pid', String(sleeper.pid)]);
      const text = readBeadsFile(repo).replace(start, `${start.split(':')[0]}:1`).replace(/"claimed-at":"[^"]+"/, '"claimed-at":"2020-01-01T00:00:00.000Z"');
      writeBeadsFile(repo, text);
      const r = tracker(repo, ['doctor']);
      expect(r.stdout).toContain(`stale claim: a (age=`);
      expect(r.stdout).toContain(`pid=${sleeper.pid} reused)`);
    } finally {
      sleeper.kill('SIGKILL');
    }
  });
});
