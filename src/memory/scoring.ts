// The ranking arithmetic of docs/contract/memory.md §3, as pure functions (no I/O, no clock reads).
import { NEUTRAL_EFFECTIVENESS, RECENCY_HALF_LIFE_DAYS, SCORE_WEIGHTS } from './constants.js';
import { wholeDaysSince } from './clock.js';

/** helped / (helped + failed); a memory never judged has the neutral value (docs/contract/memory.md §3). */
export function effectiveness({ helped, failed }: { helped: number; failed: number }): number {
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

export const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** `[67%]` for a memory with feedback, `[unproven]` without (docs/contract/memory.md §5). */
export function confidenceTag(helped: number, failed: number): string {
  return helped + failed > 0 ? `[${Math.round(effectiveness({ helped, failed }) * 100)}%]` : '[unproven]';
}
