// How deep a chain of review findings has grown, and whether a review may file more
// (docs/contract/cli.md §6.5). A reviewer that finds issues after every build would otherwise file a
// follow-up for each answer, each built and reviewed again: an endless run. The depth is counted
// along the chain, on the beads themselves — each finding carries one more than the bead whose
// review filed it — so a new bead id never starts the count again.
import type { Bead } from '../../tracker/bead.js';
import { MAX_REVIEW_CHAIN_DEPTH } from './policy.js';

/** The field a review finding carries: its depth in the chain (DDx keeps helix's extra fields). */
export const REVIEW_DEPTH_KEY = 'helix-review-depth';

/**
 * A bead's depth in its review chain. No field: a bead a person filed, 0. A value helix cannot read
 * counts as the limit: it ends a chain rather than starting it again.
 */
export function chainDepthOf(bead: Bead | undefined, limit: number = MAX_REVIEW_CHAIN_DEPTH): number {
  const value = bead?.[REVIEW_DEPTH_KEY];
  if (value === undefined) return 0;
  const depth = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof depth === 'number' && Number.isSafeInteger(depth) && depth >= 0 ? depth : limit;
}

export interface ChainStep {
  /** False when the reviewed bead is at the limit: nothing is filed, the findings go into its notes. */
  file: boolean;
  /** The reviewed bead's depth. */
  depth: number;
  /** The depth each finding of this review carries (the reviewer's own beads too). */
  findingDepth: number;
  limit: number;
}

/** What a review of `reviewed` may do with its findings. */
export function reviewChainStep(reviewed: Bead | undefined, limit: number = MAX_REVIEW_CHAIN_DEPTH): ChainStep {
  const depth = chainDepthOf(reviewed, limit);
  return { file: depth < limit, depth, findingDepth: depth + 1, limit };
}
