// One attempt on one bead, step by step: re-read and claim the bead (and its batch), inject
// memories, dispatch the build, judge it, verify and settle — core/judge.ts decides what the
// tracker is told, this file writes it — then feed the verdict back to memory. The loop's
// `attempt` effect and `helix build` both come here.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  type AgentCommand,
  type AgentProblem,
  type ExecuteBeadResult,
  type InvalidExecuteBeadResult,
  TRY_GRACE_SECONDS,
  agentForAction,
  type UsageLimit,
  agentTimeoutSeconds,
  buildSessionOf,
  ddxUsageLimit,
  parseExecuteBeadResult,
  parseTryResult,
} from '../../agents/index.js';
import { CHILD_EXIT } from '../../errors.js';
import { type Bead, INJECTED_KEY, type Snapshot, fingerprintOf } from '../../tracker/index.js';
import type { EventBody } from '../core/run-events.js';
import type { PromptPlace } from '../text/prompts.js';
import { type CallInfo, type DispatchSetup, buildCommand, closerOf, ddxCommandWords, ownershipOf, promptFileFor } from '../core/dispatch.js';
import type { GateRecord } from '../core/gate.js';
import { type SettledOutcome, type Settled, type Verification, assessMember, feedbackOf, judgeAttempt, settleFailedClose, settleMember } from '../core/judge.js';
import { verificationOf } from '../core/verification.js';
import type { Event } from '../core/machine.js';
import { type ChangeFacts, type MemberOutcome, type MemberVerdict, changeFactsOf } from '../core/outcome.js';
import { renderNotesBlock } from '../text/ddx-notes.js';
import { BUILD, RUN, UPKEEP, rotation } from '../text/lines.js';
import { actionFile, implementationPrompt } from '../text/prompts.js';
import { type AgentCall, type CallStop, RunInterrupted, answerOf, limitOfCall, problemOfCall } from './agent-call.js';
import { attemptEndOf, stoppedAttemptEnd } from '../core/attempt-end.js';
import type { LogRange } from './output.js';
import { watchTryPhases } from './try-watch.js';
import { type BeadWrites, clearInjected, clearTryRun, endTryAttempt, startTryAttempt, undoDdxPark } from './bead-writes.js';
import type { ClaimedBead, ClaimedPrimary, HeldClaims } from './claims.js';
import type { MemoryPort } from './memory-port.js';
import type { OutputMode } from './output.js';
import { changeSize, commitExists, gitHead } from './git.js';
import { gateAfterTry, prepareGate, stopTryAfterGate } from './gate-check.js';
import { startHeartbeats } from './heartbeats.js';
import { countInRunState, readRunState } from './run-state.js';

/**
 * What one attempt needs of the run it belongs to — narrow ports, never the run itself: the tracker
 * (and the claims it holds on it), the clock, a line to say, an event to log, an agent call, the
 * run-state record, and the plain facts of the session. A test drives an attempt with a temp store
 * and a scripted `call`, no process spawned; N attempts at once are N calls with the same ports.
 */
export interface AttemptPorts extends BeadWrites {
  claims: HeldClaims;
  snapshot(): Snapshot;
  event(body: EventBody): void;
  call(command: AgentCommand, info: CallInfo, stop?: CallStop): Promise<AgentCall>;
  /** The run's event log (`helix run`): `helix gate` appends its phase and verdict there. */
  eventLog?: string;
  /** Merges into run-state (the attempt in flight, for a crash to find). */
  persist(extra: Record<string, unknown>): void;
  promptPlace(): PromptPlace;
  /** `.helix/context.md`'s text for the prompt, from a read of the queue. */
  context(queue: Bead[]): string;
  /** Failed attempts at the bead in this run so far. */
  failures(id: string): number;
  setup: DispatchSetup & {
    memory?: MemoryPort;
    outputMode: OutputMode;
    /** Prints an agent's answer on stdout (normal and --quiet). */
    answer(text: string): void;
  };
}

