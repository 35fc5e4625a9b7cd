// Was an attempt a completion? Judged from the tracker, DDx's result and verification
// (docs/contract/cli.md §6.4) — never from what the agent says about itself. DDx's statuses are read per
// version (agents/ddx-outcomes.ts): only a landed result counts, a `preserved` one never does.
// One entry for the runner: `judgeAttempt` takes the facts after the agent returned and says
// whether to verify and with what; its `settle` turns the verification into the outcome and the
// tracker writes that settle it (shell/attempt.ts performs them).
// The agents' and tracker's own modules, not their index files: those load the agent runner and
// the tracker's file locks, and the core decides without I/O (tests/supervisor/layers.test.ts).
import { judgeDdxResult } from '../../agents/ddx-outcomes.js';
import type { ExecuteBeadResult, InvalidExecuteBeadResult } from '../../agents/execute-bead-result.js';
import type { Bead } from '../../tracker/bead.js';
import { type Fingerprint, fingerprintChanges } from '../../tracker/fingerprint.js';
import { retryAfterOf } from '../../tracker/ready.js';
import { RUN, type Say } from '../text/lines.js';
import type { AttemptOutcome, FailureKind, MemberOutcome } from './outcome.js';
import type { Verification } from './verification.js';
import { type GateRecord, gateRefusal } from './gate-decisions.js';

/** The verify command for a bead, read before dispatch: text the agent writes is never run. */
export function verifyCommandOf(bead: Bead, env: NodeJS.ProcessEnv): string | undefined {
  return typeof bead.verify === 'string' && bead.verify.trim() ? bead.verify : env.HELIX_VERIFY_CMD || undefined;
}


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
  /** When the bead was re-read (a park in the past is over). */
  now: Date;
  /** What helix's gate said about this attempt's result before DDx would land it (current DDx: core/gate-decisions.ts). */
  gate?: GateRecord;
}

/**
 * On `ddx try` DDx owns the bead for the attempt: when it reports a result it did not land, a
 * change of `execution-eligible` is DDx parking the bead (triage's "mark execution-ineligible"),
 * not someone changing its governance.
 */
function parkedByDdx(facts: DispatchFacts, field: string): boolean {
  if (field !== 'execution-eligible' || facts.closer !== 'ddx') return false;
  const result = facts.result && !('invalid' in facts.result) ? facts.result : undefined;
  return result !== undefined && judgeDdxResult(result).kind !== 'landed';
}

/**
 * How DDx parked a bead it did not land, in words, or undefined: a future `work-retry-after`
 * (current DDx: 5 min or 6 h after no_changes / execution_failed, 24 h after push_conflict), the
 * operator lane (`proposed` with `needs-human-reason`, after no_evidence_produced), or
 * `execution-eligible: false`. helix honours each: the bead is not ready until DDx's time passes.
 */
export function ddxParkOf(bead: Bead, now: Date): string | undefined {
  const retry = retryAfterOf(bead, now);
  if (retry) return `DDx parked it until ${new Date(retry.at).toISOString()} (${retry.key})`;
  if (bead.status === 'proposed' && typeof bead['needs-human-reason'] === 'string') return `DDx moved it to proposed for a human (${bead['needs-human-reason']})`;
  if (bead['execution-eligible'] === false) return 'DDx marked it execution-ineligible';
  return undefined;
}

export type DispatchAssessment =
  | { kind: 'drift'; changes: string[] }
  | { kind: 'verify'; helixCloses: boolean; salvaged: boolean }
  | { kind: 'failed'; failure: FailureKind; detail: string; unknown?: true; refuted?: { output?: string[] } }
  /** DDx kept the work aside without merging it: not landed, whatever its status says. */
  | { kind: 'preserved'; detail: string };

