// The pure and store-level parts of the actions, in process: how answers are judged, the
// governing bead's life cycle on a real tracker file, filing unfiled review findings, and the
// routing cases the black-box tests would need many agent calls for.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTrailers } from '../../src/agents/index.js';
import { judgeAction } from '../../src/supervisor/action-verdict.js';
import { ALIGN_LABELS, acquireGoverningBead, releaseGoverningBead } from '../../src/supervisor/governing.js';
import { fileUnfiledFindings, followUpReview } from '../../src/supervisor/review-findings.js';
import { BeadStore, createBead } from '../../src/tracker/index.js';
import { tempDir } from '../helpers/cli.js';
import { initialState, step } from '../../src/supervisor/machine.js';
import { bead, play, settings } from '../supervisor/builders.js';

const judge = (action: Parameters<typeof judgeAction>[0], text: string, exitCode = 0, root = '/nonexistent') => judgeAction(action, exitCode, parseTrailers(text), root);

describe('judging an answer by its trailers', () => {
  it('backfill names the first thing wrong: status, BLOCKED, report trailer, report file', () => {
    const root = tempDir();
    const table: Array<[string, boolean, string | undefined]> = [
      ['BACKFILL_REPORT: x.md', false, 'backfill output missing BACKFILL_STATUS trailer'],
      ['BACKFILL_STATUS: BLOCKED\nBACKFILL_REPORT: gone.md', false, 'backfill BLOCKED'],
      ['BACKFILL_STATUS: COMPLETE', false, 'backfill output missing BACKFILL_REPORT trailer'],
      ['BACKFILL_STATUS: COMPLETE\nBACKFILL_REPORT: gone.md', false, 'backfill report not found: gone.md'],
      [`BACKFILL_STATUS: COMPLETE\nBACKFILL_REPORT: ${root}`, true, undefined],
      [`BACKFILL_STATUS: GUIDANCE_NEEDED\nBACKFILL_REPORT: ${root}`, true, undefined],
    ];
    for (const [text, ok, reason] of table) {
      const verdict = judge('backfill', text, 0, root);
      expect([text, verdict.ok, verdict.reason]).toEqual([text, ok, reason]);
    }
  });

  it('backfill prints the research epic and the report before its verdict', () => {
    expect(judge('backfill', 'BACKFILL_STATUS: BLOCKED\nBACKFILL_REPORT: r.md\nRESEARCH_EPIC: hx-12345678').lines).toEqual([
      'helix: research epic=hx-12345678',
      'helix: backfill report=r.md',
      'helix: backfill BLOCKED',
    ]);
  });

  it('backfill without a RESEARCH_EPIC trailer still prints the line, as none', () => {
    expect(judge('backfill', 'BACKFILL_STATUS: BLOCKED\nBACKFILL_REPORT: r.md').lines).toEqual([
      'helix: research epic=none',
      'helix: backfill report=r.md',
      'helix: backfill BLOCKED',
    ]);
  });

  it('review: CLEAN, or ISSUES_FOUND with a count, is interpretable; anything else is not', () => {
    expect(judge('review', 'REVIEW_STATUS: CLEAN').ok).toBe(true);
    expect(judge('review', 'REVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 2').lines).toEqual(['helix: review found 2 issue(s)']);
    expect(judge('review', 'REVIEW_STATUS: ISSUES_FOUND')).toMatchObject({
      ok: false,
      lines: ['helix: review output missing REVIEW_STATUS trailer', 'helix: review said ISSUES_FOUND without an ISSUES_COUNT trailer'],
    });
    expect(judge('review', 'REVIEW_STATUS: CLEAN|ISSUES_FOUND').ok).toBe(false);
    expect(judge('review', 'REVIEW_STATUS: MAYBE').lines).toEqual(['helix: review output missing REVIEW_STATUS trailer']);
  });

  it('plan and polish are decided by the exit status; their trailers are only logged', () => {
    expect(judge('design', 'PLAN_STATUS: GUIDANCE_NEEDED')).toEqual({ ok: true, lines: ['helix: design status GUIDANCE_NEEDED'] });
    expect(judge('polish', 'POLISH_STATUS: CONVERGED', 1).ok).toBe(false);
    expect(judge('align', '', 0)).toEqual({ ok: true, lines: [] });
  });
});

function store(): BeadStore {
  return new BeadStore(join(tempDir(), '.ddx'), {});
}

