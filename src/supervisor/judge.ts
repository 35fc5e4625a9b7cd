// Was an attempt a completion? Judged from the tracker, DDx's result and verification
// (contract §6.4) — never from what the agent says about itself. DDx's statuses are read per
// version (agents/ddx-outcomes.ts): only a landed result counts, a `preserved` one never does.
import { type ExecuteBeadResult, type InvalidExecuteBeadResult, judgeDdxResult } from '../agents/index.js';
import { type Bead, type Fingerprint, fingerprintChanges } from '../tracker/index.js';

/** agent-failed: the agent errored; no-completion: it exited 0 but the work is not done and verified. */
export type FailureKind = 'agent-failed' | 'no-completion';

export interface DispatchFacts {
  before: Fingerprint;
  /** The bead re-read after dispatch (undefined: it vanished from the file). */
  after: Bead | undefined;
  afterFingerprint: Fingerprint | undefined;
  exitCode: number;
  timedOut: boolean;
  /** DDx's result (execute-bead JSON or `ddx try` lines); undefined when it printed none (older DDx, direct agents). */
  result: ExecuteBeadResult | InvalidExecuteBeadResult | undefined;
  /** Who closes a landed bead: helix (execute-bead, the default) or DDx itself (`ddx try`). */
  closer?: 'helix' | 'ddx';
  /** Why the agent program could not be started at all (then it never ran). */
  startFailure?: string;
}

export type DispatchAssessment =
  | { kind: 'drift'; changes: string[] }
  | { kind: 'verify'; helixCloses: boolean; salvaged: boolean }
  | { kind: 'failed'; failure: FailureKind; detail: string; unknown?: true }
  /** DDx kept the work aside without merging it: not landed, whatever its status says. */
  | { kind: 'preserved'; detail: string };

export function assessDispatch(facts: DispatchFacts): DispatchAssessment {
  const { after, result } = facts;
  if (!after || !facts.afterFingerprint) return { kind: 'drift', changes: ['removed'] };
  const changes = fingerprintChanges(facts.before, facts.afterFingerprint);
  if (changes.length > 0) return { kind: 'drift', changes };
  const closed = after.status === 'closed';
  const agentFailed = facts.exitCode !== 0 || facts.timedOut;
  const validResult = result && !('invalid' in result) ? result : undefined;

  if (facts.startFailure && !closed) return { kind: 'failed', failure: 'agent-failed', detail: facts.startFailure };
  if (facts.timedOut && !closed) return { kind: 'failed', failure: 'agent-failed', detail: 'agent timed out' };
  if (validResult) {
    const verdict = judgeDdxResult(validResult);
    if (verdict.kind === 'preserved') return { kind: 'preserved', detail: verdict.detail };
    if (verdict.kind === 'unknown') return { kind: 'failed', failure: agentFailed ? 'agent-failed' : 'no-completion', detail: verdict.detail, unknown: true };
    if (verdict.kind === 'landed') {
      if (facts.closer === 'ddx' && !closed) return { kind: 'failed', failure: 'no-completion', detail: `DDx reported ${validResult.status} but left the bead ${after.status}` };
      return { kind: 'verify', helixCloses: !closed, salvaged: agentFailed };
    }
    if (closed) return { kind: 'verify', helixCloses: false, salvaged: true };
    return { kind: 'failed', failure: verdict.agentFailed || agentFailed ? 'agent-failed' : 'no-completion', detail: verdict.detail };
  }
  if (closed) return { kind: 'verify', helixCloses: false, salvaged: agentFailed };
  const invalidNote = result && 'invalid' in result ? ` (${result.reason})` : '';
  if (agentFailed) return { kind: 'failed', failure: 'agent-failed', detail: `agent exited with code ${facts.exitCode}${invalidNote}` };
  return { kind: 'failed', failure: 'no-completion', detail: `agent exited 0 but the bead is still ${after.status}${invalidNote}` };
}

/**
 * A batch member (a related bead claimed beside the primary for one direct prompt) after the
 * dispatch. The same drift rule as the primary; then only the tracker decides: closed by the agent
 * → verify it like the primary; not closed → it was optional work, released without an attempt.
 */
export type MemberAssessment = { kind: 'drift'; changes: string[] } | { kind: 'verify' } | { kind: 'release' };

export function assessMember(facts: { before: Fingerprint; after: Bead | undefined; afterFingerprint: Fingerprint | undefined }): MemberAssessment {
  if (!facts.after || !facts.afterFingerprint) return { kind: 'drift', changes: ['removed'] };
  const changes = fingerprintChanges(facts.before, facts.afterFingerprint);
  if (changes.length > 0) return { kind: 'drift', changes };
  return facts.after.status === 'closed' ? { kind: 'verify' } : { kind: 'release' };
}

/** The skip reason after MAX_ATTEMPTS failures, worded by how the last attempt failed. */
export function intractableReason(failure: FailureKind, attempts: number): string {
  return failure === 'agent-failed'
    ? `intractable after ${attempts} attempts with exponential backoff`
    : `failed to complete after ${attempts} attempts with exponential backoff`;
}

export const DRIFT_REASON = 'queue drift: upstream governance fields changed during execution';
