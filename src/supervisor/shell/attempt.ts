// One attempt on one bead, step by step: re-read and claim the bead (and its batch), inject
// memories, dispatch the build, judge it, verify and settle — core/judge.ts decides what the
// tracker is told, this file writes it — then feed the verdict back to memory. The loop's
// `attempt` effect and `helix build` both come here; attempt-settlement.ts settles the build. It
// touches the world only through its ports (AttemptPorts); attempt-ports.ts builds them from the run.
import {
  type AgentInvocation,
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
import { type Bead, INJECTED_KEY, type Snapshot } from '../../tracker/index.js';
import type { EventBody, Phase } from '../core/run-events.js';
import type { PromptPlace } from '../text/prompts.js';
import { type CallInfo, type DispatchSetup, buildInvocation, ddxCommandWords, ownershipOf, promptFileFor } from '../core/dispatch.js';
import type { GateRecord } from '../core/gate-decisions.js';
import { type SettledOutcome, feedbackOf } from '../core/judge.js';
import type { Event } from '../core/machine.js';
import type { MemberVerdict } from '../core/outcome.js';
import { renderNotesBlock } from '../text/ddx-notes.js';
import { BUILD, RUN, type Say, UPKEEP, rotation } from '../text/lines.js';
import { actionFile, implementationPrompt } from '../text/prompts.js';
import { type AgentCall, type CallStop, RunInterrupted, answerOf, limitOfCall, problemOfCall } from './agent-call.js';
import { attemptEndOf, stoppedAttemptEnd } from '../core/attempt-end.js';
import type { LogRange } from './output.js';
import { type BeadWrites, clearInjected, clearTryRun, endTryAttempt, startTryAttempt, undoDdxPark } from './bead-writes.js';
import type { ClaimedBead, ClaimedPrimary, HeldClaims } from './claims.js';
import type { MemoryPort } from './memory-port.js';
import type { OutputMode } from './output.js';
import { type SettlementPorts, settle, settleBatchMember, verifierOf } from './attempt-settlement.js';

/** What DDx's result printed on a build path that has one: valid, invalid, or none. */
type BuildResult = ExecuteBeadResult | InvalidExecuteBeadResult | undefined;

/**
 * What one attempt needs of the run it belongs to — narrow ports, never the run itself: the tracker
 * (and the claims it holds on it), the clock, a line to say, an event to log, an agent call, the
 * run-state record, git, helix's gate around a `ddx try`, and the plain facts of the session. A test
 * drives an attempt with a temp store and a scripted `call`, no agent spawned; N attempts at once
 * are N calls with the same ports (attempt-ports.ts builds them).
 */
export interface AttemptPorts extends BeadWrites, SettlementPorts {
  claims: HeldClaims;
  snapshot(): Snapshot;
  event(body: EventBody): void;
  call(invocation: AgentInvocation, info: CallInfo, stop?: CallStop): Promise<AgentCall>;
  /** Merges into run-state (the attempt in flight, for a crash to find). */
  persist(extra: Record<string, unknown>): void;
  /** run-state's `last_build_attempt` as this attempt found it (put back when its call does not get through). */
  lastBuildAttempt(): unknown;
  /** Counts DDx's own claim-and-close on `ddx try` in run-state, by outcome (docs/contract/bash-interface.md §12.3). */
  countDelegation(counter: 'ddx_delegation_success_count' | 'ddx_delegation_failure_count', reason?: string): void;
  promptPlace(): PromptPlace;
  /** `.helix/context.md`'s text for the prompt, from a read of the queue. */
  context(queue: Bead[]): string;
  /** Failed attempts at the bead in this run so far. */
  failures(id: string): number;
  /** Writes the prompt file `ddx agent execute-bead` reads (its folder made). */
  writePrompt(file: string, text: string): void;
  /** Keeps the held claims live for DDx (heartbeats.ts) until the function it returns is called. */
  heartbeats(): () => void;
  /** git in the repository, asked without blocking (git.ts). */
  git: {
    head(): Promise<string | undefined>;
    commitExists(sha: string): Promise<boolean>;
    /** Lines and files changed since `base`, the tracker file left out. */
    changeSize(base: string | undefined): Promise<{ lines: number; files: number } | undefined>;
  };
  /** helix's gate around a `ddx try` (gate-check.ts): made ready before, its record read after, and how a stopped try stops. */
  gate: {
    prepare(bead: Bead, say: (line: Say) => void): Promise<void>;
    after(beadId: string, result: BuildResult, say: (line: Say) => void): GateRecord | undefined;
    stopTry(beadId: string): Promise<'SIGTERM' | 'SIGKILL'>;
  };
  /** While a `ddx try` of the bead runs: its phase and tokens as DDx's sessions end (try-watch.ts). */
  watchPhases(beadId: string, since: Date, changed: (phase: Phase, tokens: number) => void): { stop(): void };
  setup: DispatchSetup & {
    memory?: MemoryPort;
    outputMode: OutputMode;
    /** Prints an agent's answer on stdout (normal and --quiet). */
    answer(text: string): void;
  };
}

/** Which command asked for the attempt: the loop prints the cycle line, and the delegation line differs. */
export type AttemptCommand = 'run' | 'build';

/** One attempt: its ports, the bead the machine selected and where in the run it is. */
export interface AttemptOptions {
  ports: AttemptPorts;
  /** The bead selected (re-read before it is claimed). */
  selected: Bead;
  cycle: number;
  /** The ready queue the selection was made from: a direct build's batch comes from it. */
  ready: Bead[];
  /** How many beads were ready (the cycle line). */
  readyCount: number;
  command: AttemptCommand;
}

/**
 * One attempt, and the event log's `attempt_end` for it (docs/events.md): how it ended, or that a
 * signal cut it short — one for each `claim`, so a board or a report never shows an attempt that
 * never ends.
 */
export async function attempt(options: AttemptOptions): Promise<Event> {
  const { ports, selected } = options;
  const started = ports.now();
  const trace: AttemptTrace = {};
  const facts = () => ({ bead: trace.bead ?? selected.id, attempt: trace.attempt ?? 1, seconds: (ports.now().getTime() - started.getTime()) / 1000, ...(trace.log ? { log: trace.log } : {}) });
  try {
    const done = await attemptSteps(options, trace);
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

/** An attempt claimed and ready to build: the claim, its batch, the memories and prompt, and what it started from. */
interface Prepared {
  claim: ClaimedPrimary;
  bead: Bead;
  members: ClaimedBead[];
  injected: string[];
  prompt: string;
  /** On `ddx try`: helix's block for the bead's notes (DDx writes the prompt from the bead). */
  notes: string | undefined;
  baseRev: string | undefined;
  closedBefore: number;
  started: Date;
  /** run-state's record of the attempt in flight. */
  inFlight: Record<string, unknown>;
  lastBuildBefore: unknown;
}

/** What was spent on the build: tokens, and the cost when it was reported. */
type Spent = { tokens: number; costUsd: number | undefined };

async function attemptSteps(options: AttemptOptions, trace: AttemptTrace): Promise<Event> {
  const { ports } = options;
  const prepared = await prepare(options, trace);
  if ('type' in prepared) return prepared;
  const { bead, injected, started } = prepared;
  // Claims stay live (heartbeats) until the attempt is settled: verification runs with the bead
  // in progress, and a DDx worker takes a claim whose heartbeat is 90 s old.
  const stopHeartbeats = ports.heartbeats();
  let built: Built;
  try {
    const call = await build(options, prepared, trace);
    const settled = await settleBuild(options, prepared, call);
    if ('type' in settled) return settled;
    built = settled;
  } finally {
    stopHeartbeats();
  }
  const { outcome, batch, spent, answer } = built;
  await feedBack(ports, bead, injected, outcome, answer);
  const ended = ports.now();
  const durationSec = (ended.getTime() - started.getTime()) / 1000;
  ports.persist({ current_issue: null, cycle_start: started.toISOString(), cycle_end: ended.toISOString(), cycle_duration: Math.round(durationSec), last_build_attempt: started.toISOString() });
  const { tokens, costUsd } = spent;
  return { type: 'attempted', bead, outcome, durationSec, tokens, ...(costUsd !== undefined ? { costUsd } : {}), ...(prepared.members.length > 0 ? { batch } : {}) };
}

/** Claims the bead (and its batch), records the attempt in flight, injects memories and writes the prompt; on `ddx try` the gate is made ready. */
async function prepare({ ports, selected, cycle, ready, readyCount, command }: AttemptOptions, trace: AttemptTrace): Promise<Prepared | Event> {
  const started = ports.now();
  const claim = ports.claims.claimSelected(selected);
  if ('passedOver' in claim) return { type: 'attempted', bead: selected, outcome: { kind: 'passed-over', reason: claim.passedOver }, durationSec: 0, tokens: 0 };
  const { bead, queue } = claim;
  Object.assign(trace, { bead: bead.id, attempt: ports.failures(bead.id) + 1 });
  if (command === 'run') ports.event({ type: 'claim', bead: bead.id, attempt: trace.attempt!, title: bead.title });
  // a build attempt from now on: the next drained run aligns again (core/alignment-due.ts); undone if the call does not get through
  const lastBuildBefore = ports.lastBuildAttempt() ?? null;
  const inFlight = { current_issue: bead.id, stop_reason: null, cycle_start: started.toISOString(), cycle_end: null, cycle_duration: null, last_build_attempt: started.toISOString() };
  ports.persist(inFlight);
  const members = ports.setup.buildPath === 'direct' ? ports.claims.claimBatch(bead, ready) : [];
  if (command === 'run') sayCycle(ports, readyCount, cycle, [bead.id, ...members.map((m) => m.bead.id)]);
  const memory = await injectMemories(ports, bead, cycle);
  const prompt = implementationPrompt({
    ...ports.promptPlace(),
    bead,
    context: ports.context(queue),
    related: members.map((m) => m.bead),
    memory,
    ownership: ownershipOf(ports.setup.buildPath),
  });
  const baseRev = await ports.git.head();
  const closedBefore = closedCount(queue);
  // `ddx try` takes no prompt: what helix would prompt reaches DDx's prompt through the notes.
  const notes =
    ports.setup.buildPath === 'try' ? renderNotesBlock({ action: `Follow the HELIX implementation action at ${actionFile('implementation', ports.setup.env)}.`, context: ports.context(queue), memory }) : undefined;
  // ── call site 1 of the gate (issue 32, verified before it lands; shell/gate-check.ts) ──
  // current DDx runs helix's verification as a pre-merge check: in place before each `ddx try`
  if (ports.setup.buildPath === 'try') await ports.gate.prepare(bead, (line) => ports.say(line));
  return { claim, bead, members, injected: memory?.names ?? [], prompt, notes, baseRev, closedBefore, started, inFlight, lastBuildBefore };
}

/** The build's call and what it ended on: a usage or rate limit, or a failure that is not the bead's. */
interface BuildCall {
  call: AgentCall;
  limit: UsageLimit | undefined;
  problem: AgentProblem | undefined;
}

/** Dispatches the build and waits for it; on `ddx try` the phases follow DDx's sessions and helix's block is in the notes meanwhile. */
async function build({ ports, command }: AttemptOptions, { bead, prompt, notes, injected }: Prepared, trace: AttemptTrace): Promise<BuildCall> {
  if (notes) startTryAttempt(ports, bead.id, notes);
  try {
    const build = buildCall(ports, bead, prompt, command);
    const onTry = ports.setup.buildPath === 'try';
    ports.event({ type: 'dispatch', bead: bead.id, action: 'build', agent: build.call.label, model: build.call.model ?? null, effort: ports.setup.plan.primary.effort ?? null });
    // on `ddx try` DDx's intake comes first; its sessions move the phase on as each ends (try-watch.ts)
    ports.event({ type: 'phase', bead: bead.id, attempt: trace.attempt!, phase: onTry ? 'intake' : 'build' });
    const watch = onTry ? ports.watchPhases(bead.id, ports.now(), (phase, tokens) => ports.event({ type: 'phase', bead: bead.id, attempt: trace.attempt!, phase, tokens })) : undefined;
    // stopped (a signal, the timeout), `ddx try` hears it only after its gate answered: DDx, cancelled, lands what no check passed
    const stop: CallStop = onTry ? { stopWith: () => ports.gate.stopTry(bead.id) } : {};
    let call: AgentCall;
    try {
      call = await ports.call(build.invocation, build.call, stop);
    } finally {
      watch?.stop();
    }
    if (call.log) trace.log = call.log;
    const limit = limitOfCall(build.invocation, call, ports.now());
    return { call, limit, problem: limit ? undefined : problemOfCall(build.invocation, call) };
  } catch (error) {
    // Interrupted (or broken) before any verdict: the names say nothing about the memories, and
    // left on a released bead they would be fed back by some later recovery. Drop them.
    if (injected.length > 0) clearInjected(ports, bead.id);
    throw error;
  } finally {
    if (notes) endTryAttempt(ports, bead.id);
  }
}

/** A build settled: its outcome, its batch's, what it spent and what the agent answered. */
interface Built {
  outcome: SettledOutcome;
  batch: MemberVerdict[];
  spent: Spent;
  answer: string;
}

/**
 * After the build: what it printed and spent, what the gate said of it, and then either no attempt
 * of the bead (a limit, a failure that is not its) or its settlement — the primary's, then each
 * batch member's.
 */
async function settleBuild({ ports, selected }: AttemptOptions, prepared: Prepared, { call, limit: callLimit, problem }: BuildCall): Promise<Built | Event> {
  const { bead, members, notes, claim } = prepared;
  // current DDx writes its own summary over .ddx/run-state.json during `ddx try` (measured,
  // docs/ddx.md): the attempt's record goes back in before verification, for a crash to find
  if (ports.setup.buildPath === 'try') ports.persist(prepared.inFlight);
  // through DDx the agent's final answer is in DDx's record of the build, not on stdout
  const answer = (call.ddx && buildSessionOf(call.ddx)?.output) || call.answer;
  const read = readBuildResult(ports, bead.id, call);
  const valid = read.result && !('invalid' in read.result) ? read.result : undefined;
  // ── call site 2 of the gate (issue 32): what it said about this result, for the judge ──
  const gate = ports.setup.buildPath === 'try' ? ports.gate.after(bead.id, read.result, (line) => ports.say(line)) : undefined;
  const spent: Spent = { tokens: read.tokens, costUsd: read.costUsd };
  ports.event({ type: 'agent_done', bead: bead.id, action: 'build', agent: call.startFailure ? 'none' : ports.setup.plan.primary.agent, rc: call.exitCode, seconds: Math.round(call.durationMs / 1000), tokens: read.tokens, cost_usd: read.costUsd ?? null });
  const limit = callLimit ?? (valid ? ddxUsageLimit(valid as unknown as Record<string, unknown>) : undefined);
  // Not the bead's failure: nothing is counted against it, and DDx's park of it is undone.
  if (limit || problem) {
    if (notes) clearTryRun(ports, bead.id);
    undoDdxPark(ports, bead.id, selected, limit ? `${limit.agent} ${limit.kind} limit, not the bead's failure` : `${problem!.what}, not the bead's failure`);
    return notTheBeads(ports, prepared, limit ? { limit } : { problem: problem! }, spent);
  }
  // A land conflict with work that landed meanwhile (several builds at once): DDx kept the attempt
  // and parked the bead; the bead goes again once the others have landed, not in DDx's 15 minutes.
  if (valid?.status.startsWith('land_conflict')) undoDdxPark(ports, bead.id, selected, 'a land conflict with work that landed meanwhile');
  // One verify run per command per attempt: the tree does not change between the members' checks.
  const verify = verifierOf(ports, bead.id);
  let outcome = await settle(ports, claim, call, read.result, verify, valid?.base_rev ?? prepared.baseRev, gate);
  if (outcome.kind === 'completed' && outcome.salvaged && call.exitCode !== 0) {
    outcome = { ...outcome, salvage: { rc: call.exitCode, closedBefore: prepared.closedBefore, closedAfter: closedCount(ports.snapshot().beads) } };
  }
  if (outcome.kind === 'completed') ports.event({ type: 'close', bead: bead.id, how: outcome.salvaged ? 'salvaged' : 'closed' });
  const batch: MemberVerdict[] = [];
  for (const member of members) {
    const verdict = await settleBatchMember(ports, member, verify);
    if (verdict.kind === 'completed') ports.event({ type: 'close', bead: member.bead.id, how: 'closed' });
    batch.push({ bead: member.bead, outcome: verdict });
  }
  // settled: nothing of this `ddx try` is left for the next run to finish (recovery.ts)
  if (notes) clearTryRun(ports, bead.id);
  return { outcome, batch, spent, answer };
}

/**
 * A build that hit a limit, or failed on setup or infrastructure, is not an attempt of the bead:
 * its claims are released, the memories it was given are neither credited nor blamed, and the
 * machine decides the wait (or the stop).
 */
function notTheBeads(ports: AttemptPorts, prepared: Prepared, cause: { limit: UsageLimit } | { problem: AgentProblem }, spent: Spent): Event {
  const { bead, members, injected, started } = prepared;
  for (const id of [bead.id, ...members.map((m) => m.bead.id)]) ports.claims.release(id);
  if (injected.length > 0) clearInjected(ports, bead.id);
  const ended = ports.now();
  const cycle = { current_issue: null, cycle_start: started.toISOString(), cycle_end: ended.toISOString(), cycle_duration: Math.round((ended.getTime() - started.getTime()) / 1000) };
  // nothing was built: an alignment since the attempt before still stands
  ports.persist({ ...cycle, last_build_attempt: prepared.lastBuildBefore });
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
function buildCall(ports: AttemptPorts, bead: Bead, prompt: string, invokedBy: AttemptCommand): { invocation: AgentInvocation; call: CallInfo } {
  const { setup } = ports;
  const choice = agentForAction(setup.plan, 'build');
  if (setup.buildPath === 'execute-bead') {
    ports.writePrompt(promptFileFor(setup.root, bead.id), prompt);
  }
  const invocation = buildInvocation(setup, bead.id, prompt);
  if (invocation.file === 'ddx') {
    const words = ddxCommandWords(invocation, bead.id);
    ports.say(invokedBy === 'build' ? BUILD.delegating(words, bead.id) : RUN.delegatingLoop(words));
  } else if (choice.agent !== setup.plan.primary.agent) {
    ports.say(rotation('build', choice.agent));
  }
  // Named by the agent doing the work (the harness under ddx), as the Bash CLI's lines were.
  const call: CallInfo = { label: choice.agent, requested: choice.agent, model: choice.model, prompt, purpose: 'build', beadId: bead.id };
  if (setup.buildPath === 'try') call.timeoutSec = agentTimeoutSeconds(setup.env) + TRY_GRACE_SECONDS;
  return { invocation, call };
}

/** What the build printed: its answer, DDx's result (counted on `ddx try`), and what it spent. */
function readBuildResult(ports: AttemptPorts, id: string, call: AgentCall): { result: BuildResult; tokens: number; costUsd: number | undefined } {
  const { setup } = ports;
  if (setup.buildPath === 'try') {
    // DDx's own claim-and-close is counted by outcome (docs/contract/bash-interface.md §12.3, its execute-loop).
    if (call.exitCode === 0) ports.countDelegation('ddx_delegation_success_count');
    else ports.countDelegation('ddx_delegation_failure_count', call.timedOut || call.exitCode === CHILD_EXIT.timedOut ? 'timeout' : 'other');
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

const closedCount = (beads: Bead[]): number => beads.filter((b) => b.status === 'closed').length;

