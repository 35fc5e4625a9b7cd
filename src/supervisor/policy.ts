// The supervisor's numbers, named once with the reason they have the value they have
// (seed 004, contract §3 and §6).

/** After this many failed attempts a bead is skipped for the rest of the run (seed 004). */
export const MAX_ATTEMPTS = 4;

/** Backoff after the n-th failure: 5·2^(n-1) s capped at 40 s — 5, 10, 20, 40 (75 s in all). */
export function backoffSeconds(failures: number, override?: number): number {
  if (override !== undefined) return override;
  return Math.min(5 * 2 ** (Math.max(failures, 1) - 1), 40);
}

/** HELIX_BACKOFF_SLEEP overrides every backoff sleep (tests use 0). */
export function backoffOverride(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.HELIX_BACKOFF_SLEEP;
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** `.helix/context.md` is refreshed every this many completed cycles (seed 004). */
export const CONTEXT_REFRESH_EVERY = 5;

/** A change this small skips the post-implementation review: < threshold lines and < 3 files. */
export const REVIEW_MIN_FILES = 3;

export interface SupervisorSettings {
  maxCycles: number;
  reviewEvery: number;
  autoAlign: boolean;
  autoReview: boolean;
  reviewThreshold: number;
  backoffOverride: number | undefined;
  systemicThreshold: number;
  velocityFactor: number;
  velocitySeconds: number;
}

const numberFrom = (raw: string | undefined, fallback: number): number => {
  const value = raw === undefined || raw === '' ? NaN : Number(raw);
  return Number.isFinite(value) ? value : fallback;
};

export function defaultSettings(env: NodeJS.ProcessEnv = process.env): SupervisorSettings {
  return {
    maxCycles: 0,
    reviewEvery: 15,
    autoAlign: env.HELIX_AUTO_ALIGN !== '0',
    autoReview: true,
    reviewThreshold: 100,
    backoffOverride: backoffOverride(env),
    systemicThreshold: numberFrom(env.HELIX_SYSTEMIC_THRESHOLD, 3),
    velocityFactor: numberFrom(env.HELIX_VELOCITY_STOP_FACTOR, 5),
    velocitySeconds: numberFrom(env.HELIX_VELOCITY_STOP_SECONDS, 60),
  };
}
