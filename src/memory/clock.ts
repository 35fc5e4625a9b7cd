// The store's idea of "now": HELIX_NOW (ISO time) when set, so recency, decay and the
// systemic window are testable; the wall clock otherwise.
import { HelixError } from '../errors.js';

export type Clock = () => Date;

export function clockFromEnv(env: NodeJS.ProcessEnv = process.env): Clock {
  const fixed = env.HELIX_NOW;
  if (!fixed) return () => new Date();
  const at = new Date(fixed);
  if (Number.isNaN(at.getTime())) throw new HelixError('validation', `HELIX_NOW is not an ISO time: ${fixed}`);
  return () => new Date(at.getTime());
}

export const DAY_MS = 86_400_000;

/** Whole days from `then` (ISO) to `now`, never negative. */
export function wholeDaysSince(then: string, now: Date): number {
  const ms = now.getTime() - new Date(then).getTime();
  return ms > 0 ? Math.floor(ms / DAY_MS) : 0;
}

export function isoDaysBefore(now: Date, days: number): string {
  return new Date(now.getTime() - days * DAY_MS).toISOString();
}
