// The governing bead an alignment runs under, on a real tracker file (docs/contract/bash-interface.md §5.3).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GOVERNING_LABELS, acquireGoverningBead } from '../../../src/supervisor/shell/governing.js';
import { BeadStore } from '../../../src/tracker/index.js';
import { tempDir } from '../../helpers/cli.js';

function store(): BeadStore {
  return new BeadStore(join(tempDir(), '.ddx'), {});
}

describe('the governing bead on a real tracker file (docs/contract/bash-interface.md §5.3)', () => {
  const now = new Date('2026-03-01T12:00:00Z');
  const acquire = (s: BeadStore, scope: string, env: NodeJS.ProcessEnv = {}) => acquireGoverningBead(s, scope, { root: tempDir(), now, env });

  it('created once per scope and left open; then claimed by this process; then reused by it', () => {
    const s = store();
    const created = acquire(s, 'repo');
    expect(created.mode).toBe('created');
    expect(created.bead).toMatchObject({ title: 'align: repo', status: 'open', 'execution-eligible': false, labels: [...GOVERNING_LABELS, 'area:ui', 'area:api', 'area:data', 'area:infra', 'area:cli'] });
    const claimed = acquire(s, 'repo');
    expect(claimed).toMatchObject({ mode: 'claimed', bead: { id: created.bead.id, status: 'in_progress', 'claimed-pid': String(process.pid) } });
    // this process still holds it (a later alignment in the same run): reused, not refused
    expect(acquire(s, 'repo')).toMatchObject({ mode: 'reused', bead: { id: created.bead.id } });
    expect(acquire(s, 'SPEC-1').bead.id).not.toBe(created.bead.id);
    expect(s.read().beads).toHaveLength(2);
  });

  it('refuses while a live process holds it, even an old claim', () => {
    const s = store();
    const holder = spawn('sleep', ['30']);
    try {
      const id = acquire(s, 'repo').bead.id;
      s.mutate((d) => d.change(id, (b) => { b.status = 'in_progress'; b.owner = 'alice'; b['claimed-pid'] = String(holder.pid); b['claimed-at'] = '2020-01-01T00:00:00Z'; }));
      expect(() => acquire(s, 'repo')).toThrow(`helix: alignment already active for repo under owner alice (${id}); refusing duplicate dispatch`);
    } finally {
      holder.kill();
    }
  });

  it('refuses when another machine holds it (its pid means nothing here)', () => {
    const s = store();
    const id = acquire(s, 'repo').bead.id;
    s.mutate((d) => d.change(id, (b) => { b.status = 'in_progress'; b['claimed-machine'] = 'some-other-host'; b['claimed-pid'] = '999999'; b['claimed-at'] = '2020-01-01T00:00:00Z'; }));
    expect(() => acquire(s, 'repo')).toThrow(/alignment already active for repo \(/);
  });

  it('reclaims one whose claimer has exited once the claim is older than the threshold; a claim without a time at once', async () => {
    const s = store();
    const id = acquire(s, 'repo').bead.id;
    const gone = spawn(process.execPath, ['-e', '']);
    const pid = gone.pid;
    await new Promise((resolve) => gone.on('exit', resolve));
    s.mutate((d) => d.change(id, (b) => { b.status = 'in_progress'; b['claimed-pid'] = String(pid); b['claimed-at'] = new Date(now.getTime() - 600_000).toISOString(); b['claim-token'] = 'old'; }));
    expect(() => acquire(s, 'repo', { HELIX_ORPHAN_THRESHOLD: '3600' })).toThrow(/refusing duplicate dispatch/);
    const again = acquire(s, 'repo', { HELIX_ORPHAN_THRESHOLD: '60' });
    expect(again).toMatchObject({ mode: 'claimed', bead: { id, 'claimed-pid': String(process.pid) } });
    expect(again.bead['claim-token']).not.toBe('old');
    s.mutate((d) => d.change(id, (b) => { b['claimed-pid'] = String(pid); delete b['claimed-at']; delete b.updated_at; }));
    expect(acquire(s, 'repo').mode).toBe('claimed');
  });
});
