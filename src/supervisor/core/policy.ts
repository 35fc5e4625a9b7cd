// The supervisor's numbers, named once with the reason they have the value they have
// (docs/contract/design.md §1, docs/contract/cli.md §3 and §6).
import { MAX_TIMER_SECONDS, numberFromEnv, parseNumber } from '../../numbers.js';
import type { ActionName } from '../text/prompts.js';
import type { BudgetCaps } from './budget.js';
import { DEFAULT_MAX_WAIT_MS } from './limit-wait.js';

/** The actions a command runs once (`helix align`, …); the loop runs some of them when the queue drains. */
export type OneShotAction = Exclude<ActionName, 'implementation' | 'check'>;

/**
 * Default scope and rounds per action (docs/contract/cli.md §2), for the one-shot commands and
 * the loop's drain actions alike. An action without a default scope says so in its prompt in its
 * own words: polish `all open issues`, experiment `auto-select from ready phase:iterate issues`
 * (docs/contract/bash-interface.md §1.7, §1.9).
 */
export const ACTION_DEFAULTS: Record<OneShotAction, { scope?: string; rounds?: number }> = {
  align: { scope: 'repo' },
  design: { scope: 'repo', rounds: 5 },
  polish: { rounds: 6 },
  review: { scope: 'last-commit' },
  backfill: { scope: 'repo' },
  experiment: {},
};

/** After this many failed attempts a bead is skipped for the rest of the run (docs/contract/design.md §1). */
export const MAX_ATTEMPTS = 4;

/** Backoff after the n-th failure: 5·2^(n-1) s capped at 40 s — 5, 10, 20, 40 (75 s in all). */
export function backoffSeconds(failures: number, override?: number): number {
  if (override !== undefined) return override;
  return Math.min(5 * 2 ** (Math.max(failures, 1) - 1), 40);
}

/** HELIX_BACKOFF_SLEEP overrides every backoff sleep (tests use 0): seconds, up to what a timer holds. */
export function backoffOverride(env: NodeJS.ProcessEnv): number | undefined {
  const raw = env.HELIX_BACKOFF_SLEEP;
  if (raw === undefined || raw.trim() === '') return undefined;
  return parseNumber('HELIX_BACKOFF_SLEEP', raw, { min: 0, max: MAX_TIMER_SECONDS, fraction: true });
}

/**
 * How deep a chain of review findings may grow (docs/contract/cli.md §6.5): a finding of a review
 * of a bead a person filed is depth 1, a finding of that finding's review depth 2, … The review of
 * a bead at this depth files nothing more: its findings stay in that bead's notes. 3: a piece of
 * work gets at most 4 builds along its chain — the work, its fix, the fix's fix, one more — as
 * many as a failing bead gets attempts (MAX_ATTEMPTS). A reviewer still finding issues after that
 * is not converging (it always finds something, or it and the builder disagree), and each further
 * round is a build and a review that a person's look settles better.
 */
export const MAX_REVIEW_CHAIN_DEPTH = 3;

/** `.helix/context.md` is refreshed every this many completed cycles (docs/contract/design.md §1). */
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
  /** --max-wait: how long the run may wait out usage or rate limits in one streak (core/limit-wait.ts). */
  maxWaitMs: number;
  /** --max-cost, --max-tokens, --max-duration (core/budget.ts). */
  budget: BudgetCaps;
  /** --jobs: builds in flight at once (current DDx only; core/fleet.ts). */
  jobs: number;
}

/**
 * The cool-down of a bead skipped as intractable, as DDx's `work-retry-after`: 1 hour the first
 * time, doubling with each park already on record, at most a week. Long enough that tonight's
 * later passes and the next run leave it alone; short enough that a fix made today is tried.
 */
export function parkCooldownMs(previousParks: number): number {
  return Math.min(3_600_000 * 2 ** Math.max(0, previousParks), 7 * 24 * 3_600_000);
}

export function defaultSettings(env: NodeJS.ProcessEnv): SupervisorSettings {
  return {
    maxCycles: 0,
    reviewEvery: 15,
    autoAlign: env.HELIX_AUTO_ALIGN !== '0',
    autoReview: true,
    reviewThreshold: 100,
    backoffOverride: backoffOverride(env),
    // distinct beads in one run; more than a run could ever attempt would switch the stop off
    systemicThreshold: numberFromEnv(env, 'HELIX_SYSTEMIC_THRESHOLD', { min: 1, max: 1_000_000 }, 3),
    // the latest cycle against the first: below 1 every run would "collapse"
    velocityFactor: numberFromEnv(env, 'HELIX_VELOCITY_STOP_FACTOR', { min: 1, max: 1_000_000, fraction: true }, 5),
    velocitySeconds: numberFromEnv(env, 'HELIX_VELOCITY_STOP_SECONDS', { min: 0, max: MAX_TIMER_SECONDS, fraction: true }, 60),
    maxWaitMs: DEFAULT_MAX_WAIT_MS,
    budget: {},
    jobs: 1,
  };
}
