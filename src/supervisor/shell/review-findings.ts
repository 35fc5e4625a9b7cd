// Review findings the reviewer counted but did not file (docs/contract/design.md §1: "review findings must create
// or reopen follow-up work before the loop advances"). The reviewer files each finding itself;
// when ISSUES_COUNT is larger than what it filed, helix files one follow-up bead holding the
// review's answer, linked to the reviewed bead (dependency) and its parent epic, so the queue
// picks the work up and the epic cannot close before it is done. Every finding records its depth
// in the review chain, and a review at the chain's limit files nothing: its findings stay in the
// reviewed bead's notes (core/review-chain.ts, docs/contract/cli.md §6.5). Shared by the review
// inside `helix run` and the one-shot `helix review`, lines included.
import type { Trailers } from '../../agents/index.js';
import { type Bead, type BeadStore, type Draft, createBead, idPrefix, labelsOf } from '../../tracker/index.js';
import { reviewParseable } from '../core/action-verdict.js';
import { REVIEW_DEPTH_KEY, reviewChainStep } from '../core/review-chain.js';
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

/** What a review's findings came to in the tracker. */
export type FindingsFiled =
  | { kind: 'none' }
  | { kind: 'filed'; bead: Bead }
  /** The reviewed bead is at the end of its chain: the findings went into its notes, nothing was filed. */
  | { kind: 'ended'; depth: number; limit: number; ineligible: string[] };

/**
 * Records a review's findings in one tracker write: the beads the reviewer filed carry their depth
 * in the review chain (core/review-chain.ts), and the findings it counted but did not file become
 * one follow-up bead — unless the reviewed bead is at the chain's limit: then they go into its
 * notes, and what the reviewer filed anyway is left out of the loop (execution-ineligible).
 */
export function fileFindings(store: BeadStore, input: ReviewFindings, now: Date = new Date()): FindingsFiled {
  return store.mutate((draft) => {
    const chain = reviewChainStep(input.reviewed && draft.get(input.reviewed.id));
    const own = filedDuringReview(draft.beads, input.before);
    for (const finding of own) {
      draft.change(finding.id, (b) => {
        b[REVIEW_DEPTH_KEY] = chain.findingDepth;
        if (!chain.file) b['execution-eligible'] = false;
      });
    }
    const missing = input.issuesCount - Math.max(input.findingsFiled ?? 0, own.length);
    if (chain.file) return missing > 0 ? { kind: 'filed', bead: fileFollowUp(draft, input, missing, chain.findingDepth, idPrefix(store.dir), now) } : { kind: 'none' };
    if (missing <= 0 && own.length === 0) return { kind: 'none' };
    const noted = REVIEW.chainEndedNote(chain.depth, chain.limit, excerptOf(input.output));
    draft.change(input.reviewedId, (b) => { b.notes = typeof b.notes === 'string' && b.notes ? `${b.notes}\n\n${noted}` : noted; });
    return { kind: 'ended', depth: chain.depth, limit: chain.limit, ineligible: own.map((b) => b.id) };
  });
}

/** The review's answer as a bead holds it: its last EXCERPT_LINES lines. */
const excerptOf = (output: string): string => output.trim().split('\n').slice(-EXCERPT_LINES).join('\n');

/** The one follow-up bead for the findings the reviewer counted but did not file. */
function fileFollowUp(draft: Draft, input: ReviewFindings, missing: number, depth: number, prefix: string, now: Date): Bead {
  const filed = input.issuesCount - missing;
  const parent = typeof input.reviewed?.parent === 'string' && draft.get(input.reviewed.parent) ? input.reviewed.parent : undefined;
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
      description: `The review of ${input.reviewedId} reported ${input.issuesCount} issue(s) and filed ${filed}. Split the rest into beads or fix them. Review answer (last ${EXCERPT_LINES} lines):\n\n${excerptOf(input.output)}`,
      acceptance: `Each finding in the review answer is fixed or filed as its own bead.`,
      createdBy: 'helix',
      set: ['execution-eligible=true'],
    },
    prefix,
    now,
  );
  // `helix status` reports these as triggering_bead / triggering_cycle: only real values.
  const markers = triggeringMarkers(input.cycle, reviewedBead ? input.reviewedId : undefined);
  return draft.change(bead.id, (b) => {
    b[REVIEW_DEPTH_KEY] = depth;
    if (markers) b.notes = markers;
  });
}

export type ReviewFollowUp =
  | { outcome: 'none' }
  | { outcome: 'filed'; bead: Bead; line: string }
  | { outcome: 'ended'; line: string }
  | { outcome: 'failed'; error: unknown; line: string };

/**
 * After a review answer: records its findings (fileFindings) and says what came of them. A review
 * without an interpretable ISSUES_FOUND files nothing of its own, but the beads its reviewer filed
 * still take their place in the chain. A tracker that cannot be written (lock timeout, malformed
 * file) is reported, not thrown: the review itself happened and its answer has been shown.
 */
export function followUpReview(
  store: BeadStore,
  trailers: Trailers,
  review: Omit<ReviewFindings, 'issuesCount' | 'findingsFiled'>,
  now: Date = new Date(),
): ReviewFollowUp {
  const found = reviewParseable(trailers) && trailers.reviewStatus === 'ISSUES_FOUND' ? (trailers.issuesCount ?? 0) : 0;
  try {
    const result = fileFindings(store, { ...review, issuesCount: found, findingsFiled: trailers.findingsFiled }, now);
    if (result.kind === 'none') return { outcome: 'none' };
    if (result.kind === 'ended') return { outcome: 'ended', line: REVIEW.chainEnded(review.reviewedId, result.depth, result.limit, result.ineligible) };
    countSupervisoryInjection(store.dir, FOLLOW_UP_LABELS);
    return { outcome: 'filed', bead: result.bead, line: REVIEW.followUpFiled(result.bead.id, review.reviewedId) };
  } catch (error) {
    return { outcome: 'failed', error, line: REVIEW.followUpFailed((error as Error).message) };
  }
}