/** Which command asked for the attempt: the loop prints the cycle line, and the delegation line differs. */
export type AttemptCommand = 'run' | 'build';

/**
 * One attempt, and the event log's `attempt_end` for it (docs/events.md): how it ended, or that a
 * signal cut it short — one for each `claim`, so a board or a report never shows an attempt that
 * never ends.
 */
export async function attempt(ports: AttemptPorts, selected: Bead, cycle: number, ready: Bead[], readyCount: number, command: AttemptCommand): Promise<Event> {
  const started = ports.now();
  const trace: AttemptTrace = {};
  const facts = () => ({ bead: trace.bead ?? selected.id, attempt: trace.attempt ?? 1, seconds: (ports.now().getTime() - started.getTime()) / 1000, ...(trace.log ? { log: trace.log } : {}) });
  try {
    const done = await attemptSteps(ports, selected, cycle, ready, readyCount, command, trace);
    const end = trace.bead ? attemptEndOf(done, facts()) : undefined;
    if (end) ports.event(end);
    return done;
  } catch (error) {
    if (trace.bead) ports.event(stoppedAttemptEnd(facts(), error instanceof RunInterrupted ? 'the run was stopped' : `helix failed: ${(error as Error).message}`));
    throw error;
  }
}

/** What an attempt has done so far, for its `attempt_end`: the bead it claimed, which attempt, its build's log block. */
interface AttemptTrace {
  bead?: string;
  attempt?: number;
  log?: LogRange;
}