describe('the governing bead on a real tracker file', () => {
  const now = new Date('2026-03-01T12:00:00Z');

  it('is created once per scope, claimed by this process, and not execution-eligible', () => {
    const s = store();
    const first = acquireGoverningBead(s, 'repo', now);
    expect(first).toMatchObject({ labels: ALIGN_LABELS, status: 'in_progress', 'claimed-pid': String(process.pid), 'execution-eligible': false, 'helix-scope': 'repo' });
    releaseGoverningBead(s, first);
    expect(acquireGoverningBead(s, 'repo', now).id).toBe(first.id);
    expect(acquireGoverningBead(s, 'SPEC-1', now).id).not.toBe(first.id);
    expect(s.read().beads).toHaveLength(2);
  });

  it('refuses while a live process holds it, even an old claim', () => {
    const s = store();
    const held = acquireGoverningBead(s, 'repo', new Date('2020-01-01T00:00:00Z'));
    expect(() => acquireGoverningBead(s, 'repo', now)).toThrow(`helix: alignment for repo is already in progress (${held.id}, pid ${process.pid})`);
  });

  it('refuses when another machine holds it (its pid means nothing here)', () => {
    const s = store();
    const held = acquireGoverningBead(s, 'repo', now);
    s.mutate((d) => d.change(held.id, (b) => { b['claimed-machine'] = 'some-other-host'; b['claimed-pid'] = '999999'; }));
    expect(() => acquireGoverningBead(s, 'repo', now)).toThrow(/already in progress/);
  });

  it('reclaims one held by a process that has exited, however young the claim', async () => {
    const s = store();
    const held = acquireGoverningBead(s, 'repo', now);
    const gone = spawn(process.execPath, ['-e', '']);
    const pid = gone.pid;
    await new Promise((resolve) => gone.on('exit', resolve));
    s.mutate((d) => d.change(held.id, (b) => { b['claimed-pid'] = String(pid); }));
    const again = acquireGoverningBead(s, 'repo', now);
    expect(again.id).toBe(held.id);
    expect(again['claimed-pid']).toBe(String(process.pid));
    expect(again['claim-token']).not.toBe(held['claim-token']);
  });

  it('release leaves a bead the agent closed, or one someone else took over, alone', () => {
    const s = store();
    const held = acquireGoverningBead(s, 'repo', now);
    s.mutate((d) => d.change(held.id, (b) => { b['claim-token'] = 'someone-else'; }));
    releaseGoverningBead(s, held);
    expect(s.read().byId.get(held.id)).toMatchObject({ status: 'in_progress', 'claim-token': 'someone-else' });
  });
});

describe('review findings the reviewer did not file', () => {
  function world() {
    const s = store();
    const epic = s.mutate((d) => createBead(d, { title: 'epic', type: 'epic' }, 'hx'));
    const task = s.mutate((d) => createBead(d, { title: 'task', parent: epic.id }, 'hx'));
    return { s, epic, task, before: new Set([epic.id, task.id]) };
  }
  const input = (w: ReturnType<typeof world>, issuesCount: number, findingsFiled?: number) => ({
    reviewed: w.task,
    reviewedId: w.task.id,
    cycle: 4,
    issuesCount,
    findingsFiled,
    before: w.before,
    output: 'finding one\nfinding two\nREVIEW_STATUS: ISSUES_FOUND',
  });

  it('files one bug for the rest, under the reviewed bead\'s epic and depending on the reviewed bead', () => {
    const w = world();
    const filed = fileUnfiledFindings(w.s, input(w, 3, 1));
    expect(filed).toMatchObject({
      issue_type: 'bug',
      parent: w.epic.id,
      labels: ['source:review'],
      'helix-triggering-bead': w.task.id,
      'helix-triggering-cycle': 4,
      dependencies: [expect.objectContaining({ depends_on_id: w.task.id })],
    });
    expect(filed!.title).toBe(`Review findings for ${w.task.id} (cycle 4): 2 not filed by the reviewer`);
    expect(filed!.description).toContain('finding two');
  });

  it('files nothing when the reviewer filed them all, by its count or by the beads it created', () => {
    const w = world();
    expect(fileUnfiledFindings(w.s, input(w, 2, 2))).toBeUndefined();
    w.s.mutate((d) => createBead(d, { title: 'a', labels: ['source:review'] }, 'hx'));
    w.s.mutate((d) => createBead(d, { title: 'b', labels: ['source:review'] }, 'hx'));
    w.s.mutate((d) => createBead(d, { title: 'not a finding' }, 'hx'));
    expect(fileUnfiledFindings(w.s, input(w, 2))).toBeUndefined();
    expect(w.s.read().beads).toHaveLength(5);
  });

  it('a review outside the run whose scope is no bead files a bug without links, cycle or triggering bead', () => {
    const w = world();
    const filed = fileUnfiledFindings(w.s, { ...input(w, 2), reviewed: undefined, reviewedId: 'last-commit', cycle: undefined });
    expect(filed!.title).toBe('Review findings for last-commit: 2 not filed by the reviewer');
    expect(filed!.parent).toBeUndefined();
    expect(filed!.dependencies ?? []).toEqual([]);
    expect(filed).not.toHaveProperty('helix-triggering-bead');
    expect(filed).not.toHaveProperty('helix-triggering-cycle');
  });

  it('followUpReview files only for an interpretable ISSUES_FOUND with a count, and reports a tracker it cannot write', () => {
    const w = world();
    const review = { reviewed: w.task, reviewedId: w.task.id, cycle: undefined, before: w.before, output: 'x' };
    expect(followUpReview(w.s, parseTrailers('REVIEW_STATUS: CLEAN\nISSUES_COUNT: 3'), review)).toEqual({ outcome: 'none' });
    expect(followUpReview(w.s, parseTrailers('REVIEW_STATUS: ISSUES_FOUND'), review)).toEqual({ outcome: 'none' });
    expect(w.s.read().beads).toHaveLength(2);
    const filed = followUpReview(w.s, parseTrailers('REVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 1'), review);
    if (filed.outcome !== 'filed') throw new Error(`expected a filed follow-up, got ${filed.outcome}`);
    expect(filed.line).toBe(`helix: filed review follow-up ${filed.bead.id} for ${w.task.id}`);
    expect(filed.bead.dependencies).toEqual([expect.objectContaining({ depends_on_id: w.task.id })]);
    writeFileSync(w.s.file, `${readFileSync(w.s.file, 'utf8')}not json\n`);
    const failed = followUpReview(w.s, parseTrailers('REVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 4'), { ...review, before: new Set(w.s.read().beads.map((b) => b.id)) });
    expect(failed).toMatchObject({ outcome: 'failed', line: expect.stringContaining('helix: could not file review findings: bead: refusing to write') });
  });
});

