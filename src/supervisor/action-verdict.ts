// How helix judges an action's answer by the trailers its action file demands (contract §8):
// review and backfill are decided by their trailers; plan, polish, align and experiment by the
// exit status (their trailers are only logged). Shared by the one-shot commands and `helix run`.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Trailers } from '../agents/index.js';

export type JudgedAction = 'align' | 'backfill' | 'design' | 'polish' | 'review' | 'experiment';

export interface ActionVerdict {
  ok: boolean;
  lines: string[];
  /** Why it is not ok, in a few words (for `helix: <action> failed …` lines). */
  reason?: string;
}

/** Review output helix can act on: CLEAN, or ISSUES_FOUND with its ISSUES_COUNT. */
export function reviewParseable(trailers: Trailers): boolean {
  return trailers.reviewStatus === 'CLEAN' || (trailers.reviewStatus === 'ISSUES_FOUND' && trailers.issuesCount !== undefined);
}

export function judgeAction(action: JudgedAction, exitCode: number, trailers: Trailers, root: string): ActionVerdict {
  if (action === 'review') {
    if (!reviewParseable(trailers)) {
      // The contract's line first (scripts match it), then what exactly was missing when it was the count.
      const lines = ['helix: review output missing REVIEW_STATUS trailer'];
      if (trailers.reviewStatus === 'ISSUES_FOUND') lines.push('helix: review said ISSUES_FOUND without an ISSUES_COUNT trailer');
      return { ok: false, reason: 'review output missing REVIEW_STATUS trailer', lines };
    }
    if (trailers.reviewStatus === 'CLEAN') return { ok: true, lines: ['helix: review CLEAN'] };
    return { ok: true, lines: [`helix: review found ${trailers.issuesCount} issue(s)${trailers.findingsFiled !== undefined ? `, ${trailers.findingsFiled} filed` : ''}`] };
  }
  if (action === 'backfill') return judgeBackfill(trailers, root);
  const status = trailers.planStatus ?? trailers.polishStatus;
  return { ok: exitCode === 0, lines: status ? [`helix: ${action} status ${status}`] : [] };
}

/** COMPLETE / GUIDANCE_NEEDED with a report file that exists → ok; anything else says which part failed. */
function judgeBackfill(trailers: Trailers, root: string): ActionVerdict {
  const lines: string[] = [];
  lines.push(`helix: research epic=${trailers.researchEpic ?? 'none'}`);
  if (trailers.backfillReport) lines.push(`helix: backfill report=${trailers.backfillReport}`);
  const fail = (reason: string): ActionVerdict => ({ ok: false, reason, lines: [...lines, `helix: ${reason}`] });
  if (!trailers.backfillStatus) return fail('backfill output missing BACKFILL_STATUS trailer');
  if (trailers.backfillStatus === 'BLOCKED') return fail('backfill BLOCKED');
  if (!trailers.backfillReport) return fail('backfill output missing BACKFILL_REPORT trailer');
  if (!existsSync(resolve(root, trailers.backfillReport))) return fail(`backfill report not found: ${trailers.backfillReport}`);
  return { ok: true, lines: [...lines, `helix: backfill ${trailers.backfillStatus}`] };
}
