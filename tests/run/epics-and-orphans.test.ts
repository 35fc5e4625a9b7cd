// Epic focus and orphan recovery end to end: the loop hands an epic over to its children and
// closes it (a completed cycle), keeps an epic with a claimed child open, promotes a task that
// gained children; at start it reclaims only dead, old claims.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Project, RUN_COMPLETE } from './stub-project.js';
import { bead } from '../helpers/bead.js';

const deadPid = () => spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' }).pid as number;
const secondsAgo = (s: number) => new Date(Date.now() - s * 1000).toISOString();

describe('epic focus', () => {
  it('focuses the epic, works its children, closes it, and counts the close as completed', () => {
    const p = new Project({
      beads: [
        bead({ id: 'hx-000000e1', title: 'The epic', issue_type: 'epic' }),
        bead({ id: 'hx-000000c1', parent: 'hx-000000e1' }),
        bead({ id: 'hx-000000c2', parent: 'hx-000000e1' }),
      ],
    });
    const r = p.helix(['run']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('helix: epic focus hx-000000e1 → child hx-000000c1');
    expect(p.buildCalls().map((c) => c.id)).toEqual(['hx-000000c1', 'hx-000000c2']);
    expect(p.statuses('hx-000000c1', 'hx-000000c2', 'hx-000000e1')).toEqual(['closed', 'closed', 'closed']);
    expect(r.stderr.match(RUN_COMPLETE)?.slice(1, 3)).toEqual(['2', '3']);
    expect(p.runState()).toMatchObject({ completed_cycles: 3, attempted_cycles: 2, focused_epic: null });
  });

  it('an epic with an in_progress child stays open', () => {
    const p = new Project({
      beads: [
        bead({ id: 'hx-000000e1', issue_type: 'epic' }),
        bead({ id: 'hx-000000c1', parent: 'hx-000000e1', status: 'closed' }),
        bead({ id: 'hx-000000c2', parent: 'hx-000000e1', status: 'in_progress', owner: 'helix', 'claimed-pid': String(process.pid), 'claimed-at': secondsAgo(5) }),
      ],
    });
    const r = p.helix(['run', '--summary']);
    expect(r.status).toBe(0);
    expect(p.bead('hx-000000e1').status).toBe('open');
    expect(p.bead('hx-000000c2').status).toBe('in_progress');
    expect(p.buildCalls()).toEqual([]);
  });

  it('a task that gained more than one child is promoted to an epic, labels kept', () => {
    const p = new Project({
      beads: [
        bead({ id: 'hx-000000t1', labels: ['area:api', 'helix'] }),
        bead({ id: 'hx-000000k1', parent: 'hx-000000t1' }),
        bead({ id: 'hx-000000k2', parent: 'hx-000000t1' }),
      ],
    });
    const r = p.helix(['run', '--summary']);
    expect(r.status).toBe(0);
    expect(p.bead('hx-000000t1')).toMatchObject({ issue_type: 'epic', labels: ['area:api', 'helix'], status: 'closed' });
    expect(p.buildCalls().map((c) => c.id)).toEqual(['hx-000000k1', 'hx-000000k2']);
  });
});

describe('orphan recovery at run start', () => {
  const claim = (id: string, pid: number, ageSec: number) =>
    bead({ id, status: 'in_progress', owner: 'helix', 'claimed-pid': String(pid), 'claimed-at': secondsAgo(ageSec), 'claim-token': 'old' });

  it('reclaims a dead and old claim and works the bead; leaves a fresh claim and a live claimer alone', () => {
    const dead = deadPid();
    const p = new Project({
      beads: [claim('hx-00000001', dead, 3 * 3600), claim('hx-00000002', dead, 60), claim('hx-00000003', process.pid, 3 * 3600)],
    });
    const r = p.helix(['run']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^helix: reclaiming orphaned hx-00000001 \\(age=(\\d+)s, pid=${dead} dead\\)$`, 'm'));
    const age = Number(/reclaiming orphaned hx-00000001 \(age=(\d+)s/.exec(r.stderr)?.[1]);
    expect(age).toBeGreaterThanOrEqual(3 * 3600);
    expect(age).toBeLessThan(3 * 3600 + 60);
    expect(r.stderr).toContain('helix: recovered 1 orphaned issue(s)');
    expect(r.stderr).not.toContain('reclaiming orphaned hx-00000002');
    expect(r.stderr).not.toContain('reclaiming orphaned hx-00000003');
    expect(p.buildCalls().map((c) => c.id)).toEqual(['hx-00000001']);
    expect(p.bead('hx-00000001').status).toBe('closed');
    expect(p.bead('hx-00000002')).toMatchObject({ status: 'in_progress', 'claimed-pid': String(dead) });
    expect(p.bead('hx-00000003')).toMatchObject({ status: 'in_progress', 'claimed-pid': String(process.pid) });
  });

  it('HELIX_ORPHAN_THRESHOLD sets the minimum claim age', () => {
    const dead = deadPid();
    const p = new Project({ beads: [claim('hx-00000001', dead, 120)] });
    const r = p.helix(['run'], { HELIX_ORPHAN_THRESHOLD: '60' });
    expect(r.stderr).toContain('helix: reclaiming orphaned hx-00000001');
    expect(p.bead('hx-00000001').status).toBe('closed');
  });
});
