// How helix judges an action's answer by the trailers its action file demands (docs/contract/bash-interface.md §6,
// §9): review and backfill are decided by their trailers and print the Bash CLI's verdict lines;
// plan, polish, align and experiment by the exit status. Shared by the one-shot commands and
// `helix run`. Pure: whether the declared report exists is a fact the shell supplies (`isFile`).
import { resolve } from 'node:path';
import type { Trailers } from '../../agents/trailers.js';
import { EXIT } from '../../errors.js';
import type { ReviewOutcome } from './machine-types.js';
import { BACKFILL, REVIEW } from '../text/lines.js';

export type JudgedAction = 'align' | 'backfill' | 'design' | 'polish' | 'review' | 'experiment';

export interface ActionVerdict {
  ok: boolean;
  /** The Bash CLI's exit status for this answer (a review that found issues: 10). */
  exitCode: number;
  /** Always-lines, printed on stderr after the answer. */
  lines: string[];
  /** Why it is not ok, in a few words (for run-loop detail lines). */
  reason?: string;
}

/** Review output helix can act on: CLEAN, or ISSUES_FOUND with its ISSUES_COUNT. */
export function reviewParseable(trailers: Trailers): boolean {
  return trailers.reviewStatus === 'CLEAN' || (trailers.reviewStatus === 'ISSUES_FOUND' && trailers.issuesCount !== undefined);
}

/** §9: no status → 1; CLEAN → 0; ISSUES_FOUND without a count → 1; with a count → 10. */
export function judgeReview(trailers: Trailers): ActionVerdict {
  if (!trailers.reviewStatus) return { ok: false, exitCode: EXIT.error, lines: [REVIEW.missingStatus], reason: 'review output missing REVIEW_STATUS trailer' };
  if (trailers.reviewStatus === 'CLEAN') return { ok: true, exitCode: EXIT.ok, lines: [] };
  if (trailers.issuesCount === undefined) return { ok: false, exitCode: EXIT.error, lines: [REVIEW.missingCount], reason: 'review output missing ISSUES_COUNT trailer' };
  return { ok: true, exitCode: EXIT.reviewIssuesFound, lines: [REVIEW.reported(trailers.issuesCount, trailers.findingsFiled ?? 0)] };
}

/** Where an action's answer is judged: the repository, and a test for a file in it (read by the shell). */
export interface AnswerPlace {
  root: string;
  isFile: (path: string) => boolean;
}

/** §6, in the Bash CLI's order: status, report trailer, report file, then the epic and report lines. */
export function judgeBackfill(trailers: Trailers, place: AnswerPlace): ActionVerdict {
  const fail = (line: string): ActionVerdict => ({ ok: false, exitCode: EXIT.error, lines: [line], reason: line.replace(/^helix: /, '') });
  if (!trailers.backfillStatus) return fail(BACKFILL.missingStatus);
  if (!trailers.backfillReport) return fail(BACKFILL.missingReport);
  if (!place.isFile(resolve(place.root, trailers.backfillReport))) return fail(BACKFILL.reportMissing(trailers.backfillReport));
  const lines = [...(trailers.researchEpic ? [BACKFILL.researchEpic(trailers.researchEpic)] : []), BACKFILL.report(trailers.backfillReport)];
  if (trailers.backfillStatus === 'BLOCKED') return { ok: false, exitCode: EXIT.error, lines, reason: 'backfill BLOCKED' };
  return { ok: true, exitCode: EXIT.ok, lines };
}

export function judgeAction(action: JudgedAction, exitCode: number, trailers: Trailers, place: AnswerPlace): ActionVerdict {
  if (action === 'review') return judgeReview(trailers);
  if (action === 'backfill') return judgeBackfill(trailers, place);
  return { ok: exitCode === 0, exitCode: exitCode === 0 ? EXIT.ok : EXIT.error, lines: [] };
}

/** How a review inside the loop read: no verdict (unparseable), ISSUES_FOUND, or clean. */
export function reviewOutcomeOf(verdict: ActionVerdict, trailers: Trailers): ReviewOutcome {
  if (!verdict.ok) return 'unparseable';
  return trailers.reviewStatus === 'ISSUES_FOUND' ? 'issues' : 'clean';
}

/**
 * A drain, pre-stop or periodic action as the loop counts it: a verdict that failed with a reason
 * (backfill's trailers) fails it with that reason; otherwise the agent's exit status decides.
 */
export function drainActionResult(verdict: ActionVerdict, exitCode: number, label: string): { ok: boolean; detail?: string } {
  if (!verdict.ok && verdict.reason) return { ok: false, detail: verdict.reason };
  const ok = exitCode === 0;
  return { ok, detail: ok ? undefined : `${label} exited ${exitCode}` };
}
