// The per-call agent timeout, HELIX_AGENT_TIMEOUT (docs/contract/cli.md §3): seconds, default 2700 (45 min),
// long enough for a real implementation pass and short enough that a hung agent cannot stall
// a run for good.
//
// People set a huge value to mean "no timeout". Above what a Node timer can hold (2^31-1 ms, 24.8
// days) a timer fires at once, so such a value would kill every agent after 1 ms. It is taken as
// what it was meant to be — no timeout — rather than refused: the Bash CLI handed it to tools that
// honoured it, so scripts that set it keep working.
import { MAX_TIMER_SECONDS, parseNumber } from '../numbers.js';

export const DEFAULT_AGENT_TIMEOUT_SECONDS = 2700;

/** DDx's longest `--timeout` (Go's time.Duration holds about 292 years; whole hours below it). */
export const DDX_LONGEST_TIMEOUT = '2562047h';

/**
 * Reads HELIX_AGENT_TIMEOUT (whole seconds ≥ 1, a trailing `s` allowed); unset or empty → 2700;
 * above 24.8 days → Infinity (no timeout). Anything else: exit 7.
 */
export function agentTimeoutSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.HELIX_AGENT_TIMEOUT?.trim();
  if (!raw) return DEFAULT_AGENT_TIMEOUT_SECONDS;
  const seconds = parseNumber('HELIX_AGENT_TIMEOUT', raw.replace(/s$/, ''), { min: 1, max: Number.POSITIVE_INFINITY });
  return seconds > MAX_TIMER_SECONDS ? Number.POSITIVE_INFINITY : seconds;
}
