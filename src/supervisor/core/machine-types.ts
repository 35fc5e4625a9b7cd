// The machine's vocabulary (core/machine.ts): its state, the events it takes and the effects it asks
// for. A file of its own so that the decisions split out of the machine (failure.ts, routing.ts,
// limited.ts, fleet.ts, …) name these types without importing the machine that imports them.

import type { AgentProblem } from '../../agents/agent-problems.js';
import type { NextAction } from '../../agents/trailers.js';
import type { UsageLimit } from '../../agents/usage-limit.js';
import type { Bead } from '../../tracker/bead.js';
import type { Say } from '../text/lines.js';
import type { Spend } from './budget.js';
import type { LimitStreak } from './limit-wait.js';
import type { AttemptOutcome, FailureKind, MemberVerdict, Spent } from './outcome.js';
import type { EventBody } from './run-events.js';
import type { InFlight } from './scheduler.js';

/** `stopped`: a signal or a lost reader ended the run (`helix stop`, Ctrl-C); run-state's `interrupted_by` says which. */
export type StopReason = 'completed' | 'error' | 'blocked' | 'systemic_failure' | 'velocity_collapse' | 'budget' | 'limit' | 'setup' | 'stopped';
export type DrainAction = 'design' | 'polish' | 'align' | 'backfill';
export type ActionPurpose = 'drain' | 'pre-stop' | 'periodic';

export interface SkippedBead {
  id: string;
  title: string;
  reason: string;
  /** Why its last attempt failed (the blocker report's why). */
  lastDetail?: string;
  /** What its verification printed last (bounded): the morning report's evidence. */
  output?: string[];
}

export interface MachineState {
  attempted: number;
  completed: number;
  /** Tokens of every agent call of the run (builds, checks, reviews, actions). */
  tokens: number;
  /** Dollars the agents reported (claude does, codex does not); undefined until one reports. */
  costUsd?: number;
  skipped: SkippedBead[];
  /** Failed attempts per bead in this run, and how the last one failed. */
  failures: Record<string, { count: number; last: FailureKind; detail?: string }>;
  /** Beads passed over in this pass (not ready at re-read); cleared after the next attempt. */
  passedOver: string[];
  focusedEpic: string | undefined;
  /** The focused epic's title, for the blocker report when a child blocks it. */
  focusedEpicTitle?: string;
  /** BUILD answers from check since the last build attempt (the BUILD breaker counts them). */
  emptyBuilds: number;
  /** check answers since the last build, to stop on a repeated DESIGN / POLISH / BACKFILL. */
  drainAnswers: NextAction[];
  alignedSinceBuild: boolean;
  /** Durations (s) of completed cycles, for VELOCITY_COLLAPSE. */
  completedDurations: number[];
  /** Failure category → distinct beads that failed with it, for SYSTEMIC_FAILURE. */
  failureCategories: Record<string, string[]>;
  /** `completed` when periodic alignment last came due (a batch can complete several at once). */
  alignedAtCompleted: number;
  /** Lines of a completed cycle held until its review has run (the COMPLETE lines follow the review). */
  afterReview: Effect[];
  /** Consecutive build calls that ended on a usage or rate limit, and the waits they took. */
  limitStreak: LimitStreak;
  /** Consecutive calls that failed on infrastructure (core/unavailable.ts), reset when a call gets through. */
  infraStreak: number;
  /** With --jobs N: the builds in flight, the backoffs and pauses (core/fleet.ts). */
  fleet: FleetState;
  /** What every agent call of the run spent, for the budget caps (calls that reported no cost counted apart). */
  spend: Spend;
  /** The same, per bead, for its `budget:<USD>` label. */
  beadSpend: Record<string, Spend>;
  stop: { exitCode: number; reason: StopReason } | undefined;
  /** The line the stop said (for the stop event and its notification). */
  stopDetail?: string;
}


export type ReviewKind = 'post-implementation' | 'post-epic';
/**
 * How a review's answer read: CLEAN, ISSUES_FOUND with a count, or neither; `noted`: issues found
 * at the end of the bead's review chain, left in its notes (core/review-chain.ts).
 */
export type ReviewOutcome = 'clean' | 'issues' | 'noted' | 'unparseable';

