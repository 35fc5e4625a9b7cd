// Orphan recovery (docs/contract/cli.md §7) against a real bead file: a dead and old helix claim is released,
// a fresh claim, a live claimer, another host's claim and a bead closed meanwhile are left alone.
// What it reports is read as the lines `helix run` prints for it (ORPHANS.of in text/lines.ts).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Bead, BeadStore, type OrphanRecoveryEvent, closeBead, recoverOrphanedClaims, releaseDeadDdxClaim, thisMachine, unclaimBead } from '../../src/tracker/index.js';
import { ORPHANS } from '../../src/supervisor/text/lines.js';
import { tempDir } from '../helpers/cli.js';
import { bead } from '../helpers/bead.js';

const NOW = new Date('2026-03-01T12:00:00Z');
const THRESHOLD = 7200;

/** A pid that certainly belonged to a process which has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  return child.pid as number;
}

function claimed(id: string, fields: { pid: number; ageSec: number } & Partial<Bead>): Bead {
  const { pid, ageSec, ...rest } = fields;
  return bead({
    id,
    status: 'in_progress',
    owner: 'helix',
    'claimed-pid': String(pid),
    'claimed-at': new Date(NOW.getTime() - ageSec * 1000).toISOString(),
    'claimed-machine': thisMachine(),
    'claim-token': `token-${id}`,
    ...rest,
  });
}

function storeWith(beads: Bead[]): BeadStore {
  const dir = join(tempDir('helix-orphans-'), '.ddx');
  const store = new BeadStore(dir, {});
  store.mutate(() => undefined); // creates the folder
  writeFileSync(store.file, beads.map((b) => JSON.stringify(b)).join('\n') + '\n');
  return store;
}

describe('recoverOrphanedClaims', () => {
  it('reclaims a dead and old claim with the contract lines; leaves fresh, live and foreign claims alone', () => {
    const dead = deadPid();
    const store = storeWith([
      claimed('hx-orphan', { pid: dead, ageSec: THRESHOLD + 60 }),
      claimed('hx-fresh', { pid: dead, ageSec: THRESHOLD - 60 }),
      claimed('hx-live', { pid: process.pid, ageSec: THRESHOLD * 10 }),
      claimed('hx-foreign', { pid: dead, ageSec: THRESHOLD * 10, 'claimed-machine': 'some-other-host' }),
      claimed('hx-not-helix', { pid: dead, ageSec: THRESHOLD * 10, owner: 'alice' }),
    ]);
    const lines: Array<{ level: string; text: string }> = [];
    const recovered = recoverOrphanedClaims(store, NOW, THRESHOLD, (e: OrphanRecoveryEvent) => lines.push(ORPHANS.of(e)));
    expect(recovered.map((o) => o.bead.id)).toEqual(['hx-orphan']);
    // docs/contract/bash-interface.md §3: why each one was left alone (narrative); the reclaim lines in every mode
    expect(lines).toEqual([
      { level: 'narrative', text: 'helix: found 4 in-progress issue(s), checking for orphans...' },
      { level: 'narrative', text: `helix: issue hx-fresh claimed ${THRESHOLD - 60}s ago (threshold ${THRESHOLD}s), too fresh to reclaim` },
      { level: 'narrative', text: `helix: issue hx-live claimed by PID ${process.pid} which is still alive, skipping` },
      { level: 'always', text: `helix: reclaiming orphaned hx-orphan (age=${THRESHOLD + 60}s, pid=${dead} dead)` },
      { level: 'always', text: 'helix: recovered 1 orphaned issue(s)' },
    ]);
    const after = store.read().byId;
    expect(after.get('hx-orphan')).toMatchObject({ status: 'open' });
    for (const key of ['claimed-pid', 'claimed-at', 'claim-token', 'owner']) expect(after.get('hx-orphan')).not.toHaveProperty(key);
    for (const id of ['hx-fresh', 'hx-live', 'hx-foreign', 'hx-not-helix']) {
      expect(after.get(id)).toMatchObject({ status: 'in_progress', 'claim-token': `token-${id}` });
    }
  });

  it('a claim without any timestamp is reclaimed with age 0; a bead without a pid says pid=unknown', () => {
    const bare = claimed('hx-bare', { pid: 0, ageSec: 0 });
    delete bare['claimed-at'];
    delete bare['claimed-pid'];
    delete bare.updated_at;
    const store = storeWith([bare]);
    const lines: string[] = [];
    expect(recoverOrphanedClaims(store, NOW, THRESHOLD, (e: OrphanRecoveryEvent) => lines.push(ORPHANS.of(e).text)).length).toBe(1);
    expect(lines).toContain('helix: reclaiming orphaned hx-bare (age=0s, pid=unknown dead)');
  });

  it('uses updated_at when a claim has no claimed-at, and respects the threshold it is given', () => {
    const dead = deadPid();
    const old = claimed('hx-a', { pid: dead, ageSec: 0, updated_at: new Date(NOW.getTime() - 100_000).toISOString() });
    delete old['claimed-at'];
    const store = storeWith([old]);
    expect(recoverOrphanedClaims(store, NOW, 200_000, () => undefined).length).toBe(0);
    expect(recoverOrphanedClaims(store, NOW, 50, () => undefined).length).toBe(1);
  });

  it('skips a bead closed between the snapshot and the action, and never reopens it', () => {
    const dead = deadPid();
    const store = storeWith([claimed('hx-a', { pid: dead, ageSec: THRESHOLD + 1 }), claimed('hx-b', { pid: dead, ageSec: THRESHOLD + 1 })]);
    // Another worker closes hx-a right after recovery took its snapshot.
    const racing = new (class extends BeadStore {
      private raced = false;
      override read() {
        const snapshot = super.read();
        if (!this.raced) {
          this.raced = true;
          new BeadStore(store.dir, {}).mutate((d) => closeBead(d, 'hx-a', { now: NOW }));
        }
        return snapshot;
      }
    })(store.dir, {});
    const lines: string[] = [];
    expect(recoverOrphanedClaims(racing, NOW, THRESHOLD, (e: OrphanRecoveryEvent) => lines.push(ORPHANS.of(e).text)).length).toBe(1);
    expect(lines.filter((l) => l.includes('reclaiming'))).toEqual([expect.stringMatching(/^helix: reclaiming orphaned hx-b /)]);
    expect(store.read().byId.get('hx-a')).toMatchObject({ status: 'closed' });
    expect(store.read().byId.get('hx-b')).toMatchObject({ status: 'open' });
  });

  it('says nothing when there is nothing to recover', () => {
    const store = storeWith([bead({ id: 'hx-a' }), bead({ id: 'hx-b', status: 'closed' })]);
    const lines: string[] = [];
    expect(recoverOrphanedClaims(store, NOW, THRESHOLD, (e: OrphanRecoveryEvent) => lines.push(ORPHANS.of(e).text)).length).toBe(0);
    expect(lines).toEqual([]);
  });
});

describe('unclaim', () => {
  it('never reopens a closed bead', () => {
    const store = storeWith([bead({ id: 'hx-a', status: 'closed', owner: 'helix', 'claimed-pid': '1' }), claimed('hx-b', { pid: 1, ageSec: 0 })]);
    store.mutate((d) => unclaimBead(d, 'hx-a'));
    store.mutate((d) => unclaimBead(d, 'hx-b'));
    expect(store.read().byId.get('hx-a')).toMatchObject({ status: 'closed' });
    expect(store.read().byId.get('hx-a')).not.toHaveProperty('claimed-pid');
    expect(store.read().byId.get('hx-b')).toMatchObject({ status: 'open' });
  });
});

describe("releaseDeadDdxClaim: a ddx try's claim once its ddx is gone", () => {
  /** DDx's lease file for `id`, naming `pid` on this machine. */
  function lease(store: BeadStore, id: string, pid: number): string {
    mkdirSync(store.leaseDir, { recursive: true });
    const file = join(store.leaseDir, `${id}.json`);
    writeFileSync(file, JSON.stringify({ bead_id: id, owner: 'ddx', session: `try-${pid}`, machine: thisMachine(), started_at: NOW.toISOString(), updated_at: NOW.toISOString(), pid }));
    return file;
  }

  it('a bead in progress under ddx: released, its lease removed', () => {
    const dead = deadPid();
    const store = storeWith([bead({ id: 'hx-held', status: 'in_progress', owner: 'ddx' })]);
    const file = lease(store, 'hx-held', dead);
    expect(store.mutate((d) => releaseDeadDdxClaim(d, 'hx-held', store.leaseDir, undefined, { needLease: true }))).toEqual({ pid: dead });
    expect(store.read().byId.get('hx-held')).toMatchObject({ status: 'open' });
    expect(existsSync(file)).toBe(false);
  });

  it('a bead still open whose ddx died between writing its lease and marking the bead: the lease is removed (DDx would hold the bead 90 s); a live one stays', () => {
    const dead = deadPid();
    const store = storeWith([bead({ id: 'hx-open' }), bead({ id: 'hx-live' })]);
    const deadLease = lease(store, 'hx-open', dead);
    const liveLease = lease(store, 'hx-live', process.pid);
    expect(store.mutate((d) => releaseDeadDdxClaim(d, 'hx-open', store.leaseDir, undefined, { needLease: true }))).toEqual({ pid: dead });
    expect(existsSync(deadLease)).toBe(false);
    expect(store.read().byId.get('hx-open')).toMatchObject({ status: 'open' });
    expect(store.mutate((d) => releaseDeadDdxClaim(d, 'hx-live', store.leaseDir, undefined, { needLease: true }))).toBe(false);
    expect(existsSync(liveLease)).toBe(true);
    expect(store.mutate((d) => releaseDeadDdxClaim(d, 'hx-other', store.leaseDir))).toBe(false);
  });
});