async function attemptSteps(ports: AttemptPorts, selected: Bead, cycle: number, ready: Bead[], readyCount: number, command: AttemptCommand, trace: AttemptTrace): Promise<Event> {
  const started = ports.now();
  const claim = ports.claims.claimSelected(selected);
  if ('passedOver' in claim) return { type: 'attempted', bead: selected, outcome: { kind: 'passed-over', reason: claim.passedOver }, durationSec: 0, tokens: 0 };
  const { bead, queue } = claim;
  Object.assign(trace, { bead: bead.id, attempt: ports.failures(bead.id) + 1 });
  if (command === 'run') ports.event({ type: 'claim', bead: bead.id, attempt: trace.attempt!, title: bead.title });
  // a build attempt from now on: the next drained run aligns again (core/alignment-due.ts); undone below if the call does not get through
  const lastBuildBefore = readRunState(ports.store.dir)?.last_build_attempt ?? null;
  const inFlight = { current_issue: bead.id, stop_reason: null, cycle_start: started.toISOString(), cycle_end: null, cycle_duration: null, last_build_attempt: started.toISOString() };
  ports.persist(inFlight);
  const members = ports.setup.buildPath === 'direct' ? ports.claims.claimBatch(bead, ready) : [];
  if (command === 'run') sayCycle(ports, readyCount, cycle, [bead.id, ...members.map((m) => m.bead.id)]);
  const memory = await injectMemories(ports, bead, cycle);
  const injected = memory?.names ?? [];
  const prompt = implementationPrompt({
    ...ports.promptPlace(),
    bead,
    context: ports.context(queue),
    related: members.map((m) => m.bead),
    memory,
    ownership: ownershipOf(ports.setup.buildPath),
  });
  const baseRev = await gitHead(ports.setup.root);
  const closedBefore = closedCount(queue);
  // `ddx try` takes no prompt: what helix would prompt reaches DDx's prompt through the notes.
  const notes =
    ports.setup.buildPath === 'try' ? renderNotesBlock({ action: `Follow the HELIX implementation action at ${actionFile('implementation', ports.setup.env)}.`, context: ports.context(queue), memory }) : undefined;
  // ── call site 1 of the gate (issue 32, verified before it lands; shell/gate-check.ts) ──
  // current DDx runs helix's verification as a pre-merge check: in place before each `ddx try`
  if (ports.setup.buildPath === 'try') await prepareGate(ports.setup.root, bead, (line) => ports.say(line), ports.eventLog);
  // Claims stay live (heartbeats) until the attempt is settled: verification runs with the bead
  // in progress, and a DDx worker takes a claim whose heartbeat is 90 s old.
  const stopHeartbeats = startHeartbeats(ports);
  let outcome: SettledOutcome | undefined;
  let limit: UsageLimit | undefined;
  let answer: string;
  let spent: { tokens: number; costUsd: number | undefined };
  const batch: MemberVerdict[] = [];
  try {
    if (notes) startTryAttempt(ports, bead.id, notes);
    let call: AgentCall;
    let problem: AgentProblem | undefined;
    try {
      const build = buildCall(ports, bead, prompt, command);
      ports.event({ type: 'dispatch', bead: bead.id, action: 'build', agent: build.call.label, model: build.call.model ?? null, effort: ports.setup.plan.primary.effort ?? null });
      // on `ddx try` DDx's intake comes first; its sessions move the phase on as each ends (try-watch.ts)
      ports.event({ type: 'phase', bead: bead.id, attempt: trace.attempt!, phase: ports.setup.buildPath === 'try' ? 'intake' : 'build' });
      const watch = ports.setup.buildPath === 'try' ? watchTryPhases(ports.setup.root, bead.id, ports.now(), (phase, tokens) => ports.event({ type: 'phase', bead: bead.id, attempt: trace.attempt!, phase, tokens })) : undefined;
      // stopped (a signal, the timeout), `ddx try` hears it only after its gate answered: DDx, cancelled, lands what no check passed
      const stop: CallStop = ports.setup.buildPath === 'try' ? { stopWith: () => stopTryAfterGate(ports.setup.root, bead.id) } : {};
      try {
        call = await ports.call(build.command, build.call, stop);
      } finally {
        watch?.stop();
      }
      if (call.log) trace.log = call.log;
      limit = limitOfCall(build.command, call, ports.now());
      problem = limit ? undefined : problemOfCall(build.command, call);
    } catch (error) {
      // Interrupted (or broken) before any verdict: the names say nothing about the memories, and
      // left on a released bead they would be fed back by some later recovery. Drop them.
      if (injected.length > 0) clearInjected(ports, bead.id);
      throw error;
    } finally {
      if (notes) endTryAttempt(ports, bead.id);
    }
    // current DDx writes its own summary over .ddx/run-state.json during `ddx try` (measured,
    // docs/ddx.md): the attempt's record goes back in before verification, for a crash to find
    if (ports.setup.buildPath === 'try') ports.persist(inFlight);
    // through DDx the agent's final answer is in DDx's record of the build, not on stdout
    answer = (call.ddx && buildSessionOf(call.ddx)?.output) || call.answer;
    const read = readBuildResult(ports, bead.id, call);
    // ── call site 2 of the gate (issue 32): what it said about this result, for the judge ──
    const gate = ports.setup.buildPath === 'try' ? gateAfterTry(ports.setup.root, bead.id, read.result, (line) => ports.say(line)) : undefined;
    spent = read;
    ports.event({ type: 'agent_done', bead: bead.id, action: 'build', agent: call.startFailure ? 'none' : ports.setup.plan.primary.agent, rc: call.exitCode, seconds: Math.round(call.durationMs / 1000), tokens: read.tokens, cost_usd: read.costUsd ?? null });
    if (!limit && read.result && !('invalid' in read.result)) limit = ddxUsageLimit(read.result as unknown as Record<string, unknown>);
    // Not the bead's failure: nothing is counted against it, and DDx's park of it is undone.
    if (limit || problem) {
      if (notes) clearTryRun(ports, bead.id);
      undoDdxPark(ports, bead.id, selected, limit ? `${limit.agent} ${limit.kind} limit, not the bead's failure` : `${problem!.what}, not the bead's failure`);
      return notTheBeads(ports, bead, members, injected, limit ? { limit } : { problem: problem! }, started, spent, lastBuildBefore);
    }
    // A land conflict with work that landed meanwhile (several builds at once): DDx kept the attempt
    // and parked the bead; the bead goes again once the others have landed, not in DDx's 15 minutes.
    if (read.result && !('invalid' in read.result) && read.result.status.startsWith('land_conflict')) undoDdxPark(ports, bead.id, selected, 'a land conflict with work that landed meanwhile');
    // One verify run per command per attempt: the tree does not change between the members' checks.
    const verify = onceEach((verifyCommand: string) => verifyWith(ports, bead.id, verifyCommand));
    outcome = await settle(ports, claim, call, read.result, verify, (read.result && !('invalid' in read.result) ? read.result.base_rev : undefined) ?? baseRev, gate);
    if (outcome.kind === 'completed' && outcome.salvaged && call.exitCode !== 0) {
      outcome = { ...outcome, salvage: { rc: call.exitCode, closedBefore, closedAfter: closedCount(ports.snapshot().beads) } };
    }
    if (outcome.kind === 'completed') ports.event({ type: 'close', bead: bead.id, how: outcome.salvaged ? 'salvaged' : 'closed' });
    for (const member of members) {
      const verdict = await settleBatchMember(ports, member, verify);
      if (verdict.kind === 'completed') ports.event({ type: 'close', bead: member.bead.id, how: 'closed' });
      batch.push({ bead: member.bead, outcome: verdict });
    }
    // settled: nothing of this `ddx try` is left for the next run to finish (recovery.ts)
    if (notes) clearTryRun(ports, bead.id);
  } finally {
    stopHeartbeats();
  }
  await feedBack(ports, bead, injected, outcome, answer);
  const ended = ports.now();
  const durationSec = (ended.getTime() - started.getTime()) / 1000;
  ports.persist({ current_issue: null, cycle_start: started.toISOString(), cycle_end: ended.toISOString(), cycle_duration: Math.round(durationSec), last_build_attempt: started.toISOString() });
  const { tokens, costUsd } = spent;
  return { type: 'attempted', bead, outcome, durationSec, tokens, ...(costUsd !== undefined ? { costUsd } : {}), ...(members.length > 0 ? { batch } : {}) };
}

