// How long `helix run` waits when an agent call ended on a usage or rate limit
// (agents/usage-limit.ts), as a pure decision: until the reset the agent named (plus a minute:
// clocks differ, and codex names only the minute), else a bounded, growing wait — 1, 2, 4, 8, 16,
// then every 30 minutes — so an unknown reset is probed often at first and never hammered. The
// waits of one streak (consecutive limited calls) add up; when the next wait would take the streak
// past --max-wait, the run stops instead (stop reason `limit`, exit 20) — at once when a named reset
// is already further away than that, rather than idling toward a stop.
//
// Default --max-wait: 6h. The limits an overnight run meets are a subscription's 5-hour window
// (claude's `five_hour`, codex's 300-minute primary window) and per-minute API limits; 6 hours
// outlasts one whole 5-hour window from any point in it, with margin, so a run survives one window
// reset. A weekly limit (days away) stops the run at once with its reset time, instead of holding a
// terminal for days.
import { formatDuration, parseDurationFlag } from '../../durations.js';
import type { UsageLimit } from '../../agents/usage-limit.js';

export const DEFAULT_MAX_WAIT_MS = 6 * 3_600_000;
/** Added to a named reset: the agent's clock and ours differ, and codex rounds to the minute. */
export const RESET_MARGIN_MS = 60_000;
/** Added to a reset named relative to now ("try again in 1.5s"): measured on our own clock. */
export const RELATIVE_MARGIN_MS = 1000;
const FIRST_WAIT_MS = 60_000;
const LONGEST_WAIT_MS = 30 * 60_000;

/** The current streak of limited calls, as the run loop keeps it (reset when a call gets through). */
export interface LimitStreak {
  /** Waits already taken in this streak. */
  waits: number;
  /** Their total, in ms. */
  waitedMs: number;
}

export const NO_STREAK: LimitStreak = Object.freeze({ waits: 0, waitedMs: 0 });

export type LimitDecision =
  | { action: 'wait'; ms: number; resumeAt: number; basis: 'reset' | 'backoff' }
  | { action: 'stop'; line: string };

export function limitWait(limit: UsageLimit, streak: LimitStreak, now: number, maxWaitMs: number): LimitDecision {
  const named = limit.resetsAt !== undefined && limit.resetsAt > now;
  const ms = named ? (limit.resetsAt as number) - now + (limit.relative ? RELATIVE_MARGIN_MS : RESET_MARGIN_MS) : Math.min(FIRST_WAIT_MS * 2 ** streak.waits, LONGEST_WAIT_MS);
  if (streak.waitedMs + ms > maxWaitMs) {
    const what = `${limit.agent} ${limit.kind} limit`;
    if (maxWaitMs === 0) return { action: 'stop', line: `${what}: --max-wait 0 waits for none (${limit.detail})` };
    // the wait it would need, always: "after waiting 0ms" alone does not tell a person what to set
    const waited = streak.waitedMs > 0 ? `still limited after waiting ${formatDuration(streak.waitedMs)}; ` : '';
    const why = named
      ? `it resets at ${new Date(limit.resetsAt as number).toISOString()}, beyond --max-wait ${formatDuration(maxWaitMs)}`
      : `${waited}the next wait would be ${formatDuration(ms)}${waited ? `, ${formatDuration(streak.waitedMs + ms)} in all` : ''}, beyond --max-wait ${formatDuration(maxWaitMs)}`;
    return { action: 'stop', line: `${what}: ${why} (${limit.detail})` };
  }
  return { action: 'wait', ms, resumeAt: now + ms, basis: named ? 'reset' : 'backoff' };
}

/** The streak after a wait of `ms`. */
export function afterWait(streak: LimitStreak, ms: number): LimitStreak {
  return { waits: streak.waits + 1, waitedMs: streak.waitedMs + ms };
}

/** `--max-wait D` (Go syntax; 0 = never wait, stop at the first limit); unset: DEFAULT_MAX_WAIT_MS. */
export function parseMaxWait(text: string | undefined): number {
  return text === undefined ? DEFAULT_MAX_WAIT_MS : parseDurationFlag('--max-wait', text);
}
