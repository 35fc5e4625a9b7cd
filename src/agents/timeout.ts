// The per-call agent timeout, HELIX_AGENT_TIMEOUT (contract §3): seconds, default 2700 (45 min),
// long enough for a real implementation pass and short enough that a hung agent cannot stall
// a run for good.
import { HelixError } from '../errors.js';

export const DEFAULT_AGENT_TIMEOUT_SECONDS = 2700;

/** Reads HELIX_AGENT_TIMEOUT (whole seconds, a trailing `s` allowed); unset or empty → 2700. */
export function agentTimeoutSeconds(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.HELIX_AGENT_TIMEOUT?.trim();
  if (!raw) return DEFAULT_AGENT_TIMEOUT_SECONDS;
  const match = /^(\d+)s?$/.exec(raw);
  const seconds = match ? Number(match[1]) : NaN;
  if (!Number.isSafeInteger(seconds) || seconds <= 0) {
    throw new HelixError('validation', `helix: HELIX_AGENT_TIMEOUT must be a positive number of seconds, got '${raw}'`);
  }
  return seconds;
}