describe('routing details (state machine)', () => {
  it('ALIGN auto-aligns once per build interval: again after a build, not twice without one', () => {
    const config = settings();
    const aligned = (state: ReturnType<typeof initialState>) => step(step(state, { type: 'checked', nextAction: 'ALIGN' }, config).state, { type: 'actionDone', action: 'align', purpose: 'drain', ok: true }, config);
    const first = aligned(initialState());
    expect(first.effects).toEqual([{ type: 'runCheck' }]);
    // ALIGN again with no build between: stop
    expect(step(first.state, { type: 'checked', nextAction: 'ALIGN' }, config).effects).toEqual([
      { type: 'stop', exitCode: 0, reason: 'completed', message: 'helix: stopping after check returned ALIGN' },
    ]);
    // a build attempt (even a failed one) starts a new interval: ALIGN aligns again
    const built = step(first.state, { type: 'attempted', bead: bead({ id: 'hx-b' }), outcome: { kind: 'failed', failure: 'agent-failed', detail: 'x' }, durationSec: 1, tokens: 0 }, config);
    expect(step(built.state, { type: 'checked', nextAction: 'ALIGN' }, config).effects).toEqual([{ type: 'runAction', action: 'align', purpose: 'drain' }]);
    // a failed align does not count as aligned, and stops the run
    const failed = step(step(initialState(), { type: 'checked', nextAction: 'ALIGN' }, config).state, { type: 'actionDone', action: 'align', purpose: 'drain', ok: false, detail: 'codex exited 1' }, config);
    expect(failed.state.alignedSinceBuild).toBe(false);
    expect(failed.state.stop).toEqual({ exitCode: 1, reason: 'error' });
  });

  it('STOP does not align a second time after an ALIGN pass in the same interval', () => {
    const p = play({ beads: [bead({ id: 'hx-s' })], checks: ['ALIGN', 'STOP'] }, settings());
    expect(p.of('runAction').map((a) => `${a.action}:${a.purpose}`)).toEqual(['align:drain']);
    expect(p.of('stop')[0]?.message).toBe('helix: stopping after check returned STOP');
  });

  it('the post-implementation review names the reviewed bead; the post-epic review names the epic and its scope', () => {
    const config = settings({ autoReview: true });
    const task = bead({ id: 'hx-c', parent: 'hx-e' });
    const big = step(initialState(), { type: 'attempted', bead: task, outcome: { kind: 'completed', salvaged: false, change: { lines: 500, files: 1 } }, durationSec: 1, tokens: 0 }, config);
    expect(big.effects.filter((e) => e.type === 'runReview')).toEqual([{ type: 'runReview', scope: 'last-commit', cycle: 1, beadId: 'hx-c' }]);
    const small = step(initialState(), { type: 'attempted', bead: task, outcome: { kind: 'completed', salvaged: false, change: { lines: 99, files: 2 } }, durationSec: 1, tokens: 0 }, config);
    expect(small.effects.some((e) => e.type === 'runReview')).toBe(false);
    const epic = step(big.state, { type: 'epicClosed', epicId: 'hx-e', reviewScope: 'SPEC-9' }, config);
    expect(epic.effects.filter((e) => e.type === 'runReview')).toEqual([{ type: 'runReview', scope: 'SPEC-9', cycle: 1, beadId: 'hx-e' }]);
  });
});
