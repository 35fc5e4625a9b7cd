// Review findings the reviewer counted but did not file: helix files one follow-up bead, on a real tracker file.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTrailers } from '../../../src/agents/index.js';
import { type FindingsFiled, fileFindings, followUpReview } from '../../../src/supervisor/shell/review-findings.js';
import { BeadStore, createBead } from '../../../src/tracker/index.js';
import { tempDir } from '../../helpers/cli.js';

/** The follow-up bead of a result that filed one (fails the test otherwise). */
function filedBead(result: FindingsFiled) {
  if (result.kind !== 'filed') throw new Error(`expected a filed follow-up, got ${result.kind}`);
  return result.bead;
}

function store(): BeadStore {
  return new BeadStore(join(tempDir(), '.ddx'), {});
}

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
    const filed = filedBead(fileFindings(w.s, input(w, 3, 1)));
    expect(filed).toMatchObject({
      issue_type: 'bug',
      parent: w.epic.id,
      labels: ['helix', 'phase:build', 'review-finding'],
      'execution-eligible': true,
      notes: `TRIGGERING_CYCLE=4 TRIGGERING_BEAD=${w.task.id}`,
      dependencies: [expect.objectContaining({ depends_on_id: w.task.id })],
      'helix-review-depth': 1,
    });
    expect(filed!.title).toBe(`Review findings for ${w.task.id} (cycle 4): 2 not filed by the reviewer`);
    expect(filed!.description).toContain('finding two');
  });

  it('files nothing when the reviewer filed them all, by its count or by the beads it created', () => {
    const w = world();
    expect(fileFindings(w.s, input(w, 2, 2))).toEqual({ kind: 'none' });
    w.s.mutate((d) => createBead(d, { title: 'a', labels: ['review-finding'] }, 'hx'));
    // the label older helix versions used still counts
    w.s.mutate((d) => createBead(d, { title: 'b', labels: ['source:review'] }, 'hx'));
    w.s.mutate((d) => createBead(d, { title: 'not a finding' }, 'hx'));
    expect(fileFindings(w.s, input(w, 2))).toEqual({ kind: 'none' });
    expect(w.s.read().beads).toHaveLength(5);
  });

  it('a review outside the run whose scope is no bead files a bug without links, cycle or triggering bead', () => {
    const w = world();
    const filed = filedBead(fileFindings(w.s, { ...input(w, 2), reviewed: undefined, reviewedId: 'last-commit', cycle: undefined }));
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

describe('the review chain (docs/contract/cli.md §6.5)', () => {
  const ISSUES = parseTrailers('Parse swallows errors\nREVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 1');
  function chainOf(depth: number | undefined) {
    const s = store();
    const reviewed = s.mutate((d) => createBead(d, { title: 'reviewed' }, 'hx'));
    if (depth !== undefined) s.mutate((d) => d.change(reviewed.id, (b) => { b['helix-review-depth'] = depth; b.notes = 'TRIGGERING_CYCLE=2'; }));
    const review = () => ({ reviewed: s.read().byId.get(reviewed.id), reviewedId: reviewed.id, cycle: 5, before: new Set(s.read().beads.map((b) => b.id)), output: 'Parse swallows errors\nREVIEW_STATUS: ISSUES_FOUND' });
    return { s, reviewed, review };
  }

  it('each finding is one deeper than the bead whose review filed it, the reviewer\'s own beads too', () => {
    const { s, review } = chainOf(undefined);
    const first = followUpReview(s, ISSUES, review());
    if (first.outcome !== 'filed') throw new Error(first.outcome);
    expect(first.bead['helix-review-depth']).toBe(1);
    // the follow-up's own review: its findings are depth 2, whoever files them
    const next = { ...review(), reviewed: s.read().byId.get(first.bead.id), reviewedId: first.bead.id };
    s.mutate((d) => createBead(d, { title: 'the reviewer filed this', labels: ['review-finding'] }, 'hx'));
    const second = followUpReview(s, parseTrailers('REVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 2\nFINDINGS_FILED: 1'), next);
    if (second.outcome !== 'filed') throw new Error(second.outcome);
    expect(second.bead['helix-review-depth']).toBe(2);
    expect(s.read().beads.find((b) => b.title === 'the reviewer filed this')).toMatchObject({ 'helix-review-depth': 2 });
  });

  it('at the limit (3) nothing is filed: the answer goes into the reviewed bead\'s notes, one line says so', () => {
    const { s, reviewed, review } = chainOf(3);
    const ended = followUpReview(s, ISSUES, review());
    expect(ended).toEqual({ outcome: 'ended', line: `helix: review of ${reviewed.id} ends its follow-up chain at depth 3 (limit 3): findings left in its notes, no follow-up filed` });
    expect(s.read().beads).toHaveLength(1);
    const notes = String(s.read().byId.get(reviewed.id)!.notes);
    // the markers `helix status` reads stay first
    expect(notes.startsWith('TRIGGERING_CYCLE=2\n\nReview findings not filed: this bead is at depth 3 of its review chain (limit 3')).toBe(true);
    expect(notes).toContain('Parse swallows errors');
  });

  it('at the limit the beads the reviewer filed itself stay, out of the loop (execution-ineligible), whatever the verdict', () => {
    for (const answer of ['REVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 1\nFINDINGS_FILED: 1', 'REVIEW_STATUS: CLEAN', 'no verdict']) {
      const { s, reviewed, review } = chainOf(3);
      const before = review();
      const own = s.mutate((d) => createBead(d, { title: 'filed anyway', labels: ['review-finding'], set: ['execution-eligible=true'] }, 'hx'));
      const ended = followUpReview(s, parseTrailers(answer), before);
      expect(ended, answer).toEqual({ outcome: 'ended', line: expect.stringMatching(new RegExp(`^helix: review of ${reviewed.id} ends .*; ${own.id} filed by the reviewer set execution-ineligible$`)) });
      expect(s.read().byId.get(own.id), answer).toMatchObject({ status: 'open', 'execution-eligible': false, 'helix-review-depth': 4 });
    }
  });

  it('a clean review at the limit leaves the bead untouched', () => {
    const { s, reviewed, review } = chainOf(3);
    expect(followUpReview(s, parseTrailers('REVIEW_STATUS: CLEAN'), review())).toEqual({ outcome: 'none' });
    expect(s.read().byId.get(reviewed.id)!.notes).toBe('TRIGGERING_CYCLE=2');
  });
});