export function assessDispatch(facts: DispatchFacts): DispatchAssessment {
  const { after, result } = facts;
  if (!after || !facts.afterFingerprint) return { kind: 'drift', changes: ['removed'] };
  const validResult = result && !('invalid' in result) ? result : undefined;
  const changes = fingerprintChanges(facts.before, facts.afterFingerprint).filter((field) => !parkedByDdx(facts, field));
  if (changes.length > 0) return { kind: 'drift', changes };
  const closed = after.status === 'closed';
  const agentFailed = facts.exitCode !== 0 || facts.timedOut;

  if (facts.startFailure && !closed) return { kind: 'failed', failure: 'agent-failed', detail: facts.startFailure };
  if (facts.timedOut && !closed) return { kind: 'failed', failure: 'agent-failed', detail: 'agent timed out' };
  if (validResult) {
    // helix's gate refused the result before DDx landed it: a refuted attempt, as after landing
    const refused = gateRefusal(validResult, facts.gate);
    if (refused) return { kind: 'failed', failure: 'no-completion', detail: refused.detail, refuted: { ...(refused.output ? { output: refused.output } : {}) } };
    const verdict = judgeDdxResult(validResult);
    if (verdict.kind === 'preserved') return { kind: 'preserved', detail: verdict.detail };
    if (verdict.kind === 'unknown') return { kind: 'failed', failure: agentFailed ? 'agent-failed' : 'no-completion', detail: verdict.detail, unknown: true };
    if (verdict.kind === 'landed') {
      if (facts.closer === 'ddx' && !closed) return { kind: 'failed', failure: 'no-completion', detail: `DDx reported ${validResult.status} but left the bead ${after.status}` };
      return { kind: 'verify', helixCloses: !closed, salvaged: agentFailed };
    }
    if (closed) return { kind: 'verify', helixCloses: false, salvaged: true };
    const park = ddxParkOf(after, facts.now);
    return { kind: 'failed', failure: verdict.agentFailed || agentFailed ? 'agent-failed' : 'no-completion', detail: park ? `${verdict.detail}; ${park}` : verdict.detail };
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

// ── settling an attempt: what the tracker must be told, as data ─────────────────────────────────

// A verification's result and its tail live in verification.ts (the gate words them too).
export { type Verification, VERIFY_LINE_CHARS, VERIFY_OUTPUT_LINES, verificationTail } from './verification.js';

/**
 * One step the runner performs to settle an attempt. `release` unclaims with the held token;
 * `reopen` reopens a bead that is closed (saying why); `close` is helix's own close with the held
 * token; `stop-holding` writes nothing: the run stops holding a claim the tracker no longer has
 * (a close or reopen dropped it, or the bead vanished), so no exit path releases it again.
 */
export type TrackerOp =
  /** `note`: why, appended to the bead's notes (a retry's prompt shows them). */
  | { op: 'release'; id: string; note?: string }
  | { op: 'reopen'; id: string; reason: string }
  | { op: 'stop-holding'; id: string }
  | { op: 'close'; id: string; commit?: string; session?: string };

export interface SettleFacts {
  id: string;
  /** The bead as re-read after the dispatch (undefined: it vanished). */
  after: Bead | undefined;
  assessment: DispatchAssessment;
  /** The verify run, when the assessment asked for one and the bead has a command (none: nothing to fail). */
  verification?: Verification;
  /** Who closes a landed bead (`ddx try` closes it itself). */
  closer: 'helix' | 'ddx';
  /** DDx's landed commit and session, recorded by helix's close. */
  landed?: { commit?: string; session?: string };
  /** DDx reported the work landed on the branch (a verdict of agents/ddx-outcomes.ts). */
  result?: 'landed' | 'not-landed';
}

/** An attempt's outcome once settled: every outcome but passed over (that one never dispatched). */
export type SettledOutcome = Exclude<AttemptOutcome, { kind: 'passed-over' }>;

/** The attempt's outcome before the runner measures the change, and the tracker writes that settle it. */
export interface Settled {
  outcome: SettledOutcome;
  trackerOps: TrackerOp[];
  /** A line every output mode shows (a result DDx kept aside, landed work verification refused). */
  notice?: Say;
}

/**
 * Settles an attempt after the agent returned (and verification ran, when asked): drift and
 * failure release the claim; a result DDx did not land goes back to the queue; a failed
 * verification reopens what the agent closed; a passed one closes (helix's close) or keeps DDx's.
 */
export function settleAttempt(facts: SettleFacts): Settled {
  const { id, after, assessment } = facts;
  switch (assessment.kind) {
    case 'drift':
      return { outcome: { kind: 'drift', changes: assessment.changes }, trackerOps: releaseAfterDrift(id, after, facts.closer) };
    case 'failed':
      // a refuted attempt says why in the notes, so the next attempt's prompt carries the reason
      if (assessment.refuted) {
        return { outcome: { kind: 'failed', failure: assessment.failure, detail: assessment.detail, refuted: true, ...assessment.refuted }, trackerOps: [{ op: 'release', id, note: assessment.detail }] };
      }
      return { outcome: { kind: 'failed', failure: assessment.failure, detail: assessment.detail }, trackerOps: [{ op: 'release', id }] };
    case 'preserved':
      // Not landed: the bead goes back to the queue. A bead closed meanwhile is reopened, with why.
      return {
        outcome: { kind: 'failed', failure: 'no-completion', detail: assessment.detail },
        trackerOps: after?.status === 'closed' ? [{ op: 'reopen', id, reason: `not landed: ${assessment.detail}` }, { op: 'stop-holding', id }] : [{ op: 'release', id }],
        notice: RUN.notLanded(id, assessment.detail),
      };
    case 'verify': {
      if (facts.verification && !facts.verification.passed) {
        const reason = `verification failed: ${facts.verification.detail}`;
        const output = facts.verification.output?.length ? { output: facts.verification.output } : {};
        const refuted = { outcome: { kind: 'failed', failure: 'no-completion', detail: reason, refuted: true, ...output } as const, trackerOps: reopenAfterFailedVerification(id, after, reason) };
        // DDx lands before helix verifies (and v0.6.1 pushes too): the work stays, and helix says so
        const landed = facts.result === 'landed' ? facts.landed?.commit : undefined;
        return landed ? { ...refuted, notice: RUN.landedButRefuted(id, landed) } : refuted;
      }
      const close: TrackerOp[] = assessment.helixCloses ? [{ op: 'close', id, ...facts.landed }] : [];
      return { outcome: { kind: 'completed', salvaged: assessment.salvaged }, trackerOps: [...close, { op: 'stop-holding', id }] };
    }
  }
}

/** helix's close was refused (a lost claim, a lock timeout): the attempt failed and its claim goes. */
export function settleFailedClose(id: string, message: string): Settled {
  return { outcome: { kind: 'failed', failure: 'no-completion', detail: `could not close: ${message}` }, trackerOps: [{ op: 'release', id }] };
}

/** A batch member settled like the primary: drift, optional work released, or verified. */
export function settleMember(facts: { id: string; after: Bead | undefined; assessment: MemberAssessment; verification?: Verification; closer: 'helix' | 'ddx' }): {
  outcome: MemberOutcome;
  trackerOps: TrackerOp[];
} {
  const { id, assessment } = facts;
  if (assessment.kind === 'drift') return { outcome: { kind: 'drift', changes: assessment.changes }, trackerOps: releaseAfterDrift(id, facts.after, facts.closer) };
  if (assessment.kind === 'release') return { outcome: { kind: 'released' }, trackerOps: [{ op: 'release', id }] };
  // the agent closed it, which dropped the claim
  if (!facts.verification || facts.verification.passed) return { outcome: { kind: 'completed' }, trackerOps: [{ op: 'stop-holding', id }] };
  const reason = `verification failed: ${facts.verification.detail}`;
  return { outcome: { kind: 'failed', detail: reason }, trackerOps: [{ op: 'stop-holding', id }, { op: 'reopen', id, reason }] };
}

/**
 * A failed verification reopens a closed bead (which drops its claim); one still in progress is
 * released — both say why in the notes, so the next attempt's prompt carries the reason.
 */
function reopenAfterFailedVerification(id: string, after: Bead | undefined, reason: string): TrackerOp[] {
  return after?.status === 'closed' ? [{ op: 'reopen', id, reason }, { op: 'stop-holding', id }] : [{ op: 'release', id, note: reason }];
}

/** After drift: release the claim; a closed bead stays closed unless it was superseded (or DDx closed it). */
function releaseAfterDrift(id: string, after: Bead | undefined, closer: 'helix' | 'ddx'): TrackerOp[] {
  if (after?.status === 'closed' && typeof after['superseded-by'] === 'string' && after['superseded-by']) {
    return [{ op: 'reopen', id, reason: 'queue drift: stale close after supersession' }, { op: 'stop-holding', id }];
  }
  // On `ddx try` DDx closes on its own: a close made against changed governance is refused.
  if (after?.status === 'closed' && closer === 'ddx') return [{ op: 'reopen', id, reason: 'queue drift: DDx closed it, but its governance fields changed during execution' }];
  return after ? [{ op: 'release', id }] : [{ op: 'stop-holding', id }];
}

// ── the runner's one entry: judge, verify, settle ────────────────────────────────────────────

export interface AttemptFacts extends DispatchFacts {
  id: string;
  closer: 'helix' | 'ddx';
  /** The bead's verify command, read before dispatch (verifyCommandOf). */
  verifyCommand: string | undefined;
}

export interface AttemptJudgement {
  /** A line every mode shows before anything is written (DDx reported a status helix does not know). */
  notice?: Say;
  /** The command to verify with before settling; undefined: settle without running one. */
  verify?: string;
  /** The outcome and the tracker writes, given the verification (when `verify` asked for one). */
  settle(verification?: Verification): Settled;
}

/** Judges the dispatch from the fresh read and DDx's result; settling waits for the verification. */
export function judgeAttempt(facts: AttemptFacts): AttemptJudgement {
  const assessment = assessDispatch(facts);
  const valid = facts.result && !('invalid' in facts.result) ? facts.result : undefined;
  const landed = valid ? { commit: valid.result_rev, session: valid.session_id } : undefined;
  const reported = valid ? (judgeDdxResult(valid).kind === 'landed' ? 'landed' : 'not-landed') : undefined;
  return {
    ...(assessment.kind === 'failed' && assessment.unknown ? { notice: RUN.unknownDdxStatus(facts.id, assessment.detail) } : {}),
    ...(assessment.kind === 'verify' && facts.verifyCommand ? { verify: facts.verifyCommand } : {}),
    settle: (verification) => settleAttempt({ id: facts.id, after: facts.after, assessment, verification, closer: facts.closer, landed, result: reported }),
  };
}

/**
 * What the memories an attempt injected are told: verified only when it completed; a drifted
 * attempt was never judged and tells them nothing. `refuted`: the agent called it a success and
 * verification refused it, so what it learned is the approach that failed, not a fix.
 */
export function feedbackOf(outcome: SettledOutcome): { verified: boolean; failureDetail?: string; refuted: boolean } | undefined {
  if (outcome.kind === 'drift') return undefined;
  if (outcome.kind === 'completed') return { verified: true, refuted: false };
  return { verified: false, failureDetail: outcome.detail, refuted: outcome.refuted === true };
}