/**
 * A build that hit a limit, or failed on setup or infrastructure, is not an attempt of the bead:
 * its claims are released, the memories it was given are neither credited nor blamed, and the
 * machine decides the wait (or the stop).
 */
function notTheBeads(
  ports: AttemptPorts,
  bead: Bead,
  members: ClaimedBead[],
  injected: string[],
  cause: { limit: UsageLimit } | { problem: AgentProblem },
  started: Date,
  spent: { tokens: number; costUsd: number | undefined },
  lastBuildBefore: unknown,
): Event {
  for (const id of [bead.id, ...members.map((m) => m.bead.id)]) ports.claims.release(id);
  if (injected.length > 0) clearInjected(ports, bead.id);
  const ended = ports.now();
  const cycle = { current_issue: null, cycle_start: started.toISOString(), cycle_end: ended.toISOString(), cycle_duration: Math.round((ended.getTime() - started.getTime()) / 1000) };
  // nothing was built: an alignment since the attempt before still stands
  ports.persist({ ...cycle, last_build_attempt: lastBuildBefore });
  const cost = { tokens: spent.tokens, ...(spent.costUsd !== undefined ? { costUsd: spent.costUsd } : {}) };
  if ('limit' in cause) return { type: 'limited', bead, limit: cause.limit, at: ended.getTime(), ...cost };
  return { type: 'unavailable', bead, problem: cause.problem, ...cost };
}

/** The cycle line (docs/contract/bash-interface.md §2.4): long form in normal and --quiet, the short one with --summary. */
function sayCycle(ports: AttemptPorts, readyCount: number, cycle: number, ids: [string, ...string[]]): void {
  if (ids.length > 1) {
    ports.say(RUN.cycleBatch(readyCount, cycle, ids));
    ports.say(RUN.cycleBatchSummary(readyCount, cycle, ids));
  } else {
    ports.say(RUN.cycle(readyCount, cycle, ids[0]));
    ports.say(RUN.cycleSummary(readyCount, cycle, ids[0]));
  }
}

