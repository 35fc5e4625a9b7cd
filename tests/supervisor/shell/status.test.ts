// `helix status`'s document (shell/status.ts) gathered from a real project: the active run from its
// pid file and its own event log, the bead it is running, each claim's claimer (running, gone — and
// reclaimable once nothing of it is left, a real process carrying its tag keeping it —, on another
// host), one parked reason a bead, the supervisory beads and the last run's limit.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processTagOf } from '../../../src/agents/descendants.js';
import type { EventBody } from '../../../src/supervisor/core/run-events.js';
import { EventLog, makeEvent } from '../../../src/supervisor/shell/events.js';
import { pidFilePath } from '../../../src/supervisor/shell/mutex.js';
import { writeRunState } from '../../../src/supervisor/shell/run-state.js';
import { buildStatus } from '../../../src/supervisor/shell/status.js';
import { type Bead, BeadStore, claimBead } from '../../../src/tracker/index.js';
import { bead } from '../../helpers/bead.js';
import { tempGitRepo } from '../../helpers/cli.js';

const NOW = new Date();
const ENV = { PATH: process.env.PATH };
const ago = (s: number) => new Date(NOW.getTime() - s * 1000).toISOString();
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function project(beads: Bead[]) {
  const root = tempGitRepo();
  mkdirSync(join(root, '.ddx'));
  writeFileSync(join(root, '.ddx', 'beads.jsonl'), beads.map((b) => `${JSON.stringify(b)}\n`).join(''));
  return { root, store: new BeadStore(join(root, '.ddx'), ENV) };
}

function events(root: string, name: string, bodies: EventBody[]): string {
  const path = join(root, '.helix-logs', `${name}.events.ndjson`);
  const log = EventLog.open(path);
  for (const body of bodies) log.append(makeEvent(name, NOW, body));
  log.close();
  return path;
}

async function deadPid(): Promise<number> {
  const child = spawn('true');
  await once(child, 'exit');
  return child.pid!;
}

/** A helix claim whose claimer recorded its start time: stale at once when nothing of it is left. */
const claimedBy = (id: string, pid: number, extra: Partial<Bead> = {}): Bead =>
  bead({ id, status: 'in_progress', owner: 'helix', 'claimed-pid': String(pid), 'claimed-pid-start': '12345', 'claimed-at': ago(60), ...extra });

