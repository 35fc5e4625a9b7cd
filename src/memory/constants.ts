// The memory store's numbers, named once. Weights, half-life and thresholds come from the design
// (docs/contract/design.md §2–§7) and the contract (docs/contract/memory.md §3); per-embedder calibrations live in
// thresholds.ts.

export const MEMORY_TYPES = ['failure', 'pattern', 'systemic'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

export const EDGE_RELATIONS = ['solves', 'co_occurs', 'similar', 'causes'] as const;
export type EdgeRelation = (typeof EDGE_RELATIONS)[number];

/** score = 0.5·relevance + 0.3·effectiveness + 0.2·recency (docs/contract/design.md §2). */
export const SCORE_WEIGHTS = { relevance: 0.5, effectiveness: 0.3, recency: 0.2 } as const;

/** ACT-R style decay: a memory untouched for a week counts half as recent (docs/contract/design.md §2). */
export const RECENCY_HALF_LIFE_DAYS = 7;

/** A memory nobody has rated is neither good nor bad yet. */
export const NEUTRAL_EFFECTIVENESS = 0.5;

/** The trigger must say enough to be matched later. */
export const MIN_TRIGGER_LENGTH = 10;

/** Names are kebab slugs of the trigger, short enough to quote in an agent's UTILIZED line. */
export const MAX_NAME_LENGTH = 50;

/** Feedback-verify moves each memory by half a use: one task is weak evidence (docs/contract/design.md §3). */
export const VERIFY_FEEDBACK_STEP = 0.5;

/** Prune: effectiveness strictly below 0.25 with at least 3 uses (docs/contract/design.md §5). */
export const PRUNE_THRESHOLD = 0.25;
export const PRUNE_MIN_USES = 3;

/** Decay: 30 days unused with fewer than 2 uses halves helped and failed. */
export const DECAY_DAYS = 30;
export const DECAY_MIN_USES = 2;

/** Edges whose both ends have slept this long lose half their weight. */
export const EDGE_DECAY_DAYS = 60;

/** Systemic promotion: the third similar failure inside a week (docs/contract/design.md §4). */
export const SYSTEMIC_WINDOW_DAYS = 7;
export const SYSTEMIC_PRIOR_FAILURES = 2;

/** strategic-recall buckets (docs/contract/design.md §7): proven ≥ 0.70, risky < 0.40, untested < 3 uses. */
export const PROVEN_EFFECTIVENESS = 0.7;
export const RISKY_EFFECTIVENESS = 0.4;
export const UNTESTED_USES = 3;

/** Auto-linking touches at most this many neighbours so one store cannot fan out unbounded. */
export const AUTO_LINK_LIMIT = 5;

/**
 * Lists fused by rank (fusion.ts: the path list, an embedder's neighbours) give place r the share
 * (RRF_K + 1)/(RRF_K + r). Cormack et al. use k = 60 to merge long result lists; here relevance
 * also enters a score next to effectiveness and recency, so the first places must differ by more
 * (rank 5 keeps 0.94 of first place at 60, 0.5 at 3). Calibrated on the tuning queries of
 * eval/memory-hard.json (docs/memory.md).
 */
export const RRF_K = 3;

/**
 * A BM25 match's share is (score / best score)^0.5: near-equal matches stay near-equal, and a match
 * half as strong as the best keeps 0.71, so a memory that keeps helping can still overtake
 * look-alikes that echo the task's words but keep failing (the learning loop, tests/learning).
 */
export const SCORE_SHARE_EXPONENT = 0.5;

/**
 * Any BM25 match keeps at least this share: FTS5 clamps the idf of a term found in half the store
 * or more to ~0, so in a small store a memory sharing only such words (a systemic warning sharing
 * "repair" with the next task) would otherwise vanish below the inject floor.
 */
export const SCORE_SHARE_FLOOR = 0.25;

/** The BM25 list counts fully; a memory that names the queried file counts as much again. */
export const BM25_LIST_WEIGHT = 1;
export const PATH_LIST_WEIGHT = 1;

/** BM25 column weights (trigger, resolution, files): the trigger says what the memory is about. */
export const BM25_WEIGHTS = { trigger: 2, resolution: 1, files: 1 } as const;

/** Candidates taken from each ranking before scoring; scoring is cheap, ranking all is not. */
export const CANDIDATE_POOL = 100;
/**
 * The share of relevance the absolute match (match.ts) decides, the rest being the fused lists'
 * (issue #39). Chosen on the tune halves only: the real trackers' disambiguation items
 * (`npm run eval:memory -- --real`) and eval/memory-hard.json's tune queries; of 0.3, 0.5 and 0.7 only 0.3
 * left every kind of the hard set's tune queries as it was (0.5 and 0.7 cost a paraphrase's
 * second answer its top-5 place), R@1 0.778 → 0.833 on the real tune items.
 */
export const MATCH_IN_RELEVANCE = 0.3;

/**
 * The share of relevance a bead's headline decides (a query of several lines: its first line, the
 * bead's title, against each candidate's trigger; match.ts headlineShares). Near-duplicate beads
 * differ in their titles' detail while their bodies repeat one acceptance text (issue #39). Chosen on
 * the tune halves only (docs/memory.md): of 0.2 to 0.7, 0.6 put the most disambiguation items'
 * gold first (R@1 0.833 → 0.972) and left every kind of the hard set and the gate sets as they were.
 * A one-line query (a hook's, the hard set's) has no headline of its own: its share stays with the rest.
 */
export const HEADLINE_IN_RELEVANCE = 0.6;

/** Nearest neighbours the semantic list contributes (it adds what BM25 missed, not a long tail). */
export const SEMANTIC_POOL = 30;
