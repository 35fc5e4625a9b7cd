// Each embedder has its own thresholds: the cosines of one model mean nothing to another, and the
// weight its neighbours get in the rank fusion (recall.ts) depends on how much they add to BM25.
// Calibrated on eval/memory-hard.json with `npm run eval:memory -- --curves` (tables in
// docs/memory.md): no pair of the set's distinct problems merges or counts toward systemic
// promotion, and the semantic weight is the one that did best on the tuning queries.
// fileFloor is on the fused rank scale, the same for every embedder; the gate is on match.ts's
// absolute scale, calibrated per embedder on the tune split of eval/memory-gate.json (issue #25).

/** The gate every embedder was calibrated to (its match is lexical; the candidates differ). */
const GATE = 0.4;

/**
 * The gate's second way in (injection.ts: gateReasons): the task's best match passes below the gate
 * when it is at least LEAD_RATIO times the runner-up's and LEADER_GATE_SHARE of the gate. Chosen on
 * the tune split of eval/memory-gate.json (issue #33, docs/memory.md): ratios 1.2–1.3 and shares
 * giving a leader's floor of ~0.28 did the same there (bead recall 0.593 → 0.852 at precision ≥ 0.8).
 */
export const LEAD_RATIO = 1.3;
export const LEADER_GATE_SHARE = 0.7;

export interface Thresholds {
  /** store merges into an existing memory of the same type at or above this cosine. */
  duplicate: number;
  /** consolidate merges pairs at or above this cosine. */
  consolidate: number;
  /** a new failure counts a recent one as "the same failure" at or above this cosine. */
  systemic: number;
  /** store links the new memory to neighbours at or above this cosine; suggest-edges likewise. */
  autoLink: number;
  /**
   * The gate: below this absolute match (match.ts) a memory is not worth putting into a prompt,
   * whatever its rank — injection, batch injection, strategic recall and both hooks answer nothing
   * rather than plausible noise.
   */
  gate: number;
  /** a memory that names a file the task touches has at least this relevance in inject. */
  fileFloor: number;
  /** the weight of this embedder's nearest-neighbour list in the rank fusion (0: not used). */
  semanticWeight: number;
  /** neighbours below this cosine stay out of the fusion: for this embedder they are unrelated. */
  semanticFloor: number;
}

/**
 * MiniLM: the design's cosines (docs/contract/design.md §2, docs/contract/memory.md §3); its weights are not available
 * offline here, so it was not calibrated on the hard set. Fusion values borrowed from USE-lite.
 */
export const MINILM_THRESHOLDS: Thresholds = { duplicate: 0.85, consolidate: 0.9, systemic: 0.7, autoLink: 0.6, gate: GATE, fileFloor: 0.5, semanticWeight: 0.15, semanticFloor: 0.3 };

/**
 * Lexical (hashed n-grams): distinct problems at most 0.449 apart (the closest pair shares an
 * error message), near-identical rewordings ≥ 0.952, the weakest link of a restated failure
 * 0.419–0.692. So: merge at 0.85; "the same failure" from 0.45 (0 false promotions, 5 of 6
 * restated failures promoted); auto-link from 0.40 (5 pairs, 3 of them sharing an error).
 * Its vectors are not in the fusion: on the tuning queries weight 0.5 lowered MRR 0.894 → 0.866
 * and 0.25 changed nothing (hashing shared path pieces and common words is noise next to BM25).
 */
export const LEXICAL_THRESHOLDS: Thresholds = { duplicate: 0.85, consolidate: 0.9, systemic: 0.45, autoLink: 0.4, gate: GATE, fileFloor: 0.5, semanticWeight: 0, semanticFloor: 0.1 };

/**
 * USE-lite packs everything high: distinct problems reach 0.921 (two that share an error), above
 * every restated failure's weakest link (0.784–0.894), so no cosine separates "the same failure"
 * from "a different one": systemic at 0.92 promotes no distinct failure and, honestly, none of the
 * restated ones either. Merge at 0.95 (rewordings ≥ 0.970; 44 distinct pairs at 0.85, 2 at 0.90).
 * In the fusion it adds a little with weight 0.15 (tuning Recall@5 0.925 → 0.942); at 0.5 or 1
 * its neighbours pushed BM25's right answers down.
 */
export const USE_LITE_THRESHOLDS: Thresholds = { duplicate: 0.95, consolidate: 0.96, systemic: 0.92, autoLink: 0.9, gate: GATE, fileFloor: 0.5, semanticWeight: 0.15, semanticFloor: 0.3 };

export function thresholdsFor(embedderId: string): Thresholds {
  if (embedderId.startsWith('lexical-')) return LEXICAL_THRESHOLDS;
  if (embedderId.startsWith('use-lite')) return USE_LITE_THRESHOLDS;
  return MINILM_THRESHOLDS;
}
