// `helix log`'s view of a run's event log (docs/events.md): one line per event, and the progress
// a follower shows beside each — bead n of m, elapsed, spend, the event. Pure: the shell reads
// the file (shell/log.ts).
import type { HelixEvent } from '../core/run-events.js';
import { plural } from '../../numbers.js';

/** What a reader knows of a run after some of its events. */
export interface RunProgress {
  startedAt: number | undefined;
  /**
   * The beads open or in progress when the run started (the m of "bead n of m"): beads blocked by a
   * dependency become ready as the run closes it. Logs older than the `open` field give the ready count.
   */
  backlog: number;
  /** Distinct beads claimed so far (the n). */
  claimed: string[];
  costUsd: number;
  tokens: number;
  unknownCostCalls: number;
  pid: number | undefined;
  stopped: boolean;
}

export const NO_PROGRESS: RunProgress = { startedAt: undefined, backlog: 0, claimed: [], costUsd: 0, tokens: 0, unknownCostCalls: 0, pid: undefined, stopped: false };

export function progressAfter(progress: RunProgress, event: HelixEvent): RunProgress {
  switch (event.type) {
    case 'run_start':
      return { ...progress, startedAt: Date.parse(event.t), backlog: event.open ?? event.ready, pid: event.pid };
    case 'claim':
      return progress.claimed.includes(event.bead) ? progress : { ...progress, claimed: [...progress.claimed, event.bead] };
    case 'agent_done':
      return {
        ...progress,
        tokens: progress.tokens + event.tokens,
        costUsd: progress.costUsd + (event.cost_usd ?? 0),
        unknownCostCalls: progress.unknownCostCalls + (event.cost_usd === null ? 1 : 0),
      };
    case 'stop':
      return { ...progress, stopped: true };
    default:
      return progress;
  }
}

/** `bead 3 of 40 · 2m10s · $0.42 (+1 call of unknown cost), 31200 tokens`. */
export function progressText(progress: RunProgress, at: number): string {
  const n = progress.claimed.length;
  const m = Math.max(progress.backlog, n);
  const elapsed = progress.startedAt === undefined ? '?' : clock(Math.max(0, at - progress.startedAt));
  const unknown = progress.unknownCostCalls > 0 ? ` (+${plural(progress.unknownCostCalls, 'call')} of unknown cost)` : '';
  return `bead ${n} of ${m} · ${elapsed} · $${progress.costUsd.toFixed(2)}${unknown}, ${progress.tokens} tokens`;
}

/** One event as a line: its time (UTC, to the second), its type, then its fields as key=value. */
export function eventText(event: HelixEvent): string {
  const { v: _v, t, run: _run, type, ...fields } = event as HelixEvent & Record<string, unknown>;
  const parts = Object.entries(fields).map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return [t.slice(11, 19), type, ...parts].join(' ');
}

/** A duration as `42s`, `2m10s` or `1h05m`. */
export function clock(ms: number): string {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m${String(sec).padStart(2, '0')}s` : `${sec}s`;
}
