// The pure and store-level parts of the actions, in process: how answers are judged, the
// governing bead's life cycle on a real tracker file, filing unfiled review findings, and the
// routing cases the black-box tests would need many agent calls for.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTrailers } from '../../src/agents/index.js';
import { judgeAction } from '../../src/supervisor/core/action-verdict.js';
import { GOVERNING_LABELS, acquireGoverningBead } from '../../src/supervisor/shell/governing.js';
import { fileUnfiledFindings, followUpReview } from '../../src/supervisor/shell/review-findings.js';
import { BeadStore, createBead } from '../../src/tracker/index.js';
import { tempDir } from '../helpers/cli.js';
import { initialState, step } from '../../src/supervisor/core/machine.js';
import { bead, play, settings } from '../supervisor/builders.js';

const judge = (action: Parameters<typeof judgeAction>[0], text: string, exitCode = 0, root = '/nonexistent') => judgeAction(action, exitCode, parseTrailers(text), { root, isFile: (path) => existsSync(path) && statSync(path).isFile() });

describe('judging an answer by its trailers (docs/contract/bash-interface.md §6, §9)', () => {
  it('backfill names the first thing wrong, in the Bash order: status, report trailer, report file, then BLOCKED', () => {
    const root = tempDir();
    writeFileSync(join(root, 'r.md'), 'report\n');
    const table: Array<[string, boolean, number, string[]]> = [
      ['BACKFILL_REPORT: x.md', false, 1, ['helix: backfill output missing BACKFILL_STATUS trailer']],
      ['BACKFILL_STATUS: BLOCKED\nBACKFILL_REPORT: gone.md', false, 1, ['helix: declared backfill report does not exist: gone.md']],
      ['BACKFILL_STATUS: BLOCKED\nBACKFILL_REPORT: r.md', false, 1, ['helix: backfill report=r.md']],
      ['BACKFILL_STATUS: COMPLETE', false, 1, ['helix: backfill output missing BACKFILL_REPORT trailer']],
      ['BACKFILL_STATUS: COMPLETE\nBACKFILL_REPORT: gone.md', false, 1, ['helix: declared backfill report does not exist: gone.md']],
      ['BACKFILL_STATUS: COMPLETE\nBACKFILL_REPORT: r.md', true, 0, ['helix: backfill report=r.md']],
      ['BACKFILL_STATUS: GUIDANCE_NEEDED\nBACKFILL_REPORT: r.md\nRESEARCH_EPIC: none', true, 0, ['helix: research epic=none', 'helix: backfill report=r.md']],
      // a directory is not a report file
      [`BACKFILL_STATUS: COMPLETE\nBACKFILL_REPORT: ${root}`, false, 1, [`helix: declared backfill report does not exist: ${root}`]],
    ];
    for (const [text, ok, exitCode, lines] of table) {
      const verdict = judge('backfill', text, 0, root);
      expect([text, verdict.ok, verdict.exitCode, verdict.lines]).toEqual([text, ok, exitCode, lines]);
    }
  });

  it('backfill prints the research epic only when the trailer is there, before the report line', () => {
    const root = tempDir();
    writeFileSync(join(root, 'r.md'), 'x\n');
    expect(judge('backfill', 'BACKFILL_STATUS: COMPLETE\nBACKFILL_REPORT: r.md\nRESEARCH_EPIC: hx-12345678', 0, root).lines).toEqual([
      'helix: research epic=hx-12345678',
      'helix: backfill report=r.md',
    ]);
    expect(judge('backfill', 'BACKFILL_STATUS: COMPLETE\nBACKFILL_REPORT: r.md', 0, root).lines).toEqual(['helix: backfill report=r.md']);
  });

  it('review: CLEAN 0 without a line, ISSUES_FOUND with a count 10, anything else 1 with the missing trailer named', () => {
    expect(judge('review', 'REVIEW_STATUS: CLEAN')).toEqual({ ok: true, exitCode: 0, lines: [] });
    expect(judge('review', 'REVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 2')).toEqual({ ok: true, exitCode: 10, lines: ['helix: review reported 2 issue(s), 0 filed as tracker issues'] });
    expect(judge('review', 'REVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 2\nFINDINGS_FILED: 1').lines).toEqual(['helix: review reported 2 issue(s), 1 filed as tracker issues']);
    expect(judge('review', 'REVIEW_STATUS: ISSUES_FOUND')).toMatchObject({ ok: false, exitCode: 1, lines: ['helix: review output missing ISSUES_COUNT trailer'] });
    expect(judge('review', 'REVIEW_STATUS: CLEAN|ISSUES_FOUND').ok).toBe(false);
    expect(judge('review', 'REVIEW_STATUS: MAYBE')).toMatchObject({ exitCode: 1, lines: ['helix: review output missing REVIEW_STATUS trailer'] });
  });

  it('plan, polish and align are decided by the exit status alone', () => {
    expect(judge('design', 'PLAN_STATUS: GUIDANCE_NEEDED')).toEqual({ ok: true, exitCode: 0, lines: [] });
    expect(judge('polish', 'POLISH_STATUS: CONVERGED', 1).ok).toBe(false);
    expect(judge('align', '', 0)).toEqual({ ok: true, exitCode: 0, lines: [] });
  });
});

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
      labels: ['helix', 'phase:build', 'review-finding'],
      'execution-eligible': true,
      notes: `TRIGGERING_CYCLE=4 TRIGGERING_BEAD=${w.task.id}`,
      dependencies: [expect.objectContaining({ depends_on_id: w.task.id })],
    });
    expect(filed!.title).toBe(`Review findings for ${w.task.id} (cycle 4): 2 not filed by the reviewer`);
    expect(filed!.description).toContain('finding two');
  });

  it('files nothing when the reviewer filed them all, by its count or by the beads it created', () => {
    const w = world();
    expect(fileUnfiledFindings(w.s, input(w, 2, 2))).toBeUndefined();
    w.s.mutate((d) => createBead(d, { title: 'a', labels: ['review-finding'] }, 'hx'));
    // the label older helix versions used still counts
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
    expect(filed).not.toHaveProperty('notes');
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
    const aligned = (state: ReturnType<typeof initialState>) => step(step(state, { type: 'checked', nextAction: 'ALIGN', ok: true }, config).state, { type: 'actionDone', action: 'align', purpose: 'drain', ok: true }, config);
    const first = aligned(initialState());
    expect(first.effects).toEqual([{ type: 'runCheck' }]);
    // ALIGN again with no build between: stop
    expect(step(first.state, { type: 'checked', nextAction: 'ALIGN', ok: true }, config).effects).toEqual([
      { type: 'stop', exitCode: 0, reason: 'completed', message: 'helix: stopping after check returned ALIGN' },
    ]);
    // a build attempt (even a failed one) starts a new interval: ALIGN aligns again
    const built = step(first.state, { type: 'attempted', bead: bead({ id: 'hx-b' }), outcome: { kind: 'failed', failure: 'agent-failed', detail: 'x' }, durationSec: 1, tokens: 0 }, config);
    expect(step(built.state, { type: 'checked', nextAction: 'ALIGN', ok: true }, config).effects).toEqual([
      { type: 'say', level: 'narrative', text: 'helix: queue drained, running alignment' },
      { type: 'runAction', action: 'align', purpose: 'drain' },
    ]);
    // a failed align does not count as aligned, and stops the run
    const failed = step(step(initialState(), { type: 'checked', nextAction: 'ALIGN', ok: true }, config).state, { type: 'actionDone', action: 'align', purpose: 'drain', ok: false, detail: 'codex exited 1' }, config);
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
    const big = step(initialState(), { type: 'attempted', bead: task, outcome: { kind: 'completed', salvaged: false, change: { scope: 'commit:abc', lines: 500, files: 1 } }, durationSec: 1, tokens: 0 }, config);
    expect(big.effects.filter((e) => e.type === 'runReview')).toEqual([{ type: 'runReview', kind: 'post-implementation', scope: 'commit:abc', cycle: 1, beadId: 'hx-c' }]);
    const small = step(initialState(), { type: 'attempted', bead: task, outcome: { kind: 'completed', salvaged: false, change: { scope: 'last-commit', lines: 99, files: 2 } }, durationSec: 1, tokens: 0 }, config);
    expect(small.effects.some((e) => e.type === 'runReview')).toBe(false);
    const epic = step(big.state, { type: 'epicClosed', epic: bead({ id: 'hx-e', issue_type: 'epic', status: 'closed', 'spec-id': 'SPEC-9' }) }, config);
    expect(epic.effects.filter((e) => e.type === 'runReview')).toEqual([{ type: 'runReview', kind: 'post-epic', scope: 'SPEC-9', cycle: 1, beadId: 'hx-e' }]);
  });

});
