// The memory store's numbers, named once. Weights, half-life and thresholds come from the seeds
// (000/002) and the contract (shared/contract/memory.md); per-embedder calibrations live in
// thresholds.ts.

export const MEMORY_TYPES = ['failure', 'pattern', 'systemic'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

export const EDGE_RELATIONS = ['solves', 'co_occurs', 'similar', 'causes'] as const;
export type EdgeRelation = (typeof EDGE_RELATIONS)[number];

/** score = 0.5·relevance + 0.3·effectiveness + 0.2·recency (seed 000, "Scoring Formula"). */
export const SCORE_WEIGHTS = { relevance: 0.5, effectiveness: 0.3, recency: 0.2 } as const;

/** ACT-R style decay: a memory untouched for a week counts half as recent (seed 000). */
export const RECENCY_HALF_LIFE_DAYS = 7;

/** A memory nobody has rated is neither good nor bad yet. */
export const NEUTRAL_EFFECTIVENESS = 0.5;

/** The trigger must say enough to be matched later. */
export const MIN_TRIGGER_LENGTH = 10;

/** Names are kebab slugs of the trigger, short enough to quote in an agent's UTILIZED line. */
export const MAX_NAME_LENGTH = 50;

/** Feedback-verify moves each memory by half a use: one task is weak evidence (seed 002). */
export const VERIFY_FEEDBACK_STEP = 0.5;

/** Prune: effectiveness strictly below 0.25 with at least 3 uses (seed 002's prune primitive). */
export const PRUNE_THRESHOLD = 0.25;
export const PRUNE_MIN_USES = 3;

/** Decay: 30 days unused with fewer than 2 uses halves helped and failed. */
export const DECAY_DAYS = 30;
export const DECAY_MIN_USES = 2;

/** Edges whose both ends have slept this long lose half their weight. */
export const EDGE_DECAY_DAYS = 60;

/** Systemic promotion: the third similar failure inside a week (seed 002, "Three Memory Types"). */
export const SYSTEMIC_WINDOW_DAYS = 7;
export const SYSTEMIC_PRIOR_FAILURES = 2;

/** strategic-recall buckets (seed 003): proven ≥ 0.70, risky < 0.40, untested < 3 uses. */
export const PROVEN_EFFECTIVENESS = 0.7;
export const RISKY_EFFECTIVENESS = 0.4;
export const UNTESTED_USES = 3;

/** Auto-linking touches at most this many neighbours so one store cannot fan out unbounded. */
export const AUTO_LINK_LIMIT = 5;

/**
 * Reciprocal-rank fusion (fusion.ts): relevance = Σ weight/(RRF_K + rank) over the lists, scaled so
 * first place everywhere is 1. Cormack et al. use k = 60 to merge long result lists; here the
 * relevance also enters a score next to effectiveness and recency, so the first few places must
 * differ by more than 60 does allow (rank 1 vs 5 is 0.94 of each other at 60, 0.5 at 3).
 * Calibrated on the tuning queries of eval/memory-hard.json (docs/memory.md).
 */
export const RRF_K = 3;

/** The BM25 list counts fully; a memory that names the queried file counts as much again. */
export const BM25_LIST_WEIGHT = 1;
export const PATH_LIST_WEIGHT = 1;

/** BM25 column weights (trigger, resolution, files): the trigger says what the memory is about. */
export const BM25_WEIGHTS = { trigger: 2, resolution: 1, files: 1 } as const;

/** Candidates taken from each ranking before scoring; scoring is cheap, ranking all is not. */
export const CANDIDATE_POOL = 100;

/** Nearest neighbours the semantic list contributes (it adds what BM25 missed, not a long tail). */
export const SEMANTIC_POOL = 30;