export type Event =
  /** `noCostAgent`: the builds run on an agent that reports no cost (codex, called directly). */
  | { type: 'started'; noCostAgent?: string }
  | { type: 'orphansRecovered'; why: 'start' | 'failure' | 'build-breaker'; readyBefore: number; readyAfter: number }
  /** `elapsedMs`: how long the run has been going (for --max-duration). */
  | { type: 'queue'; ready: Bead[]; beads: Bead[]; epics?: Bead[]; elapsedMs?: number; /** when (ms since the epoch), with --jobs */ at?: number }
  /** The epic as closed (its `spec-id` scopes the post-epic review). */
  | { type: 'epicClosed'; epic: Bead }
  /** The tracker refused the epic's close: it is passed over in this pass, like a stale selection. */
  | { type: 'epicCloseFailed'; epicId: string }
  /**
   * The run was cut short (a signal or an unexpected error) with `attemptInFlight` when it held a
   * claim: that attempt was attempted (docs/contract/cli.md §6.8 counts it), never completed.
   */
  | { type: 'interrupted'; attemptInFlight: boolean; exitCode: number }
  | ({ type: 'reviewed'; kind: ReviewKind; cycle: number; beadId: string; outcome: ReviewOutcome; rc: number } & Spent)
  /**
   * A build (`bead`) or the drain check (no bead) ended on a usage or rate limit
   * (agents/usage-limit.ts): not an attempt of the bead — its claim is released, nothing is
   * counted against it. `at`: when (ms since the epoch).
   */
  | ({
      type: 'limited';
      /** the build's bead; without one it was the drain check, or the call in `again` */
      bead?: Bead;
      limit: UsageLimit;
      at: number;
      /** a drain action or review that hit the limit: asked for again after the wait */
      again?: Extract<Effect, { type: 'runAction' | 'runReview' }>;
    } & Spent)
  /**
   * A call failed on something that is not the bead's (agents/agent-problems.ts): setup stops the
   * run, infrastructure waits and tries again. Like a limit, not an attempt: nothing counted, no park.
   */
  | ({ type: 'unavailable'; bead?: Bead; problem: AgentProblem; at?: number; again?: Extract<Effect, { type: 'runAction' | 'runReview' }> } & Spent)
  | ({ type: 'attempted'; bead: Bead; outcome: AttemptOutcome; durationSec: number; tokens: number; /** when it ended (ms since the epoch), with --jobs */ at?: number; /** its cycle number, with --jobs (they end out of order) */ cycle?: number; /** batch members beside `bead` */ batch?: MemberVerdict[] } & Spent)
  | ({ type: 'checked'; nextAction: NextAction | undefined; /** the check agent exited 0 */ ok: boolean } & Spent)
  | ({ type: 'actionDone'; action: DrainAction; purpose: ActionPurpose; ok: boolean; detail?: string } & Spent);

/** Lines (lines.ts: their level decides the stream per output mode) and the runner's work. */
export type Effect =
  /** `afterPause`: the line says a pause is over, so a fleet prints it when dispatch resumes (core/fleet.ts). */
  | ({ type: 'say'; afterPause?: true } & Say)
  | { type: 'writeContext' }
  | { type: 'recoverOrphans'; why: 'start' | 'failure' | 'build-breaker' }
  | { type: 'readQueue' }
  /** The runner prints the cycle line once it knows the batch. */
  | { type: 'attempt'; bead: Bead; cycle: number; focusedEpic: string | undefined; ready: Bead[]; readyCount: number }
  /** With --jobs: start an attempt beside the others; its end comes back as its event (core/fleet.ts). */
  | { type: 'startAttempt'; bead: Bead; cycle: number; readyCount: number }
  | { type: 'closeEpic'; epicId: string }
  | { type: 'markBlocked'; id: string; reason: string }
  /** DDx's `work-retry-after` on a bead skipped as intractable: the next run (helix's or DDx's) leaves it alone until then. */
  | { type: 'park'; id: string; attempts: number }
  | { type: 'sleep'; seconds: number }
  /** An event of the run's event log (docs/events.md); the ones a person needs also go to HELIX_NOTIFY. */
  | { type: 'record'; event: EventBody }
  | { type: 'runCheck' }
  | { type: 'runReview'; kind: ReviewKind; scope: string; cycle: number; /** the bead or epic whose change is reviewed */ beadId: string }
  | { type: 'runAction'; action: DrainAction; purpose: ActionPurpose }
  | { type: 'stop'; exitCode: number; reason: StopReason; message?: string };

export interface Step {
  state: MachineState;
  effects: Effect[];
}

export interface FleetState {
  inFlight: InFlight[];
  /** Attempts started so far (each gets the next cycle number). */
  started: number;
  /** A bead backing off after a failed attempt, until when (ms since the epoch). */
  notBefore: Record<string, number>;
  /** Dispatch paused until then (a limit, an infrastructure wait). */
  pausedUntil?: number;
  /** What a limit's wait says and records when it ends: said when dispatch resumes. */
  onResume?: Effect[];
  /** A stop waiting for the beads in flight. */
  pendingStop?: Step['effects'];
}
