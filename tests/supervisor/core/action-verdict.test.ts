// How an action's answer is judged by the trailers its action file demands (docs/contract/bash-interface.md §6, §9),
// with a real report file for backfill.
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTrailers } from '../../../src/agents/index.js';
import { drainActionResult, judgeAction, reviewOutcomeOf } from '../../../src/supervisor/core/action-verdict.js';
import { tempDir } from '../../helpers/cli.js';

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

describe('the loop’s reading of a verdict', () => {
  const review = (text: string) => {
    const trailers = parseTrailers(text);
    return reviewOutcomeOf(judgeAction('review', 0, trailers, { root: '/nonexistent', isFile: () => false }), trailers);
  };
  it('a review: clean, issues, or unparseable without a verdict', () => {
    expect(review('REVIEW_STATUS: CLEAN')).toBe('clean');
    expect(review('REVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 2')).toBe('issues');
    expect(review('REVIEW_STATUS: ISSUES_FOUND')).toBe('unparseable');
    expect(review('no trailers')).toBe('unparseable');
  });
  it('a drain action: the verdict’s reason when it has one, else the agent’s exit status', () => {
    expect(drainActionResult({ ok: false, exitCode: 1, lines: [], reason: 'backfill BLOCKED' }, 0, 'codex')).toEqual({ ok: false, detail: 'backfill BLOCKED' });
    expect(drainActionResult({ ok: false, exitCode: 1, lines: [] }, 3, 'codex')).toEqual({ ok: false, detail: 'codex exited 3' });
    expect(drainActionResult({ ok: true, exitCode: 0, lines: [] }, 0, 'codex')).toEqual({ ok: true, detail: undefined });
  });
});
