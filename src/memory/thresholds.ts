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
}

/** The design's values for all-MiniLM-L6-v2. */
export const MINILM_THRESHOLDS: Thresholds = { duplicate: 0.85, consolidate: 0.9, systemic: 0.7, autoLink: 0.6, related: 0.3 };

export const LEXICAL_THRESHOLDS: Thresholds = { duplicate: 0.85, consolidate: 0.9, systemic: 0.7, autoLink: 0.6, related: 0.2 };

export const USE_LITE_THRESHOLDS: Thresholds = { duplicate: 0.85, consolidate: 0.9, systemic: 0.7, autoLink: 0.6, related: 0.3 };

export function thresholdsFor(embedderId: string): Thresholds {
  if (embedderId.startsWith('lexical-')) return LEXICAL_THRESHOLDS;
  if (embedderId.startsWith('use-lite')) return USE_LITE_THRESHOLDS;
  return MINILM_THRESHOLDS;
}