/** The memories for the prompt (on `ddx try`: the notes block), their names kept on a claimed bead so a crash does not lose them. */
async function injectMemories(ports: AttemptPorts, bead: Bead, cycle: number): Promise<{ block: string; names: string[] } | undefined> {
  const { memory } = ports.setup;
  if (!memory) return undefined;
  try {
    const memoryBlock = await memory.inject(bead);
    const injected = memoryBlock.names;
    ports.say(RUN.injectedMemories(cycle, injected.length, ports.setup.outputMode === 'summary'));
    if (injected.length > 0) ports.event({ type: 'memory_injected', bead: bead.id, names: injected });
    if (injected.length > 0 && ports.claims.has(bead.id)) {
      ports.store.mutate((d) => d.change(bead.id, (b) => { b[INJECTED_KEY] = injected; }));
    }
    return memoryBlock;
  } catch (error) {
    ports.say(UPKEEP.memoryInjectionSkipped((error as Error).message));
    return undefined;
  }
}

/**
 * The build's command and how its call is described: on `execute-bead` the prompt goes to the
 * file DDx reads; the delegation or rotation line is said; on `ddx try` the call waits for DDx's
 * wrap-up after its wall clock (HELIX_AGENT_TIMEOUT). What a ddx call spent is read from DDx's
 * records of the bead's sessions (agent-call.ts).
 */
function buildCall(ports: AttemptPorts, bead: Bead, prompt: string, invokedBy: AttemptCommand): { command: AgentCommand; call: CallInfo } {
  const { setup } = ports;
  const choice = agentForAction(setup.plan, 'build');
  if (setup.buildPath === 'execute-bead') {
    const promptFile = promptFileFor(setup.root, bead.id);
    mkdirSync(dirname(promptFile), { recursive: true });
    writeFileSync(promptFile, prompt);
  }
  const command = buildCommand(setup, bead.id, prompt);
  if (command.file === 'ddx') {
    const words = ddxCommandWords(command, bead.id);
    ports.say(invokedBy === 'build' ? BUILD.delegating(words, bead.id) : RUN.delegatingLoop(words));
  } else if (choice.agent !== setup.plan.primary.agent) {
    ports.say(rotation('build', choice.agent));
  }
  // Named by the agent doing the work (the harness under ddx), as the Bash CLI's lines were.
  const call: CallInfo = { label: choice.agent, requested: choice.agent, model: choice.model, prompt, purpose: 'build', beadId: bead.id };
  if (setup.buildPath === 'try') call.timeoutSec = agentTimeoutSeconds(setup.env) + TRY_GRACE_SECONDS;
  return { command, call };
}

/** What the build printed: its answer, DDx's result (counted on `ddx try`), and what it spent. */
function readBuildResult(ports: AttemptPorts, id: string, call: AgentCall): { result: ExecuteBeadResult | InvalidExecuteBeadResult | undefined; tokens: number; costUsd: number | undefined } {
  const { setup } = ports;
  if (setup.buildPath === 'try') {
    // DDx's own claim-and-close is counted by outcome (docs/contract/bash-interface.md §12.3, its execute-loop).
    if (call.exitCode === 0) countInRunState(ports.store.dir, 'ddx_delegation_success_count');
    else countInRunState(ports.store.dir, 'ddx_delegation_failure_count', call.timedOut || call.exitCode === CHILD_EXIT.timedOut ? 'timeout' : 'other');
  }
  // The build's output: stdout in normal and --quiet; with --summary only the log has it (§2.5).
  if (setup.outputMode !== 'summary') setup.answer(answerOf(call));
  const result = setup.buildPath === 'execute-bead' ? parseExecuteBeadResult(call.stdout, id) : setup.buildPath === 'try' ? parseTryResult(call.stdout, id) : undefined;
  const validResult = result && !('invalid' in result) ? result : undefined;
  if (result && 'invalid' in result) ports.say(RUN.invalidResult(id, result.reason));
  // DDx's record of every session of the attempt (intake, build, review) is the whole bill; its printed result has the build's alone
  if (call.ddx?.spent) return { result, tokens: call.tokens, costUsd: call.usage?.costUsd };
  return { result, tokens: validResult?.tokens ?? call.tokens, costUsd: validResult?.cost_usd ?? call.usage?.costUsd };
}

