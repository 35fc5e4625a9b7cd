// Settling an attempt once its build returned (attempt.ts): the judge reads the dispatch from a
// fresh read of the tracker (core/judge.ts decides), verification runs when it asks — one run per
// verify command, shared by the primary and its batch —, the tracker writes it settles on are
// performed through the held claims, each batch member is judged and settled alike, and a completed
// attempt has its change measured (git) for the post-implementation review.
import type { AgentInvocation, ExecuteBeadResult, InvalidExecuteBeadResult } from '../../agents/index.js';
import { type Bead, type Fingerprint, type Snapshot, fingerprintOf } from '../../tracker/index.js';
import { type CallInfo, type BuildPath, closerOf } from '../core/dispatch.js';
import type { GateRecord } from '../core/gate-decisions.js';
import { type SettledOutcome, type Settled, type TrackerOp, type Verification, assessMember, judgeAttempt, settleFailedClose, settleMember } from '../core/judge.js';
import { type ChangeFacts, type MemberOutcome, changeFactsOf } from '../core/outcome.js';
import type { EventBody } from '../core/run-events.js';
import { verificationOf } from '../core/verification.js';
import { RUN, type Say } from '../text/lines.js';
import type { AgentCall } from './agent-call.js';

/** What settling needs of the attempt's ports (attempt.ts AttemptPorts has them all). */
export interface SettlementPorts {
  /** The tracker's steps on the beads the attempt holds (claims.ts HeldClaims). */
  claims: {
    apply(op: Exclude<TrackerOp, { op: 'close' }>): void;
    close(op: Extract<TrackerOp, { op: 'close' }>): void;
  };
  snapshot(): Snapshot;
  now(): Date;
  say(line: Say): void;
  event(body: EventBody): void;
  call(invocation: AgentInvocation, info: CallInfo): Promise<AgentCall>;
  git: {
    commitExists(sha: string): Promise<boolean>;
    changeSize(base: string | undefined): Promise<{ lines: number; files: number } | undefined>;
  };
  setup: { root: string; buildPath: BuildPath };
}

/** A bead claimed for the attempt (claims.ts ClaimedBead): as re-read before the claim, with its fingerprint and verify command. */
interface Claimed {
  bead: Bead;
  before: Fingerprint;
  verifyCommand: string | undefined;
}

/** The attempt's verification: the bead's verify command run once per command text, however many beads ask. */
export function verifierOf(ports: SettlementPorts, id: string): (command: string) => Promise<Verification> {
  return onceEach((verifyCommand: string) => verifyWith(ports, id, verifyCommand));
}

/**
 * Settles the attempt after the agent returned: the judge reads the dispatch from a fresh read,
 * verification runs when it asks for it, and the tracker writes it settles on are performed. A
 * completed attempt gets its change measured for the post-implementation review.
 */
export async function settle(
  ports: SettlementPorts,
  claim: Claimed,
  call: AgentCall,
  result: ExecuteBeadResult | InvalidExecuteBeadResult | undefined,
  verify: (command: string) => Promise<Verification>,
  baseRev: string | undefined,
  gate?: GateRecord,
): Promise<SettledOutcome> {
  const id = claim.bead.id;
  const after = ports.snapshot().byId.get(id);
  const closer = closerOf(ports.setup.buildPath);
  const judgement = judgeAttempt({
    id,
    before: claim.before,
    after,
    afterFingerprint: after ? fingerprintOf(after, ports.now()) : undefined,
    exitCode: call.exitCode,
    timedOut: call.timedOut,
    result,
    closer,
    startFailure: call.startFailure,
    now: ports.now(),
    verifyCommand: claim.verifyCommand,
    gate,
  });
  if (judgement.notice) ports.say(judgement.notice);
  const verification = judgement.verify ? await verify(judgement.verify) : undefined;
  const outcome = writeSettlement(ports, judgement.settle(verification));
  if (outcome.kind !== 'completed') return outcome;
  // `ddx try` reviews before it lands: that is the build's one review, helix does not add a second —
  // unless DDx closed the bead by recovering an earlier attempt it never reviewed
  const reviewedByDdx = closer === 'ddx' && !(result && !('invalid' in result) && isDanglingRecovery(result));
  return { ...outcome, change: await changeFacts(ports, id, baseRev), ...(reviewedByDdx ? { reviewedBy: 'ddx' as const } : {}) };
}

