// Review findings the reviewer counted but did not file: helix files one follow-up bead, on a real tracker file.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTrailers } from '../../../src/agents/index.js';
import { fileUnfiledFindings, followUpReview } from '../../../src/supervisor/shell/review-findings.js';
import { BeadStore, createBead } from '../../../src/tracker/index.js';
import { tempDir } from '../../helpers/cli.js';

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
