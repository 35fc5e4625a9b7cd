// Similarity thresholds are cosines of the active embedder, so each embedder has its own set.
// MiniLM uses the design's numbers (seed 000/002 and the contract). The lexical fallback's were
// calibrated on eval/memory-eval.json with scripts/eval-memory.mjs --calibrate (see
// docs/readme/memory.md): identical text merges, different problems described with overlapping
// vocabulary do not, and unrelated texts stay below the auto-link line.

export interface Thresholds {
  /** store merges into an existing memory of the same type at or above this cosine. */
  duplicate: number;
  /** consolidate merges pairs at or above this cosine. */
  consolidate: number;
  /** a new failure counts a recent one as "the same failure" at or above this cosine. */
  systemic: number;
  /** store links the new memory to neighbours at or above this cosine; suggest-edges likewise. */
  autoLink: number;
  /** below this relevance a memory is not worth injecting into an agent's prompt. */
  related: number;
  /** a memory that names a file the task touches has at least this relevance in inject. */
  fileFloor: number;
  /** the weight of this embedder's nearest-neighbour list in the rank fusion (0: not used). */
  semanticWeight: number;
  /** neighbours below this cosine stay out of the fusion: for this embedder they are unrelated. */
  semanticFloor: number;
}

/** The design's values for all-MiniLM-L6-v2. */
export const MINILM_THRESHOLDS: Thresholds = { duplicate: 0.85, consolidate: 0.9, systemic: 0.7, autoLink: 0.6, related: 0.2, fileFloor: 0.5, semanticWeight: 0.15, semanticFloor: 0.3 };

/**
 * Lexical (eval set, 64 memories): identical text 1.000; different problems max 0.309 (p99 0.213);
 * the same failure restated in other words 0.475–0.685 (median 0.596). So: merges stay at the
 * design's 0.85/0.9 (only near-identical wording merges, restatements survive to be counted);
 * "the same failure" from 0.45 (every restatement, no different-problem pair); auto-link from
 * 0.35 (above every different-problem pair); inject from 0.2 (≈ p99 of query-to-wrong-memory).
 */
export const LEXICAL_THRESHOLDS: Thresholds = { duplicate: 0.85, consolidate: 0.9, systemic: 0.45, autoLink: 0.4, related: 0.2, fileFloor: 0.5, semanticWeight: 0, semanticFloor: 0.1 };

/**
 * USE-lite packs everything higher: different problems max 0.855 (p99 0.793, median 0.604),
 * restatements 0.670–0.950 (median 0.815). The design's 0.85 would merge two different problems.
 */
export const USE_LITE_THRESHOLDS: Thresholds = { duplicate: 0.95, consolidate: 0.96, systemic: 0.92, autoLink: 0.9, related: 0.2, fileFloor: 0.5, semanticWeight: 0.15, semanticFloor: 0.3 };

export function thresholdsFor(embedderId: string): Thresholds {
  if (embedderId.startsWith('lexical-')) return LEXICAL_THRESHOLDS;
  if (embedderId.startsWith('use-lite')) return USE_LITE_THRESHOLDS;
  return MINILM_THRESHOLDS;
}
