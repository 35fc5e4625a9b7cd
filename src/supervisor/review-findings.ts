// Review findings the reviewer counted but did not file (seed 004: "review findings must create
// or reopen follow-up work before the loop advances"). The reviewer files each finding itself;
// when ISSUES_COUNT is larger than what it filed, helix files one follow-up bead holding the
// review's answer, linked to the reviewed bead (dependency) and its parent epic, so the queue
// picks the work up and the epic cannot close before it is done. Shared by the review inside
// `helix run` and the one-shot `helix review`, lines included.
import type { Trailers } from '../agents/index.js';
import { type Bead, type BeadStore, createBead, idPrefix, labelsOf } from '../tracker/index.js';
import { reviewParseable } from './action-verdict.js';

export const REVIEW_LABEL = 'source:review';
/** The keys `helix status` reads for injected_supervisory (contract §10). */
export const TRIGGERING_BEAD_KEY = 'helix-triggering-bead';
export const TRIGGERING_CYCLE_KEY = 'helix-triggering-cycle';

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
  return beads.filter((b) => !before.has(b.id) && labelsOf(b).includes(REVIEW_LABEL));
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
        labels: [REVIEW_LABEL],
        parent,
        deps: reviewedBead ? [input.reviewedId] : [],
        description: `The review of ${input.reviewedId} reported ${input.issuesCount} issue(s) and filed ${filed}. Split the rest into beads or fix them. Review answer (last ${EXCERPT_LINES} lines):\n\n${excerpt}`,
        acceptance: `Each finding in the review answer is fixed or filed as its own bead.`,
        createdBy: 'helix',
      },
      idPrefix(store.dir),
      now,
    );
    // `helix status` reports these as triggering_bead / triggering_cycle: only real values.
    if (!reviewedBead && input.cycle === undefined) return bead;
    return draft.change(bead.id, (b) => {
      if (reviewedBead) b[TRIGGERING_BEAD_KEY] = input.reviewedId;
      if (input.cycle !== undefined) b[TRIGGERING_CYCLE_KEY] = input.cycle;
    });
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
    return { outcome: 'filed', bead, line: `helix: filed review follow-up ${bead.id} for ${review.reviewedId}` };
  } catch (error) {
    return { outcome: 'failed', error, line: `helix: could not file review findings: ${(error as Error).message}` };
  }
}
