import { describe, expect, it } from 'vitest';
import { parseNameList, parseNextAction, parseTrailers } from '../../src/agents/index.js';

describe('NEXT_ACTION (docs/contract/cli.md §6, §8)', () => {
  it('matches a plain trailer', () => {
    expect(parseNextAction('NEXT_ACTION: STOP\nreason: nothing left\n')).toBe('STOP');
  });

  it('matches markdown-decorated trailers anywhere on a line', () => {
    expect(parseNextAction('**NEXT_ACTION:** `BUILD`')).toBe('BUILD');
    expect(parseNextAction('> Result — `NEXT_ACTION: WAIT` (claimed work)')).toBe('WAIT');
  });

  it('the last one wins (prose above the trailers may quote another)', () => {
    expect(parseNextAction('NEXT_ACTION: DESIGN\nlater\nNEXT_ACTION: STOP\n')).toBe('STOP');
    expect(parseNextAction('The skill says "NEXT_ACTION: POLISH" when polish is due; it is not.\n\nNEXT_ACTION: WAIT')).toBe('WAIT');
  });

  it('skips an echoed template list and placeholders', () => {
    expect(parseNextAction('Answer with NEXT_ACTION: BUILD|DESIGN|STOP\nNEXT_ACTION: <CODE>\nNEXT_ACTION: GUIDANCE\n')).toBe('GUIDANCE');
  });

  it('is undefined when no valid code appears', () => {
    expect(parseNextAction('I think we should build.\nNEXT_ACTION: MAYBE\n')).toBeUndefined();
    expect(parseNextAction('MY_NEXT_ACTION: STOP')).toBeUndefined();
  });
});

describe('parseTrailers', () => {
  it('reads the review, backfill, plan and polish trailers', () => {
    const t = parseTrailers(
      [
        '**REVIEW_STATUS:** ISSUES_FOUND',
        'ISSUES_COUNT: 3',
        'FINDINGS_FILED: `2`',
        'BACKFILL_STATUS: COMPLETE',
        'BACKFILL_REPORT: docs/helix/backfill-report.md',
        'RESEARCH_EPIC: none',
        'PLAN_STATUS: CONVERGED',
        'POLISH_STATUS: IN_PROGRESS',
      ].join('\n'),
    );
    expect(t).toEqual({
      nextAction: undefined,
      reviewStatus: 'ISSUES_FOUND',
      issuesCount: 3,
      findingsFiled: 2,
      backfillStatus: 'COMPLETE',
      backfillReport: 'docs/helix/backfill-report.md',
      researchEpic: 'none',
      planStatus: 'CONVERGED',
      polishStatus: 'IN_PROGRESS',
      utilized: undefined,
      learned: [],
    });
  });

  it('each trailer: the last valid one in the answer wins', () => {
    const t = parseTrailers('Earlier run: REVIEW_STATUS: CLEAN, ISSUES_COUNT: 0\nBACKFILL_REPORT: old.md\n\nREVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 3\nBACKFILL_REPORT: new.md\n');
    expect(t).toMatchObject({ reviewStatus: 'ISSUES_FOUND', issuesCount: 3, backfillReport: 'new.md' });
  });

  it('absent trailers stay undefined; an echoed template is not an answer', () => {
    const t = parseTrailers('REVIEW_STATUS: CLEAN|ISSUES_FOUND\nBACKFILL_REPORT: <path>\n');
    expect(t.reviewStatus).toBeUndefined();
    expect(t.backfillReport).toBeUndefined();
    expect(t.issuesCount).toBeUndefined();
  });

  it('collects every LEARNED and INSIGHT line in order', () => {
    const t = parseTrailers('LEARNED: run `npm ci` before tests\n- **INSIGHT:** the lock is per folder\nsome prose about LEARNED: lines\nLEARNED:\n');
    expect(t.learned).toEqual(['run `npm ci` before tests', 'the lock is per folder']);
  });

  it('reads UTILIZED as a JSON list or a comma list, merging lines', () => {
    expect(parseTrailers('UTILIZED: ["retry-flaky-net", "use-fake-clock"]').utilized).toEqual(['retry-flaky-net', 'use-fake-clock']);
    expect(parseTrailers('UTILIZED: a, b\n**UTILIZED:** [b, c]').utilized).toEqual(['a', 'b', 'c']);
    expect(parseTrailers('UTILIZED: none').utilized).toEqual([]);
    expect(parseTrailers('nothing here').utilized).toBeUndefined();
  });

  it('parseNameList tolerates quotes and brackets', () => {
    expect(parseNameList("['x', 'y']")).toEqual(['x', 'y']);
    expect(parseNameList('[]')).toEqual([]);
  });
});
