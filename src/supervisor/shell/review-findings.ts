// Review findings the reviewer counted but did not file (docs/contract/design.md §1: "review findings must create
// or reopen follow-up work before the loop advances"). The reviewer files each finding itself;
// when ISSUES_COUNT is larger than what it filed, helix files one follow-up bead holding the
// review's answer, linked to the reviewed bead (dependency) and its parent epic, so the queue
// picks the work up and the epic cannot close before it is done. Shared by the review inside
// `helix run` and the one-shot `helix review`, lines included.
import type { Trailers } from '../../agents/index.js';
import { type Bead, type BeadStore, createBead, idPrefix, labelsOf } from '../../tracker/index.js';
import { reviewParseable } from '../core/action-verdict.js';
import { REVIEW } from '../text/lines.js';
import { countSupervisoryInjection } from './run-state.js';

/** Review findings carry this label (docs/contract/bash-interface.md §1.8): `ddx bead list --label review-finding` finds them. */
export const REVIEW_LABEL = 'review-finding';
/** helix's follow-up bead is build work like any finding: a build phase label makes it execution-eligible. */
export const FOLLOW_UP_LABELS = ['helix', 'phase:build', REVIEW_LABEL];
/** Labels helix used before for review findings: still recognised as findings. */
const LEGACY_REVIEW_LABELS = ['source:review'];

/** The notes markers `helix status --json` reads a finding's cause from (§14.2). */
export function triggeringMarkers(cycle: number | undefined, bead: string | undefined): string {
  return [cycle !== undefined ? `TRIGGERING_CYCLE=${cycle}` : '', bead ? `TRIGGERING_BEAD=${bead}` : ''].filter(Boolean).join(' ');
}

/** How much of the review's answer goes into the follow-up bead. */
const EXCERPT_LINES = 60;

export interface ReviewFindings {
  /** The reviewed bead, when the review's scope is one (a commit range or spec id is not). */
  reviewed: Bead | undefined;
  /** The bead id inside `helix run`; the one-shot review's scope. */
  reviewedId: string;
  /** The run's cycle; undefined for the one-shot review. */
  cycle: number | undefined;
  issuesCount: number;
  /** FINDINGS_FILED from the answer (undefined when absent). */
  findingsFiled: number | undefined;
  /** Ids of beads that existed before the review ran. */
  before: Set<string>;
  output: string;
}

/** Review beads the reviewer created during this review. */
export function filedDuringReview(beads: Bead[], before: Set<string>): Bead[] {
  return beads.filter((b) => !before.has(b.id) && labelsOf(b).some((l) => l === REVIEW_LABEL || LEGACY_REVIEW_LABELS.includes(l)));
}

/** Files the unfiled findings as one follow-up bead; returns it, or undefined when all were filed. */
export function fileUnfiledFindings(store: BeadStore, input: ReviewFindings, now: Date = new Date()): Bead | undefined {
  return store.mutate((draft) => {
    const seen = filedDuringReview(draft.beads, input.before).length;
    const filed = Math.max(input.findingsFiled ?? 0, seen);
    const missing = input.issuesCount - filed;
    if (missing <= 0) return undefined;
    const parent = typeof input.reviewed?.parent === 'string' && draft.get(input.reviewed.parent) ? input.reviewed.parent : undefined;
    const excerpt = input.output.trim().split('\n').slice(-EXCERPT_LINES).join('\n');
    const reviewedBead = draft.get(input.reviewedId) !== undefined;
    const cycle = input.cycle === undefined ? '' : ` (cycle ${input.cycle})`;
    const bead = createBead(
      draft,
      {
        title: `Review findings for ${input.reviewedId}${cycle}: ${missing} not filed by the reviewer`,
        type: 'bug',
        labels: FOLLOW_UP_LABELS,
        parent,
        deps: reviewedBead ? [input.reviewedId] : [],
        description: `The review of ${input.reviewedId} reported ${input.issuesCount} issue(s) and filed ${filed}. Split the rest into beads or fix them. Review answer (last ${EXCERPT_LINES} lines):\n\n${excerpt}`,
        acceptance: `Each finding in the review answer is fixed or filed as its own bead.`,
        createdBy: 'helix',
        set: ['execution-eligible=true'],
      },
      idPrefix(store.dir),
      now,
    );
    // `helix status` reports these as triggering_bead / triggering_cycle: only real values.
    const markers = triggeringMarkers(input.cycle, reviewedBead ? input.reviewedId : undefined);
    return markers ? draft.change(bead.id, (b) => { b.notes = markers; }) : bead;
  });
}

export type ReviewFollowUp =
  | { outcome: 'none' }
  | { outcome: 'filed'; bead: Bead; line: string }
  | { outcome: 'failed'; error: unknown; line: string };

/**
 * After a review answer: files what an interpretable ISSUES_FOUND left unfiled and says so.
 * A tracker that cannot be written (lock timeout, malformed file) is reported, not thrown: the
 * review itself happened and its answer has been shown.
 */
export function followUpReview(
  store: BeadStore,
  trailers: Trailers,
  review: Omit<ReviewFindings, 'issuesCount' | 'findingsFiled'>,
  now: Date = new Date(),
): ReviewFollowUp {
  if (!reviewParseable(trailers) || trailers.reviewStatus !== 'ISSUES_FOUND' || !trailers.issuesCount) return { outcome: 'none' };
  try {
    const bead = fileUnfiledFindings(store, { ...review, issuesCount: trailers.issuesCount, findingsFiled: trailers.findingsFiled }, now);
    if (!bead) return { outcome: 'none' };
    countSupervisoryInjection(store.dir, FOLLOW_UP_LABELS);
    return { outcome: 'filed', bead, line: REVIEW.followUpFiled(bead.id, review.reviewedId) };
  } catch (error) {
    return { outcome: 'failed', error, line: REVIEW.followUpFailed((error as Error).message) };
  }
}
