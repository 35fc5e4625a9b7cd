// `.ddx/run-state.json` (docs/contract/cli.md §9): the run controller's state, merged into whatever object the
// file already holds so other tools' keys survive; `helix status` reads it.
import { readFileSync } from 'node:fs';
import { writeFileAtomically } from '../../atomic-write.js';
import { join } from 'node:path';

export interface RunStateFile {
  current_issue: string | null;
  focused_epic: string | null;
  completed_cycles: number;
  attempted_cycles: number;
  skipped_count: number;
  total_tokens: number;
  /** Dollars the agents reported; null when none did (codex reports no cost). */
  total_cost_usd: number | null;
  stop_reason: string | null;
  last_run: string;
  agent: string;
  cycle_start: string | null;
  cycle_end: string | null;
  cycle_duration: number | null;
  log: string;
  [key: string]: unknown;
}

export const runStatePath = (trackerDir: string) => join(trackerDir, 'run-state.json');

export function readRunState(trackerDir: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(readFileSync(runStatePath(trackerDir), 'utf8')) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The attempt a run was in the middle of when it died (SIGKILL, power loss): its run-state says so. */
export interface UnfinishedAttempt {
  id: string;
  /** ms since the epoch: the attempt's start. */
  since: number;
  pid: number;
}

/**
 * The previous run's attempt, if that run ended without finishing it: the run-state names a
 * current issue and no cycle end, the run was killed (no stop reason) or stopped by a signal
 * (`stopped`: DDx, cancelled while helix's gate ran, may still land and close it — measured), and
 * the run's pid is gone. (A live pid is a `helix build` or run still working on it.)
 */
export function unfinishedAttempt(state: Record<string, unknown> | undefined, isAlive: (pid: number) => boolean): UnfinishedAttempt | undefined {
  if (!state || typeof state.current_issue !== 'string' || (state.stop_reason !== null && state.stop_reason !== 'stopped') || state.cycle_end !== null) return undefined;
  const pid = state.run_pid;
  const since = typeof state.cycle_start === 'string' ? Date.parse(state.cycle_start) : Number.NaN;
  if (typeof pid !== 'number' || !Number.isInteger(pid) || isAlive(pid) || Number.isNaN(since)) return undefined;
  return { id: state.current_issue, since, pid };
}

/** The migration counters every run-state carries, zero when never counted (docs/contract/bash-interface.md §12.3). */
function withCounters(state: Record<string, unknown>): Record<string, unknown> {
  const isObject = (v: unknown) => typeof v === 'object' && v !== null && !Array.isArray(v);
  return {
    ...state,
    ddx_delegation_success_count: typeof state.ddx_delegation_success_count === 'number' ? state.ddx_delegation_success_count : 0,
    ddx_delegation_failure_count: isObject(state.ddx_delegation_failure_count) ? state.ddx_delegation_failure_count : {},
    parallel_run_denied_count: typeof state.parallel_run_denied_count === 'number' ? state.parallel_run_denied_count : 0,
    supervisory_injection_count: isObject(state.supervisory_injection_count) ? state.supervisory_injection_count : {},
  };
}

export type Counter = 'ddx_delegation_success_count' | 'parallel_run_denied_count' | 'ddx_delegation_failure_count' | 'supervisory_injection_count';

/** Adds 1 to a counter (or to `counter[reason]` for the keyed ones); best effort, never throws. */
export function countInRunState(trackerDir: string, counter: Counter, reason?: string): void {
  try {
    const state = withCounters(readRunState(trackerDir) ?? {});
    const current = state[counter];
    const next =
      reason === undefined
        ? (typeof current === 'number' ? current : 0) + 1
        : { ...(current as Record<string, number>), [reason]: ((current as Record<string, number>)[reason] ?? 0) + 1 };
    writeRunState(trackerDir, { [counter]: next });
  } catch {
    // a counter must never stop the command that counts
  }
}

/** The supervisory labels (§14.2): a bead helix creates with one of them is counted. */
const SUPERVISORY = ['review-finding', 'alignment-review', 'acceptance-failure'];

export function countSupervisoryInjection(trackerDir: string, labels: readonly string[]): void {
  const label = SUPERVISORY.find((l) => labels.includes(l));
  if (label) countInRunState(trackerDir, 'supervisory_injection_count', label);
}

export function writeRunState(trackerDir: string, update: Partial<RunStateFile>): void {
  const merged = withCounters({ ...(readRunState(trackerDir) ?? {}), ...update });
  const file = runStatePath(trackerDir);
  writeFileAtomically(file, `${JSON.stringify(merged, null, 2)}\n`);
}