/**
 * Settles the attempt after the agent returned: the judge reads the dispatch from a fresh read,
 * verification runs when it asks for it, and the tracker writes it settles on are performed. A
 * completed attempt gets its change measured for the review gate.
 */
async function settle(
  ports: AttemptPorts,
  claim: ClaimedPrimary,
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
function writeSettlement(ports: AttemptPorts, settled: Settled): SettledOutcome {
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
async function settleBatchMember(ports: AttemptPorts, member: ClaimedBead, verify: (command: string) => Promise<Verification>): Promise<MemberOutcome> {
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
async function verifyWith(ports: AttemptPorts, id: string, commandText: string): Promise<Verification> {
  ports.event({ type: 'phase', bead: id, phase: 'verify' });
  ports.say(RUN.verifying(commandText));
  const call = await ports.call({ file: 'sh', args: ['-c', commandText], cwd: ports.setup.root, env: {} }, { label: 'verify', purpose: 'verify' });
  const verification = verificationOf(commandText, call);
  ports.event({ type: 'verify', bead: id, command: commandText, rc: call.exitCode, passed: verification.passed });
  return verification;
}

/** Feeds the verdict back to the memories the attempt injected; a drifted attempt is never judged. */
async function feedBack(ports: AttemptPorts, bead: Bead, injected: string[], outcome: SettledOutcome, answer: string): Promise<void> {
  const { memory } = ports.setup;
  const verdict = feedbackOf(outcome);
  if (memory && verdict) {
    try {
      const credit = await memory.feedback({ bead, injected, output: answer, ...verdict });
      // what the store recorded, memory by memory: a verified attempt does not credit a memory it did not use
      if (injected.length > 0) {
        const recorded = { helped: credit?.helped ?? [], failed: credit?.failed ?? [], left_alone: credit?.leftAlone ?? [] };
        ports.event({ type: 'memory_credited', bead: bead.id, names: injected, outcome: verdict.verified ? 'success' : 'failure', ...recorded });
      }
    } catch (error) {
      ports.say(UPKEEP.memoryFeedbackSkipped((error as Error).message));
    }
  }
  // A drifted attempt is never judged, but its names must not outlive it either.
  if (injected.length > 0) clearInjected(ports, bead.id);
}

/**
 * The review scope and the size of what the attempt changed (docs/contract/bash-interface.md
 * §2.8), measured with git: the bead's closing commit, if it exists here, and everything since
 * the attempt's base revision, committed or not.
 */
async function changeFacts(ports: AttemptPorts, id: string, baseRev: string | undefined): Promise<ChangeFacts> {
  const sha = ports.snapshot().byId.get(id)?.closing_commit_sha;
  const known = typeof sha === 'string' && sha !== '' ? sha : undefined;
  const present = known !== undefined && (await commitExists(ports.setup.root, known));
  return changeFactsOf(known, present, await changeSize(ports.setup.root, baseRev, ports.store.file));
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

const closedCount = (beads: Bead[]): number => beads.filter((b) => b.status === 'closed').length;

/**
 * DDx closed the bead by "dangling-success recovery" (ae663ca012 execute_bead_dangling_success.go):
 * an earlier attempt's commit was already on the branch — measured: an attempt whose pre-land
 * review malfunctioned had merged its commit first — so no review of it ever passed.
 */
const isDanglingRecovery = (result: ExecuteBeadResult): boolean => (result.detail ?? '').startsWith('dangling-success recovery');
