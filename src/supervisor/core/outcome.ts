// How an attempt ended: the one outcome type the judge settles (judge.ts), the machine counts
// (machine.ts) and `helix build` reports; a batch member's outcome beside it; and what an agent
// call spent, which the events that end one carry.
import type { AgentRunResult } from '../../agents/run-agent.js';
import type { Bead } from '../../tracker/bead.js';

/** agent-failed: the agent errored; no-completion: it exited 0 but the work is not done and verified. */
export type FailureKind = 'agent-failed' | 'no-completion';

/**
 * What the attempt changed and how the review would be scoped (docs/contract/bash-interface.md §2.8): `commit:<sha>`
 * when the bead's closing commit exists locally, else `last-commit`. Lines and files count
 * everything the attempt changed, committed or not; UNMEASURED when git could not say.
 */
export interface ChangeFacts {
  scope: string;
  lines: number;
  files: number;
  /** The bead's closing_commit_sha, set but not present in the local repository. */
  unavailableSha?: string;
}

/** A change that cannot be measured counts as this large: it is reviewed (the gate fails safe). */
export const UNMEASURED = 999;

export type AttemptOutcome =
  | { kind: 'passed-over'; reason: string }
  | {
      kind: 'completed';
      salvaged: boolean;
      /** For a salvaged attempt: the agent's exit code and the closed count before and after it. */
      salvage?: { rc: number; closedBefore: number; closedAfter: number };
      change?: ChangeFacts;
      /** DDx reviewed the work before it landed it (`ddx try`): helix's post-implementation review is not added. */
      reviewedBy?: 'ddx';
    }
  | { kind: 'drift'; changes: string[] }
  /** `refuted`: the agent reported success and verification refused it; `output`: what verification printed last (bounded). */
  | { kind: 'failed'; failure: FailureKind; detail: string; refuted?: true; output?: string[] };

/**
 * How a batch member ended — a related ready bead claimed beside the primary for one direct prompt.
 * Each completed member counts as a completed bead; the cycle stays one cycle (attempted + 1).
 */
export type MemberOutcome =
  | { kind: 'completed' }
  /** Not closed by the agent: optional work, released without counting an attempt. */
  | { kind: 'released' }
  | { kind: 'drift'; changes: string[] }
  /** Closed by the agent but verification failed: reopened, a failed attempt like the primary's. */
  | { kind: 'failed'; detail: string };

export interface MemberVerdict {
  bead: Bead;
  outcome: MemberOutcome;
}

/** What an agent call spent; events that end one carry it and the machine adds it to the run. */
export interface Spent {
  tokens?: number;
  costUsd?: number;
}

/** What one agent call spent, for the run's totals (cost only when the agent reported one). */
export function spentOn(run: AgentRunResult): Spent {
  return run.usage?.costUsd !== undefined ? { tokens: run.tokens, costUsd: run.usage.costUsd } : { tokens: run.tokens };
}

/**
 * The review scope and the size of what the attempt changed (docs/contract/bash-interface.md §2.8):
 * scope `commit:<sha>` when the bead's closing commit exists here, else `last-commit`; lines and
 * files UNMEASURED when git could not say.
 */
export function changeFactsOf(closingSha: string | undefined, present: boolean, size: { lines: number; files: number } | undefined): ChangeFacts {
  return {
    scope: present ? `commit:${closingSha}` : 'last-commit',
    lines: size?.lines ?? UNMEASURED,
    files: size?.files ?? UNMEASURED,
    ...(closingSha !== undefined && !present ? { unavailableSha: closingSha } : {}),
  };
}