/** Writes what the judge settled; a close the tracker refuses settles as a failed attempt instead. */
function writeSettlement(ports: SettlementPorts, settled: Settled): SettledOutcome {
  if (settled.notice) ports.say(settled.notice);
  for (const op of settled.trackerOps) {
    if (op.op !== 'close') {
      ports.claims.apply(op);
      continue;
    }
    try {
      ports.claims.close(op);
    } catch (error) {
      return writeSettlement(ports, settleFailedClose(op.id, (error as Error).message));
    }
  }
  return settled.outcome;
}

/**
 * Judges one batch member after the dispatch, from a fresh read, and settles it like the primary
 * (settleMember decides): drift releases it; closed by the agent → verified; otherwise released.
 */
export async function settleBatchMember(ports: SettlementPorts, member: Claimed, verify: (command: string) => Promise<Verification>): Promise<MemberOutcome> {
  const { id } = member.bead;
  const after = ports.snapshot().byId.get(id);
  const assessment = assessMember({ before: member.before, after, afterFingerprint: after ? fingerprintOf(after, ports.now()) : undefined });
  // still held while it is verified: an interrupt now reopens it (HeldClaims.releaseAll)
  const verification = assessment.kind === 'verify' && member.verifyCommand ? await verify(member.verifyCommand) : undefined;
  const settled = settleMember({ id, after, assessment, verification, closer: closerOf(ports.setup.buildPath) });
  for (const op of settled.trackerOps) if (op.op !== 'close') ports.claims.apply(op);
  return settled.outcome;
}

/** Runs the bead's verify command (`sh -c`, in the repository): passed on exit 0, with its last lines. */
async function verifyWith(ports: SettlementPorts, id: string, commandText: string): Promise<Verification> {
  ports.event({ type: 'phase', bead: id, phase: 'verify' });
  ports.say(RUN.verifying(commandText));
  const call = await ports.call({ file: 'sh', args: ['-c', commandText], cwd: ports.setup.root, env: {} }, { label: 'verify', purpose: 'verify' });
  const verification = verificationOf(commandText, call);
  ports.event({ type: 'verify', bead: id, command: commandText, rc: call.exitCode, passed: verification.passed });
  return verification;
}


/**
 * The review scope and the size of what the attempt changed (docs/contract/bash-interface.md
 * §2.8), measured with git: the bead's closing commit, if it exists here, and everything since
 * the attempt's base revision, committed or not.
 */
async function changeFacts(ports: SettlementPorts, id: string, baseRev: string | undefined): Promise<ChangeFacts> {
  const sha = ports.snapshot().byId.get(id)?.closing_commit_sha;
  const known = typeof sha === 'string' && sha !== '' ? sha : undefined;
  const present = known !== undefined && (await ports.git.commitExists(known));
  return changeFactsOf(known, present, await ports.git.changeSize(baseRev));
}

/** Calls `work` once per distinct key; later calls with the same key share the first promise. */
function onceEach<T>(work: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const started = new Map<string, Promise<T>>();
  return (key) => {
    let running = started.get(key);
    if (!running) started.set(key, (running = work(key)));
    return running;
  };
}


/**
 * DDx closed the bead by "dangling-success recovery" (ae663ca012 execute_bead_dangling_success.go):
 * an earlier attempt's commit was already on the branch — measured: an attempt whose pre-land
 * review malfunctioned had merged its commit first — so no review of it ever passed.
 */
const isDanglingRecovery = (result: ExecuteBeadResult): boolean => (result.detail ?? '').startsWith('dangling-success recovery');
