// The run's events (docs/events.md): their types, as data. The loop's machine names the events it
// decides (limit, backoff, park, stop); shell/events.ts writes every event to the run's NDJSON file
// and shell/notify.ts hands the ones a person needs to hear about to HELIX_NOTIFY.

export const EVENT_FORMAT_VERSION = 1;

/** Fields every event has. */
interface EventBase {
  /** The format version: 1. */
  v: typeof EVENT_FORMAT_VERSION;
  /** When it happened: ISO 8601, UTC, milliseconds. */
  t: string;
  /** The run it belongs to (one `helix run` process). */
  run: string;
}

/** A spend summary: what the stop event and status say was spent. */
export interface SpendFields {
  cost_usd: number;
  tokens: number;
  /** Attempts whose agent reported no cost (codex): their cost is not in cost_usd. */
  unknown_cost_calls: number;
}

/** Every event type and its own fields (docs/events.md describes each). */
export type EventBody =
  /** `jobs`: the run's slots (`--jobs N`; 1 without it). */
  | { type: 'run_start'; pid: number; ready: number; open?: number; agent: string; root: string; jobs?: number }
  /** `slot`: 1…jobs, the lane the attempt runs in until its `attempt_end`; `title`: the bead's, for a board or report that reads no tracker. */
  | { type: 'claim'; bead: string; attempt: number; slot?: number; title?: string }
  /**
   * What an attempt is doing now, as helix sees it (PHASES). Written by the run, and by `helix gate`
   * (`gate`), which DDx runs as a child of its own: a reader finds the slot and attempt from the
   * bead's last `claim`.
   */
  | { type: 'phase'; bead: string; phase: Phase; slot?: number; attempt?: number; /** spent by the attempt so far (DDx's sessions ended) */ tokens?: number }
  /**
   * `helix gate`'s verdict on an attempt's result (current DDx), written by the gate process; `cpu_ms`:
   * that process's own CPU; `diff_head`: the result it judged (DDx's DIFF_HEAD: the commit that lands).
   */
  | { type: 'gate'; bead: string; verdict: 'pass' | 'block' | 'infra'; seconds: number; detail: string; cpu_ms?: number; diff_head?: string }
  /**
   * How one attempt ended (OUTCOMES), once per `claim`: what a board, `helix status` and `helix report`
   * draw an attempt with. `output`: what verification printed last (bounded as `blockers`), on a verification failure.
   */
  | {
      type: 'attempt_end';
      bead: string;
      attempt: number;
      slot?: number;
      outcome: AttemptEndOutcome;
      reason: string | null;
      seconds: number;
      tokens: number;
      cost_usd: number | null;
      output?: string[];
      /** The session log's lines of the build's framed block (docs/contract/bash-interface.md §0.3). */
      log?: { first: number; last: number };
    }
  | { type: 'dispatch'; bead: string | null; action: string; agent: string; model: string | null; effort: string | null }
  | { type: 'agent_done'; bead: string | null; action: string; agent: string; rc: number; seconds: number; tokens: number; cost_usd: number | null }
  | { type: 'verify'; bead: string; command: string; rc: number; passed: boolean }
  | { type: 'close'; bead: string; how: 'closed' | 'salvaged' }
  /** `last`: the backoff after the bead's last attempt (the 4th): no attempt follows it in this run. */
  | { type: 'backoff'; bead: string; attempt: number; seconds: number; reason: string; last?: true }
  | { type: 'park'; bead: string; until: string; attempts: number }
  /** `bead`: the build that ran into it (null: the check, an action or a review); `root` on every notified event (run-record.ts). */
  | { type: 'limit'; agent: string; kind: string; bead: string | null; resets_at: string | null; resume_at: string | null; detail: string; root?: string }
  | { type: 'limit_resume'; agent: string; waited_seconds: number; root?: string }
  /** A call failed on setup or infrastructure, not on the bead (core/unavailable.ts); wait_seconds null: the run stops. */
  | { type: 'unavailable'; cause: 'setup' | 'infrastructure'; what: string; detail: string; bead?: string; wait_seconds: number | null }
  | { type: 'memory_injected'; bead: string; names: string[] }
  /**
   * `outcome`: the attempt's verdict (verification); `helped`, `failed`, `left_alone`: what the memory
   * store recorded for each injected name — a verified attempt does not credit a memory it did not use.
   */
  | { type: 'memory_credited'; bead: string; names: string[]; outcome: 'success' | 'failure'; helped: string[]; failed: string[]; left_alone: string[] }
  /** `report_html`: the night's page (`helix report`), or null when it could not be written; `cpu_ms`: this helix process's own CPU. */
  | { type: 'stop'; reason: string; exit: number; detail: string; spent: SpendFields; root?: string; report_html?: string | null; cpu_ms?: number }
  | { type: 'blockers'; beads: BlockerEntry[]; report: string | null; root?: string };

/**
 * The phases of an attempt helix can see. On `ddx try`: `claim` (helix's own steps), then DDx's
 * sessions as each ends (`intake` done → `build`, `build` done → `review`), `gate` (helix's gate
 * runs), `landing` (the gate passed: DDx lands), `verify` (helix's own verification).
 */
export const PHASES = ['claim', 'intake', 'build', 'review', 'gate', 'landing', 'verify'] as const;
export type Phase = (typeof PHASES)[number];

/**
 * How an attempt ended: `landed` (closed and verified), `verification_failed` (the agent's work was
 * refuted by verification or the gate), `failed` (the agent failed or did not complete),
 * `drift` (the bead changed under it), `infrastructure` (setup or infrastructure, not the bead's),
 * `limit` (a usage or rate limit), `stopped` (a signal or a lost reader cut it short).
 */
export const ATTEMPT_END_OUTCOMES = ['landed', 'verification_failed', 'failed', 'drift', 'infrastructure', 'limit', 'stopped'] as const;
export type AttemptEndOutcome = (typeof ATTEMPT_END_OUTCOMES)[number];

/** A skipped bead in the `blockers` event: why it was skipped, why its last attempt failed, what verification printed last. */
export interface BlockerEntry {
  id: string;
  title: string;
  reason: string;
  last_failure: string | null;
  /** The verification's last lines (at most 20, each at most 300 characters); empty when none ran. */
  output: string[];
}

export type HelixEvent = EventBase & EventBody;
export type EventType = EventBody['type'];
