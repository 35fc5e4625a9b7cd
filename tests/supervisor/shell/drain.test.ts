// The loop's other agent calls (shell/drain.ts) through a real RunContext whose agent is the codex
// stub, started as a child process and scripted per test: the drain check and its NEXT_ACTION, a
// usage limit in the middle of a check, a review or an alignment (the run waits and asks again; the
// alignment's governing bead stays held across the wait), and the alignment's governing bead
// settled when it ends — closed when it finished, open and unclaimed when it failed, a tracker that
// refuses the write said in one line.
import { appendFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GOVERNING_LABELS } from '../../../src/supervisor/shell/governing.js';
import { runAction, runCheck, runReview, settleGoverning } from '../../../src/supervisor/shell/drain.js';
import { readRunState } from '../../../src/supervisor/shell/run-state.js';
import { bead } from '../../helpers/bead.js';
import { runWorld } from './run-world.js';

const LIMIT = { turnFailed: 'rate limit exceeded: Please try again in 0.2s.', exit: 1 };

/** An earlier alignment's governing bead, left open: the next alignment claims it. */
const GOVERNING = bead({ id: 'hx-gov', title: 'align: repo', labels: ['helix', 'phase:review', 'kind:planning', 'action:align'] });

/** The repo alignment's governing bead in the tracker. */
const governingOf = (beads: ReturnType<typeof bead>[]) => beads.find((b) => b.title === 'align: repo');

describe('the drain check', () => {
  it("returns the NEXT_ACTION it answered and prints the answer on stdout", async () => {
    const w = await runWorld({ script: { responses: [{ when: 'check', stdout: 'All done here.\nNEXT_ACTION: BUILD\n', tokens: 321 }] } });
    const event = await runCheck(w.run);
    expect(event).toEqual({ type: 'checked', nextAction: 'BUILD', ok: true, tokens: 321 });
    expect(w.stdout).toEqual(['All done here.', 'NEXT_ACTION: BUILD']);
    expect(w.stderr).toContain('helix: check returned BUILD (rc=0)');
  });

  it('with --summary the answer stays in the session log', async () => {
    const w = await runWorld({ mode: 'summary', script: { responses: [{ when: 'check', stdout: 'NEXT_ACTION: WAIT\n' }] } });
    expect(await runCheck(w.run)).toMatchObject({ type: 'checked', nextAction: 'WAIT', ok: true });
    expect(w.stdout).toEqual([]);
  });

  it('a check that ran into a usage limit is a limit to wait out, not an answer', async () => {
    const w = await runWorld({ script: { responses: [{ when: 'check', ...LIMIT }] } });
    const event = await runCheck(w.run);
    expect(event).toMatchObject({ type: 'limited', limit: { agent: 'codex', kind: 'rate' }, tokens: 0 });
    expect(event).not.toHaveProperty('again');
    expect(w.stdout).toEqual([]);
    expect(w.stderr.some((l) => l.startsWith('helix: check returned'))).toBe(false);
  });
});

describe('the review', () => {
  it('a review cut short by a limit is asked for again after the wait', async () => {
    const w = await runWorld({ beads: [bead({ id: 'hx-1', status: 'closed' })], script: { responses: [{ when: 'review', ...LIMIT }] } });
    const event = await runReview(w.run, 'post-implementation', 'last-commit', 4, 'hx-1');
    expect(event).toMatchObject({ type: 'limited', again: { type: 'runReview', kind: 'post-implementation', scope: 'last-commit', cycle: 4, beadId: 'hx-1' } });
  });

  it('a clean review is read as clean', async () => {
    const w = await runWorld({ beads: [bead({ id: 'hx-1', status: 'closed' })] });
    expect(await runReview(w.run, 'post-implementation', 'last-commit', 4, 'hx-1')).toMatchObject({ type: 'reviewed', outcome: 'clean', rc: 0, beadId: 'hx-1' });
  });
});

describe('an alignment of the loop', () => {
  it('runs under a new governing bead, closes it when it finished and records when', async () => {
    const now = new Date('2026-11-28T12:00:00Z');
    const w = await runWorld({ now: () => now });
    const event = await runAction(w.run, 'align', 'drain');
    expect(event).toMatchObject({ type: 'actionDone', action: 'align', purpose: 'drain', ok: true });
    const governing = governingOf(w.project.beads());
    expect(governing).toMatchObject({ status: 'closed', labels: expect.arrayContaining([...GOVERNING_LABELS]) });
    const call = w.project.calls().find((c) => c.action === 'align');
    expect(call?.stdin).toContain(governing!.id);
    expect(w.run.governing).toBeUndefined();
    expect(readRunState(w.run.store.dir)?.last_alignment).toBe(now.toISOString());
  });

  it('a failed alignment leaves the governing bead it claimed open and unclaimed for the next, and records nothing', async () => {
    const w = await runWorld({ beads: [GOVERNING], script: { responses: [{ when: 'align', exit: 2 }] } });
    const event = await runAction(w.run, 'align', 'drain');
    expect(event).toMatchObject({ type: 'actionDone', ok: false, detail: expect.stringMatching(/ exited 2$/) });
    const governing = governingOf(w.project.beads());
    expect(governing).toMatchObject({ status: 'open' });
    expect(governing?.owner).toBeUndefined();
    expect(readRunState(w.run.store.dir)?.last_alignment).toBeUndefined();
    expect(w.stderr).toContain(`helix: alignment did not finish: its governing bead ${governing!.id} is open again for the next one`);
  });

  it('a limit in the middle of an alignment keeps its governing bead held by the run across the wait', async () => {
    const w = await runWorld({ beads: [GOVERNING], script: { responses: [{ when: 'align', ...LIMIT }] } });
    const event = await runAction(w.run, 'align', 'periodic');
    expect(event).toMatchObject({ type: 'limited', again: { type: 'runAction', action: 'align', purpose: 'periodic' } });
    const governing = governingOf(w.project.beads());
    expect(w.run.governing).toBe(governing!.id);
    expect(governing).toMatchObject({ status: 'in_progress', owner: 'helix', 'claimed-pid': String(process.pid) });
  });

  it('a governing bead the tracker refuses to settle is said in one line and left for the next alignment', async () => {
    const w = await runWorld({ beads: [bead({ id: 'hx-gov', title: 'align: repo', status: 'in_progress', owner: 'helix', 'claimed-pid': String(process.pid) })] });
    appendFileSync(w.run.store.file, '{damaged\n');
    settleGoverning(w.run, 'hx-gov', true);
    expect(w.stderr).toEqual([expect.stringMatching(/^helix: could not settle the governing bead hx-gov: bead: refusing to write: /)]);
  });
});