describe('helix status', () => {
  it("names the active run, the bead it runs and each claim's claimer", async () => {
    const dead = await deadPid();
    const p = project([bead({ id: 'hx-run' }), claimedBy('hx-gone', dead), claimedBy('hx-far', dead, { 'claimed-machine': 'another-host' })]);
    p.store.mutate((d) => claimBead(d, 'hx-run'));
    writeFileSync(pidFilePath(p.store.dir), `${process.pid} 2026-11-28T12:00:00Z\n`);
    writeRunState(p.store.dir, { current_issue: 'hx-run', agent: 'codex', log: '/p/helix.log', attempted_cycles: 3 });
    events(p.root, 'helix-old', [{ type: 'run_start', pid: 1, ready: 0, agent: 'codex', root: p.root }]);
    events(p.root, 'helix-now', [{ type: 'run_start', pid: process.pid, ready: 1, agent: 'codex', root: p.root, jobs: 2 }, { type: 'claim', bead: 'hx-run', attempt: 1, slot: 1, title: 'running now' }]);
    const status = buildStatus(p.store, NOW, ENV, null, undefined, p.root);
    expect(status.active_run).toEqual({ pid: process.pid, started: '2026-11-28T12:00:00Z', log: '/p/helix.log' });
    expect(status.current_cycle).toBe(3);
    expect(status.running_bead).toMatchObject({ id: 'hx-run', worker: 'helix', harness: 'codex' });
    expect(status.claimed_beads).toEqual([
      { id: 'hx-far', pid: dead, claimer: 'elsewhere', reclaimable: false },
      { id: 'hx-gone', pid: dead, claimer: 'gone', reclaimable: true },
      { id: 'hx-run', pid: process.pid, claimer: 'running', reclaimable: false },
    ]);
    expect(status.parked_beads).toEqual([{ id: 'hx-gone', reason: 'orphaned-claim', next_eligible: null, age_seconds: 60 }]);
    // the night is the active run's own, not the older log's
    expect(status.night?.run).toBe('helix-now');
    expect(status.slots).toEqual([expect.objectContaining({ slot: 1, bead: 'hx-run', title: 'running now' }), expect.objectContaining({ slot: 2 })]);
  });

  it('a claim whose dead claimer still has a call running is not reclaimable yet', async () => {
    const dead = await deadPid();
    const call = spawn('sleep', ['60'], { env: { ...ENV, HELIX_CALL_ID: processTagOf(dead, '12345') }, stdio: 'ignore' });
    children.push(call);
    await once(call, 'spawn');
    const p = project([claimedBy('hx-gone', dead)]);
    const status = buildStatus(p.store, NOW, ENV, null, undefined, p.root);
    expect(status.claimed_beads).toEqual([{ id: 'hx-gone', pid: dead, claimer: 'gone', reclaimable: false }]);
    expect(status.parked_beads).toEqual([]);
  });

  it("removes a dead run's pid file and shows no active run", async () => {
    const p = project([]);
    const dead = await deadPid();
    writeFileSync(pidFilePath(p.store.dir), `${dead} 2026-11-28T12:00:00Z\n`);
    const status = buildStatus(p.store, NOW, ENV, null, undefined, p.root);
    expect(status.active_run).toBeNull();
    expect(status.night).toBeNull();
    expect(existsSync(pidFilePath(p.store.dir))).toBe(false);
  });

  it('gives each parked bead one reason: a cool-down before a dependency before the blocked label', () => {
    const p = project([
      bead({ id: 'hx-dep' }),
      bead({ id: 'hx-waits', deps: ['hx-dep'], labels: ['helix', 'blocked'] }),
      bead({ id: 'hx-cool', labels: ['helix', 'blocked'], 'work-retry-after': '2999-01-01T00:00:00Z' }),
      bead({ id: 'hx-skipped', labels: ['helix', 'blocked'] }),
    ]);
    const parked = buildStatus(p.store, NOW, ENV, null, undefined, p.root).parked_beads;
    expect(parked.map((b) => [b.id, b.reason, b.next_eligible])).toEqual([
      ['hx-waits', 'dep-blocked', null],
      ['hx-cool', 'retry-parked', '2999-01-01T00:00:00Z'],
      ['hx-skipped', 'skipped', null],
    ]);
  });

  it('lists the supervisory beads newest first with what triggered them, old labels read as their Bash names', () => {
    const p = project([
      bead({ id: 'hx-old', labels: ['source:review'], 'helix-triggering-cycle': '2', 'helix-triggering-bead': 'hx-a', created_at: '2026-11-01T00:00:00Z' }),
      bead({ id: 'hx-new', labels: ['alignment-review'], notes: 'TRIGGERING_CYCLE=5\nTRIGGERING_BEAD=hx-b', created_at: '2026-11-02T00:00:00Z' }),
      bead({ id: 'hx-plain' }),
    ]);
    expect(buildStatus(p.store, NOW, ENV, null, undefined, p.root).injected_supervisory).toEqual([
      { id: 'hx-new', type: 'alignment-review', triggering_cycle: 5, triggering_bead: 'hx-b', created_at: '2026-11-02T00:00:00Z' },
      { id: 'hx-old', type: 'review-finding', triggering_cycle: 2, triggering_bead: 'hx-a', created_at: '2026-11-01T00:00:00Z' },
    ]);
  });

  it("names the last run's limit when it stopped on one, from its event log", () => {
    const p = project([]);
    const limit: EventBody = { type: 'limit', agent: 'claude', kind: 'usage', bead: 'hx-1', resets_at: '2026-11-28T15:00:00Z', resume_at: null, detail: '5-hour limit reached' };
    const path = events(p.root, 'helix-last', [limit, { ...limit, agent: 'codex', detail: 'the last one' }]);
    writeRunState(p.store.dir, { stop_reason: 'limit', events: path });
    expect(buildStatus(p.store, NOW, ENV, null, undefined, p.root)).toMatchObject({ last_stop_reason: 'limit', last_limit: { agent: 'codex', kind: 'usage', resets_at: '2026-11-28T15:00:00Z', detail: 'the last one' } });
    writeRunState(p.store.dir, { stop_reason: 'completed' });
    expect(buildStatus(p.store, NOW, ENV, null, undefined, p.root).last_limit).toBeNull();
  });
});
