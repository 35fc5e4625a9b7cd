// The ranking arithmetic of the contract, as pure functions (no I/O, no clock reads).
import { NEUTRAL_EFFECTIVENESS, RECENCY_HALF_LIFE_DAYS, RRF_K, HYBRID_LIFT, SCORE_WEIGHTS } from './constants.js';
import { wholeDaysSince } from './clock.js';

export function effectiveness(helped: number, failed: number): number {
  const uses = helped + failed;
  return uses > 0 ? helped / uses : NEUTRAL_EFFECTIVENESS;
}

/** 2^(−days/7) over whole days since the memory was last used (else created). */
export function recency(lastUsed: string | null, createdAt: string, now: Date): number {
  return 2 ** (-wholeDaysSince(lastUsed ?? createdAt, now) / RECENCY_HALF_LIFE_DAYS);
}

export function score(relevance: number, effectivenessValue: number, recencyValue: number): number {
  return (
    SCORE_WEIGHTS.relevance * relevance +
    SCORE_WEIGHTS.effectiveness * effectivenessValue +
    SCORE_WEIGHTS.recency * recencyValue
  );
}

/** Reciprocal-rank fusion of a BM25 rank and a vector rank (1-based), scaled so 1st+1st = 1. */
export function fusedRank(bm25Rank: number, vectorRank: number | undefined): number {
  const best = 2 / (RRF_K + 1);
  const fused = 1 / (RRF_K + bm25Rank) + (vectorRank === undefined ? 0 : 1 / (RRF_K + vectorRank));
  return fused / best;
}

/**
 * Hybrid relevance in [0, 1]: the cosine, lifted part of the way to 1 by the fused rank when
 * BM25 matched the memory. An identical text has cosine 1 and so relevance 1 whatever BM25
 * says; a memory BM25 did not match keeps its cosine.
 */
export function hybridRelevance(cos: number, fused: number | undefined): number {
  const c = Math.max(0, Math.min(1, cos));
  return fused === undefined ? c : c + (1 - c) * HYBRID_LIFT * fused;
}

export const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** `[67%]` for a memory with feedback, `[unproven]` without (contract, Injection). */
export function confidenceTag(helped: number, failed: number): string {
  return helped + failed > 0 ? `[${Math.round(effectiveness(helped, failed) * 100)}%]` : '[unproven]';
}
