// `helix status` during a run shows its slots (issue 37 item 3): each slot's bead, phase, since
// when and which attempt, and the night so far — read from the run's own event log, so they hold
// while current DDx writes its own summary over .ddx/run-state.json during `ddx try`.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bead } from '../helpers/bead.js';
import { standinTarget } from '../ddx/targets.js';
import { waitUntil } from './stub-project.js';

describe('helix status during a run', () => {
  it('--jobs 2 on current DDx: a slot each with its bead, phase, since and attempt, the night so far; none once the run ended', async () => {
    const beads = ['a', 'b'].map((x, i) => bead({ id: `hx-0000000${i + 1}`, title: `write work/${x}.txt`, description: `Create work/${x}.txt.` }));
    const p = standinTarget('current').project(beads);
    p.script({ responses: beads.map((b, i) => ({ when: b.id, waitFor: p.path('go'), commit: { path: `work/${'ab'[i]}.txt`, content: 'x\n' } })) });
    writeFileSync(join(p.root, '.gitignore'), '.ddx/agent-logs/\n.ddx/executions/\n');
    spawnSync('git', ['add', '.gitignore'], { cwd: p.root });
    spawnSync('git', ['commit', '-qm', "DDx's runtime ignores"], { cwd: p.root });
    const run = p.helixInBackground(['run', '--summary', '--jobs', '2', '--no-auto-align']);
    // both builds in flight: DDx's stand-in has written its own record over run-state by now
    await waitUntil(() => p.calls().filter((c) => c.kind === 'try').length === 2, 'both ddx try', 30_000);
    await waitUntil(() => p.runState().bead_id !== undefined, "DDx's run-state", 30_000);
    // DDx records its intake when it ends, before the build: the run reads DDx's sessions and moves each slot on
    type Status = { slots: Array<Record<string, unknown>>; night: Record<string, unknown> | null };
    const status = () => JSON.parse(p.helix(['status', '--json']).stdout) as Status;
    await waitUntil(() => status().slots.every((s) => s.phase === 'build'), 'both slots in their build phase', 30_000);
    const json = status();
    expect(p.runState().current_issue).toBeUndefined();
    expect(json.slots.map((s) => [s.slot, s.bead, s.phase, s.attempt])).toEqual([
      [1, 'hx-00000001', 'build', 1],
      [2, 'hx-00000002', 'build', 1],
    ]);
    for (const s of json.slots) expect(Date.parse(String(s.since))).toBeGreaterThan(Date.now() - 60_000);
    expect(json.night).toMatchObject({ closed: 0, failed: 0, parked: 0, left: 2, in_flight: 2 });
    const text = p.helix(['status']).stdout;
    expect(text).toMatch(/\nSlots:\n {2}1 {2}hx-00000001 {2}build {2}since \S+ {2}attempt 1 {2}write work\/a\.txt\n {2}2 {2}hx-00000002 /);
    expect(text).toMatch(/Night so far: 0 closed, 0 failed, 0 parked, 2 left · 2 in flight/);
    writeFileSync(p.path('go'), '');
    expect((await run.done).status).toBe(0);
    const after = JSON.parse(p.helix(['status', '--json']).stdout) as { slots: unknown[]; night: unknown };
    expect(after).toMatchObject({ slots: [], night: null });
  });
});
