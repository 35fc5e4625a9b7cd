// The imperative shell of `helix run`: performs the effects the state machine asks for — tracker
// reads and writes, agent calls, verification, sleeps, output, run-state — and feeds each result
// back as the next event. Policy lives in machine.ts; mechanics of one attempt live here.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { dirname, join, relative } from 'node:path';
import {
  type AgentCommand,
  type AgentRunResult,
  type ExecuteBeadResult,
  type InvalidExecuteBeadResult,
  AgentStartError,
  type AgentPlan,
  type DdxInstall,
  agentForAction,
  parseExecuteBeadResult,
  parseNextAction,
  parseTryResult,
  judgeDdxResult,
  TRY_GRACE_SECONDS,
  agentTimeoutSeconds,
  ddxAttemptSpend,
} from '../../agents/index.js';
import { CHILD_EXIT, isHelixError } from '../../errors.js';
import {
  type Bead,
  type Fingerprint,
  BeadStore,
  HEARTBEAT_INTERVAL_MS,
  claimBead,
  claimedPidOf,
  isHelixClaim,
  isPidAlive,
  thisMachine,
  timeOf,
  closeBead,
  fingerprintOf,
  heartbeatBead,
  readyBeads,
  readyEpics,
  reopenBead,
  staleClaims,
  unclaimBead,
  orphanThresholdSec,
  problemsWarning,
  INJECTED_KEY,
  hasUnsettledInjections,
  releaseOrphan,
  takeUnsettledInjections,
  appendNote,
  type Snapshot,
  archivedIds,
  beadsLostError,
  vanishedIds,
} from '../../tracker/index.js';
import { answerAction } from './one-shot.js';
import { CallTotals, answerOf, runAgentCall } from './agent-call.js';
import { type CallInfo, ddxCommandWords } from '../core/dispatch.js';
import { markBeadBlocked, writeBlockerReport } from './blockers.js';
import { renderContext, writeContext } from './context.js';
import { hasNotesBlock, renderNotesBlock, withNotesBlock, withoutNotesBlock } from '../text/ddx-notes.js';
import { type BuildPath, actionCommand, buildCommand, ownershipOf, promptFileFor, rotationLine } from '../core/dispatch.js';
import { acquireGoverningBead } from './governing.js';
import { type Settled, type TrackerOp, type Verification, assessDispatch, assessMember, settleAttempt, settleFailedClose, settleMember } from '../core/judge.js';
import { BUILD, ORPHANS, RUN, type Say, generatedContext, rotation, stamp } from '../text/lines.js';
import {
  type ActionPurpose,
  type AttemptOutcome,
  type ChangeFacts,
  type DrainAction,
  type Effect,
  type Event,
  type MachineState,
  type MemberOutcome,
  type MemberVerdict,
  type ReviewKind,
  type ReviewOutcome,
  UNMEASURED,
  assertOneNextEvent,
  initialState,
  step,
} from '../core/machine.js';
import { type RunOutput, clockTime } from './output.js';
import type { SupervisorSettings } from '../core/policy.js';
import { type ActionName, type PromptPlace, actionFile, actionPrompt, implementationPrompt, promptPlaceOf } from '../text/prompts.js';
import { type UnfinishedAttempt, countInRunState, readRunState, unfinishedAttempt, writeRunState } from './run-state.js';
import { batchFor, tasksToPromote } from '../core/selection.js';

export type { BuildPath } from '../core/dispatch.js';

/** Optional memory hooks (the learning loop); every call may fail without breaking the run. */
export interface MemoryPort {
  inject(bead: Bead): Promise<{ block: string; names: string[] }>;
  /** `output` is the agent's final answer (UTILIZED / LEARNED lines are read from it). */
  /**
   * `refuted`: the agent reported success and verification failed, so its LEARNED line is the
   * approach that was refused, not a resolution.
   */
  feedback(input: { bead: Bead; injected: string[]; verified: boolean; output: string; failureDetail?: string; refuted?: boolean }): Promise<void>;
  /** Systemic memories, for the blocker report. */
  systemic?(): Promise<string[]>;
  close?(): void;
}

export { INJECTED_KEY } from '../../tracker/index.js';

export interface SupervisorEnvironment {
  root: string;
  store: BeadStore;
  env: NodeJS.ProcessEnv;
  settings: SupervisorSettings;
  plan: AgentPlan;
  /** The DDx found on PATH (once per run); decides the `run` command's form. */
  ddx?: DdxInstall;
  buildPath: BuildPath;
  /** Non-build actions go through `ddx agent run` / `ddx run` (else direct codex/claude). */
  actionsViaDdx: boolean;
  /** `ddx` is on PATH: prompts name `ddx bead` commands (else `helix tracker`). */
  ddxPresent?: boolean;
  output: RunOutput;
  now?: () => Date;
  memory?: MemoryPort;
  signal?: AbortSignal;
}

export interface RunSummary {
  exitCode: number;
  state: MachineState;
}

/** A related ready bead claimed beside the primary for one direct prompt (batching). */
interface BatchMember {
  bead: Bead;
  /** Fingerprint at the re-read under the claim's lock. */
  before: Fingerprint;
  verifyCommand: string | undefined;
}

/** A bead claimed for an attempt: as re-read before the claim, with its fingerprint and verify command. */
interface ClaimedBead {
  bead: Bead;
  before: Fingerprint;
  verifyCommand: string | undefined;
  /** The queue read with it (for the prompt's context and the salvage count). */
  queue: Bead[];
}

/** An agent call's result; `startFailure` says why the program could not be started at all. */
type AgentCall = AgentRunResult & { startFailure?: string };

/** The verify command for a bead, read before dispatch: text the agent writes is never run. */
function verifyCommandOf(bead: Bead, env: NodeJS.ProcessEnv): string | undefined {
  return typeof bead.verify === 'string' && bead.verify.trim() ? bead.verify : env.HELIX_VERIFY_CMD || undefined;
}

export class Supervisor {
  private readonly ctx: SupervisorEnvironment;
  private readonly now: () => Date;
  private state: MachineState = initialState();
  /** This run's live claims (bead id → claim token): the primary and its batch, released on every exit path. */
  private readonly held = new Map<string, string>();
  private warnedProblems = false;
  /** Systemic memories known at the end of the run, for the blocker report. */
  private systemicLines: string[] = [];
  /** The attempt an earlier run died in the middle of, settled by the first orphan recovery. */
  private unfinished: UnfinishedAttempt | undefined;
  /** Tokens of every agent call, for the `<total> total` of the completion lines. */
  private readonly totals = new CallTotals();

  constructor(ctx: SupervisorEnvironment) {
    this.ctx = ctx;
    this.now = ctx.now ?? (() => new Date());
  }

  get machineState(): MachineState {
    return this.state;
  }

  /** Drives the machine until it stops. Throws only on an interrupt or an unexpected error. */
  async run(): Promise<RunSummary> {
    let event: Event | undefined = { type: 'started' };
    // read before this run's first write replaces it
    this.unfinished = unfinishedAttempt(readRunState(this.ctx.store.dir), isPidAlive);
    this.persist({ stop_reason: null, interrupted_by: null, current_issue: null, cycle_start: null, cycle_end: null, cycle_duration: null, pid: process.pid });
    while (event) {
      const next = step(this.state, event, this.ctx.settings);
      assertOneNextEvent(event, next.effects);
      this.state = next.state;
      event = undefined;
      for (const effect of next.effects) {
        // A signal that came while helix was busy in synchronous work (waiting for the tracker
        // lock, say) is only seen once the event loop turns: let it, so no new step starts after it.
        await signalsDelivered();
        this.throwIfAborted();
        const produced = await this.perform(effect);
        if (produced) event = produced;
      }
      if (this.state.stop) break;
    }
    return { exitCode: this.state.stop?.exitCode ?? 1, state: this.state };
  }

  /**
   * Ends an attempt cut short by a signal or an error: it was attempted (docs/contract/cli.md §6.8 counts it),
   * and every claim it holds is released. Returns the released ids.
   */
  abandonAttempt(exitCode: number): string[] {
    // Claims are held only between claim and settle, so a held claim means an attempt in flight.
    this.state = step(this.state, { type: 'interrupted', attemptInFlight: this.held.size > 0, exitCode }, this.ctx.settings).state;
    return this.releaseHeldClaims();
  }

  /**
   * Releases every claim this run holds (interrupts and unexpected errors); returns the ids
   * released. A held bead that is closed was closed by the agent and its verification never
   * finished: completed means closed *and* verified, so it is reopened, saying why.
   */
  releaseHeldClaims(): string[] {
    return [...this.held.keys()].filter((id) => {
      if (this.snapshot().byId.get(id)?.status !== 'closed') return this.releaseClaim(id);
      this.held.delete(id);
      try {
        // reopened and unclaimed: not left assigned to helix either
        this.ctx.store.mutate((d) => {
          reopenBead(d, id, { reason: 'closed by the agent, but the run was interrupted before verification finished', now: this.now() });
          unclaimBead(d, id, { now: this.now() });
        });
        return true;
      } catch (error) {
        this.ctx.output.narrative(`helix: could not reopen ${id}: ${(error as Error).message}`);
        return false;
      }
    });
  }

  /** Releases one held claim with its token (a claim re-issued to another worker is left alone). */
  private releaseClaim(id: string): boolean {
    const token = this.held.get(id);
    if (token === undefined) return false;
    this.held.delete(id);
    try {
      this.ctx.store.mutate((d) => unclaimBead(d, id, { token }));
      this.ctx.output.narrative(`helix: released claim on ${id}`);
      return true;
    } catch (error) {
      this.ctx.output.narrative(`helix: could not release ${id}: ${(error as Error).message}`);
      return false;
    }
  }

  /** Collects what the end-of-run report needs from memory (async, before finish). */
  async gatherSystemic(): Promise<void> {
    if (!this.ctx.memory?.systemic || this.state.skipped.length === 0) return;
    try {
      this.systemicLines = await this.ctx.memory.systemic();
    } catch {
      this.systemicLines = [];
    }
  }

  /** The run-complete line, blocker report and final run-state: printed on every exit path (docs/contract/bash-interface.md §2.13). */
  finish(reason: string, extra: Record<string, unknown> = {}): void {
    const s = this.state;
    const { output } = this.ctx;
    output.always('');
    output.always(RUN.runComplete(s.attempted, s.completed, s.skipped.length, s.tokens, s.costUsd));
    if (s.skipped.length > 0) {
      const titles = this.snapshot().byId;
      output.always(RUN.blockersHeader(s.skipped.length));
      for (const skipped of s.skipped) {
        output.always(RUN.blockerReason(skipped.id, skipped.reason));
        output.always(RUN.blockerTitle(titles.get(skipped.id)?.title ?? skipped.title));
        this.markBlocked(skipped.id, skipped.reason);
      }
      for (const line of this.systemicLines) output.always(`helix:   systemic: ${line}`);
      try {
        const file = writeBlockerReport({ root: this.ctx.root, skipped: s.skipped, attempted: s.attempted, completed: s.completed, log: output.logName, now: this.now(), systemic: this.systemicLines });
        output.always(RUN.blockerReportWritten(file));
      } catch (error) {
        output.always(`helix: could not write the blocker report: ${(error as Error).message}`);
      }
    }
    this.persist({ stop_reason: reason, current_issue: null, ...extra });
  }

  /** `helix build`: one attempt on one bead, no queue drain, no review (the Bash `build` had none). */
  async buildOnce(bead: Bead, ready: Bead[]): Promise<AttemptOutcome> {
    this.persist({ stop_reason: null });
    const event = await this.attempt(bead, 1, ready, ready.length, 'build');
    if (event.type !== 'attempted') return { kind: 'passed-over', reason: 'not attempted' };
    this.state = step(this.state, event, { ...this.ctx.settings, maxCycles: 1, reviewEvery: 0, autoReview: false }).state;
    return event.outcome;
  }

  private throwIfAborted(): void {
    if (this.ctx.signal?.aborted) throw new RunInterrupted();
  }

  private persist(extra: Record<string, unknown> = {}): void {
    const s = this.state;
    try {
      writeRunState(this.ctx.store.dir, {
        focused_epic: s.focusedEpic ?? null,
        completed_cycles: s.completed,
        attempted_cycles: s.attempted,
        skipped_count: s.skipped.length,
        total_tokens: s.tokens,
        // null, not absent: the file is merged, and a previous run's cost must not survive.
        total_cost_usd: s.costUsd !== undefined ? Number(s.costUsd.toFixed(6)) : null,
        last_run: this.now().toISOString(),
        agent: this.ctx.plan.primary.agent,
        log: this.ctx.output.logName,
        run_pid: process.pid,
        ...extra,
      });
    } catch (error) {
      this.ctx.output.narrative(`helix: could not write run-state: ${(error as Error).message}`);
    }
  }

  /** Prints a line of lines.ts at its level; stamped lines get the wall-clock time. */
  private say(line: Say): void {
    this.ctx.output.line(line.level, line.stamped ? stamp(clockTime(this.now()), line.text) : line.text);
  }

  private async perform(effect: Effect): Promise<Event | undefined> {
    switch (effect.type) {
      case 'say':
        this.say(effect);
        return undefined;
      case 'writeContext':
        this.refreshContext();
        return undefined;
      case 'recoverOrphans':
        return this.recoverOrphans(effect.why);
      case 'readQueue':
        return this.readQueue();
      case 'attempt':
        return this.attempt(effect.bead, effect.cycle, effect.ready, effect.readyCount, 'run');
      case 'closeEpic':
        return this.closeEpic(effect.epicId);
      case 'markBlocked':
        this.markBlocked(effect.id, effect.reason);
        return undefined;
      case 'sleep':
        if (effect.seconds > 0) await sleep(effect.seconds * 1000, undefined, { signal: this.ctx.signal }).catch(() => undefined);
        return undefined;
      case 'runCheck':
        return this.runCheck();
      case 'runReview':
        return this.runReview(effect.kind, effect.scope, effect.cycle, effect.beadId);
      case 'runAction':
        return this.runAction(effect.action, effect.purpose);
      case 'stop':
        if (effect.message) this.ctx.output.always(effect.message);
        return undefined;
    }
  }

  // ── queue ────────────────────────────────────────────────────────────────────────────────────

  private snapshot() {
    const snapshot = this.ctx.store.read();
    if (snapshot.problems.length > 0 && !this.warnedProblems) {
      this.warnedProblems = true;
      this.ctx.output.always(problemsWarning(this.ctx.store.file, snapshot.problems));
    }
    return snapshot;
  }

  /** Execution-ready beads, leaving out those a live DDx worker lease holds (DDx leaves them `open`). */
  private ready(beads: Bead[]): Bead[] {
    const now = this.now();
    return readyBeads(beads, { execution: true, now, held: this.ctx.store.leased(now) });
  }

  private readyCount(): number {
    return this.ready(this.snapshot().beads).length;
  }

  private readQueue(): Event {
    let { beads } = this.snapshot();
    if (this.promoteEpics(beads)) beads = this.snapshot().beads;
    const now = this.now();
    return { type: 'queue', ready: this.ready(beads), epics: readyEpics(beads, { now, held: this.ctx.store.leased(now) }), beads };
  }

  /** Promotes tasks that gained more than one child (docs/contract/bash-interface.md §2.7 step 4); true when the file changed. */
  private promoteEpics(beads: Bead[]): boolean {
    const candidates = tasksToPromote(beads);
    for (const task of candidates) {
      const children = beads.filter((b) => b.parent === task.id).length;
      this.say(RUN.promoting(task.id, children));
      try {
        this.ctx.store.mutate((d) => d.change(task.id, (b) => { b.issue_type = 'epic'; b.updated_at = this.now().toISOString(); }));
      } catch (error) {
        this.say(RUN.promoteFailed(task.id));
        this.ctx.output.narrative(`helix: ${(error as Error).message}`);
      }
    }
    return candidates.length > 0;
  }

  private refreshContext(): void {
    const file = writeContext(this.ctx.root, this.contextText());
    this.say(generatedContext(file));
  }

  private contextText(beads: Bead[] = this.snapshot().beads): string {
    const focused = this.state.focusedEpic ? beads.find((b) => b.id === this.state.focusedEpic) : undefined;
    return renderContext({
      root: this.ctx.root,
      trackerFile: this.ctx.store.file,
      beads,
      readyCount: this.ready(beads).length,
      focusedEpic: focused,
      trackerCli: this.promptPlace().trackerCli,
    });
  }

  /** Where prompts run: the repository, the tracker, the session log and the tracker's command. */
  private promptPlace(): PromptPlace {
    return promptPlaceOf(this.ctx, this.ctx.output.logName);
  }

  // ── orphan recovery (docs/contract/bash-interface.md §3, docs/contract/cli.md §7) ───────────────────────────────────────

  private async recoverOrphans(why: 'start' | 'failure' | 'build-breaker'): Promise<Event> {
    if (why === 'start') {
      this.reopenUnverified();
      // a run that died during `ddx try` left its notes block behind
      for (const bead of this.snapshot().beads.filter((b) => hasNotesBlock(b.notes))) this.editNotes(bead.id, withoutNotesBlock);
    }
    const readyBefore = this.readyCount();
    const recovered = recoverOrphanedClaims(this.ctx.store, this.now(), orphanThresholdSec(this.ctx.env), (line) => this.say(line));
    // A crashed attempt's injected memories did not help a verified task: feed that back once.
    if (this.ctx.memory) {
      for (const orphan of recovered.filter((o) => o.injected.length > 0)) {
        try {
          await this.ctx.memory.feedback({ bead: orphan.bead, injected: orphan.injected, verified: false, output: '' });
          this.ctx.output.narrative(`helix: fed back ${orphan.injected.length} memories of the interrupted attempt on ${orphan.bead.id}`);
        } catch (error) {
          this.ctx.output.narrative(`helix: memory feedback skipped: ${(error as Error).message}`);
        }
      }
    }
    const readyAfter = recovered.length > 0 ? this.readyCount() : readyBefore;
    return { type: 'orphansRecovered', why, readyBefore, readyAfter };
  }

  /**
   * A bead closed during an attempt whose run died before verifying it (SIGKILL in the middle of
   * verification) was never completed: completed means closed *and* verified. Reopened, saying so.
   * Its claim, if it still has one, is the orphan recovery's.
   */
  private reopenUnverified(): void {
    const unfinished = this.unfinished;
    this.unfinished = undefined;
    if (!unfinished) return;
    const bead = this.snapshot().byId.get(unfinished.id);
    const closedAt = bead ? (timeOf(bead.closed_at) ?? timeOf(bead.updated_at)) : undefined;
    if (bead?.status !== 'closed' || closedAt === undefined || closedAt < unfinished.since) return;
    this.reopen(unfinished.id, `closed during an attempt that was never verified: its run (pid ${unfinished.pid}) ended first`);
    this.ctx.output.always(`helix: reopened ${unfinished.id}: closed during an attempt of run pid ${unfinished.pid}, which ended before verifying it`);
  }

  // ── one attempt ─────────────────────────────────────────────────────────────────────────────

  /**
   * One attempt, step by step: re-read and claim the bead (and its batch), inject memories,
   * dispatch, judge the dispatch, verify and settle — settleAttempt (judge.ts) decides what the
   * tracker is told, this class writes it — then feed the verdict back to memory.
   */
  private async attempt(selected: Bead, cycle: number, ready: Bead[], readyCount: number, command: 'run' | 'build'): Promise<Event> {
    const started = this.now();
    const claim = this.claimSelected(selected);
    if ('passedOver' in claim) return { type: 'attempted', bead: selected, outcome: { kind: 'passed-over', reason: claim.passedOver }, durationSec: 0, tokens: 0 };
    const { bead, queue } = claim;
    this.persist({ current_issue: bead.id, cycle_start: started.toISOString(), cycle_end: null, cycle_duration: null });
    const members = this.ctx.buildPath === 'direct' ? this.claimBatch(bead, ready) : [];
    if (command === 'run') this.sayCycle(readyCount, cycle, [bead.id, ...members.map((m) => m.bead.id)]);
    const memory = await this.injectMemories(bead, cycle);
    const injected = memory?.names ?? [];
    const prompt = implementationPrompt({
      ...this.promptPlace(),
      bead,
      context: this.contextText(queue),
      related: members.map((m) => m.bead),
      memory,
      ownership: ownershipOf(this.ctx.buildPath),
    });
    const baseRev = gitHead(this.ctx.root);
    const closedBefore = closedCount(queue);
    // `ddx try` takes no prompt: what helix would prompt reaches DDx's prompt through the notes.
    const notes = this.ctx.buildPath === 'try' ? renderNotesBlock({ action: `Follow the HELIX implementation action at ${actionFile('implementation', this.ctx.env)}.`, context: this.contextText(queue), memory }) : undefined;
    // Claims stay live (heartbeats) until the attempt is settled: verification runs with the bead
    // in progress, and a DDx worker takes a claim whose heartbeat is 90 s old.
    const stopHeartbeats = this.startHeartbeats();
    let outcome: AttemptOutcome;
    let run: AgentCall;
    let spent: { tokens: number; costUsd: number | undefined };
    const batch: MemberVerdict[] = [];
    try {
      run = await this.dispatchClaimed(bead, prompt, command, injected, notes);
      const read = this.readBuildResult(bead.id, run);
      spent = read;
      // One verify run per command per attempt: the tree does not change between the members' checks.
      const verify = onceEach((verifyCommand: string) => this.verify(verifyCommand));
      outcome = await this.settle({ claim, run, result: read.result, verify, baseRev: (read.result && !('invalid' in read.result) ? read.result.base_rev : undefined) ?? baseRev });
      if (outcome.kind === 'completed' && outcome.salvaged && run.exitCode !== 0) {
        outcome = { ...outcome, salvage: { rc: run.exitCode, closedBefore, closedAfter: closedCount(this.snapshot().beads) } };
      }
      for (const member of members) batch.push({ bead: member.bead, outcome: await this.settleBatchMember(member, verify) });
    } finally {
      stopHeartbeats();
    }
    const { tokens, costUsd } = spent;
    await this.feedBack(bead, injected, outcome, run.answer);

    const durationSec = this.persistCycleEnd(started);
    return { type: 'attempted', bead, outcome, durationSec, tokens, ...(costUsd !== undefined ? { costUsd } : {}), ...(members.length > 0 ? { batch } : {}) };
  }

  /**
   * Re-reads the selected bead just before claiming it (another session may have refined or taken
   * it) and claims it — except on `ddx try`, where DDx takes the claim itself (a claim of ours
   * would make it refuse the bead). The verify command is taken now: text the agent writes during
   * the attempt is never run.
   */
  private claimSelected(selected: Bead): ClaimedBead | { passedOver: string } {
    const current = this.snapshot();
    const bead = current.byId.get(selected.id);
    if (!bead || !this.ready(current.beads).some((b) => b.id === selected.id)) return { passedOver: 'no longer open and ready' };
    const before = fingerprintOf(bead, this.now());
    if (this.ctx.buildPath !== 'try') {
      try {
        const claimed = this.ctx.store.mutate((d) => claimBead(d, bead.id, { pid: process.pid, now: this.now(), leaseDir: this.ctx.store.leaseDir }));
        this.held.set(bead.id, String(claimed['claim-token']));
      } catch (error) {
        if (isHelixError(error) && error.kind === 'conflict') return { passedOver: error.message };
        throw error;
      }
    }
    return { bead, before, verifyCommand: verifyCommandOf(bead, this.ctx.env), queue: current.beads };
  }

  /** The cycle line (docs/contract/bash-interface.md §2.4): long form in normal and --quiet, the short one with --summary. */
  private sayCycle(readyCount: number, cycle: number, ids: [string, ...string[]]): void {
    if (ids.length > 1) {
      this.say(RUN.cycleBatch(readyCount, cycle, ids));
      this.say(RUN.cycleBatchSummary(readyCount, cycle, ids));
    } else {
      this.say(RUN.cycle(readyCount, cycle, ids[0]));
      this.say(RUN.cycleSummary(readyCount, cycle, ids[0]));
    }
  }

  /** The memories for the prompt (on `ddx try`: the notes block), their names kept on a claimed bead so a crash does not lose them. */
  private async injectMemories(bead: Bead, cycle: number): Promise<{ block: string; names: string[] } | undefined> {
    if (!this.ctx.memory) return undefined;
    try {
      const memoryBlock = await this.ctx.memory.inject(bead);
      const injected = memoryBlock.names;
      this.say(RUN.injectedMemories(cycle, injected.length, this.ctx.output.mode === 'summary'));
      if (injected.length > 0 && this.held.has(bead.id)) {
        this.ctx.store.mutate((d) => d.change(bead.id, (b) => { b[INJECTED_KEY] = injected; }));
      }
      return memoryBlock;
    } catch (error) {
      this.ctx.output.narrative(`helix: memory injection skipped: ${(error as Error).message}`);
      return undefined;
    }
  }

  /** The build's agent call; on `ddx try` with helix's block in the bead's notes while it runs. */
  private async dispatchClaimed(bead: Bead, prompt: string, command: 'run' | 'build', injected: string[], notes: string | undefined): Promise<AgentCall> {
    if (notes) this.editNotes(bead.id, (text) => withNotesBlock(text, notes));
    try {
      return await this.dispatchBuild(bead, prompt, command);
    } catch (error) {
      // Interrupted (or broken) before any verdict: the names say nothing about the memories, and
      // left on a released bead they would be fed back by some later recovery. Drop them.
      if (injected.length > 0) this.forgetInjected(bead.id);
      throw error;
    } finally {
      if (notes) this.editNotes(bead.id, withoutNotesBlock);
    }
  }

  /** Rewrites a bead's notes under the lock (helix's block in or out); a failure is said, never fatal. */
  private editNotes(id: string, edit: (notes: string) => string): void {
    try {
      this.ctx.store.mutate((d) => {
        const current = d.get(id);
        if (!current) return;
        const before = typeof current.notes === 'string' ? current.notes : '';
        const after = edit(before);
        if (after !== before) d.change(id, (b) => { b.notes = after; });
      });
    } catch (error) {
      this.ctx.output.narrative(`helix: could not update the notes of ${id}: ${(error as Error).message}`);
    }
  }

  /** What the build printed: its answer, DDx's result (counted on `ddx try`), and what it spent. */
  private readBuildResult(id: string, run: AgentCall): { result: ExecuteBeadResult | InvalidExecuteBeadResult | undefined; tokens: number; costUsd: number | undefined } {
    if (this.ctx.buildPath === 'try') {
      // DDx's own claim-and-close is counted by outcome (docs/contract/bash-interface.md §12.3, its execute-loop).
      if (run.exitCode === 0) countInRunState(this.ctx.store.dir, 'ddx_delegation_success_count');
      else countInRunState(this.ctx.store.dir, 'ddx_delegation_failure_count', run.timedOut || run.exitCode === CHILD_EXIT.timedOut ? 'timeout' : 'other');
    }
    // The build's output: stdout in normal and --quiet; with --summary only the log has it (§2.5).
    if (this.ctx.output.mode !== 'summary') this.ctx.output.answer(answerOf(run));
    const result = this.ctx.buildPath === 'execute-bead' ? parseExecuteBeadResult(run.stdout, id) : this.ctx.buildPath === 'try' ? parseTryResult(run.stdout, id) : undefined;
    const validResult = result && !('invalid' in result) ? result : undefined;
    if (result && 'invalid' in result) this.ctx.output.always(`helix: invalid execute-bead result for ${id}: ${result.reason}`);
    return { result, tokens: validResult?.tokens ?? run.tokens, costUsd: validResult?.cost_usd ?? run.usage?.costUsd };
  }

  /** Who closes a landed bead on this build path. */
  private closer(): 'helix' | 'ddx' {
    return this.ctx.buildPath === 'try' ? 'ddx' : 'helix';
  }

  /**
   * Settles the attempt after the agent returned: judges the dispatch from a fresh read, runs
   * verification when the judgement asks for it, and performs the tracker writes settleAttempt
   * decides. A completed attempt gets its change measured for the review gate.
   */
  private async settle(attempt: { claim: ClaimedBead; run: AgentCall; result: ExecuteBeadResult | InvalidExecuteBeadResult | undefined; verify: (command: string) => Promise<Verification>; baseRev: string | undefined }): Promise<AttemptOutcome> {
    const { claim, run, result } = attempt;
    const id = claim.bead.id;
    const after = this.snapshot().byId.get(id);
    const assessment = assessDispatch({
      before: claim.before,
      after,
      afterFingerprint: after ? fingerprintOf(after, this.now()) : undefined,
      exitCode: run.exitCode,
      timedOut: run.timedOut,
      result,
      closer: this.closer(),
      startFailure: run.startFailure,
      now: this.now(),
    });
    if (assessment.kind === 'failed' && assessment.unknown) this.ctx.output.always(`helix: ${id}: ${assessment.detail}`);
    const verification = assessment.kind === 'verify' && claim.verifyCommand ? await attempt.verify(claim.verifyCommand) : undefined;
    const valid = result && !('invalid' in result) ? result : undefined;
    const landed = valid ? { commit: valid.result_rev, session: valid.session_id } : undefined;
    const reported = valid ? (judgeDdxResult(valid).kind === 'landed' ? 'landed' : 'not-landed') : undefined;
    const outcome = this.performSettlement(settleAttempt({ id, after, assessment, verification, closer: this.closer(), landed, result: reported }));
    if (outcome.kind !== 'completed') return outcome;
    // `ddx try` reviews before it lands: that is the build's one review, helix does not add a second
    return { ...outcome, change: this.changeFacts(id, attempt.baseRev), ...(this.ctx.buildPath === 'try' ? { reviewedBy: 'ddx' as const } : {}) };
  }

  /** Writes what settleAttempt decided; a close the tracker refuses settles as a failed attempt. */
  private performSettlement(settled: Settled): Settled['outcome'] {
    if (settled.notice) this.ctx.output.always(settled.notice);
    for (const op of settled.trackerOps) {
      if (op.op !== 'close') {
        this.performTrackerOp(op);
        continue;
      }
      try {
        this.ctx.store.mutate((d) => closeBead(d, op.id, { token: this.held.get(op.id), commit: op.commit, session: op.session, now: this.now() }));
      } catch (error) {
        return this.performSettlement(settleFailedClose(op.id, (error as Error).message));
      }
    }
    return settled.outcome;
  }

  private performTrackerOp(op: Exclude<TrackerOp, { op: 'close' }>): void {
    if (op.op === 'release') {
      this.releaseClaim(op.id);
      const note = op.note;
      if (note) this.editNotes(op.id, (notes) => appendNote(notes, `ATTEMPT FAILED [${this.now().toISOString()}]: ${note}`));
    }
    else if (op.op === 'reopen') this.reopen(op.id, op.reason);
    else this.held.delete(op.id);
  }

  /** Feeds the verdict back to the memories the attempt injected; a drifted attempt is never judged. */
  private async feedBack(bead: Bead, injected: string[], outcome: AttemptOutcome, answer: string): Promise<void> {
    if (this.ctx.memory && outcome.kind !== 'drift') {
      const verified = outcome.kind === 'completed';
      try {
        // An agent whose success verification refused learned nothing the store should offer as a fix.
        const refuted = outcome.kind === 'failed' && outcome.refuted === true;
        await this.ctx.memory.feedback({ bead, injected, verified, output: answer, failureDetail: outcome.kind === 'failed' ? outcome.detail : undefined, refuted });
      } catch (error) {
        this.ctx.output.narrative(`helix: memory feedback skipped: ${(error as Error).message}`);
      }
    }
    // A drifted attempt is never judged, but its names must not outlive it either.
    if (injected.length > 0) this.forgetInjected(bead.id);
  }

  /** Records the cycle's end in run-state; returns its duration in seconds. */
  private persistCycleEnd(started: Date): number {
    const ended = this.now();
    const durationSec = (ended.getTime() - started.getTime()) / 1000;
    this.persist({ current_issue: null, cycle_start: started.toISOString(), cycle_end: ended.toISOString(), cycle_duration: Math.round(durationSec) });
    return durationSec;
  }

  /**
   * Claims the related ready beads batched with `primary` (direct prompting only) with this run's
   * pid. Each is re-read under the lock just before its claim; one no longer open and ready drops
   * out of the batch. Batching is optional: if the write fails the primary goes alone.
   */
  private claimBatch(primary: Bead, ready: Bead[]): BatchMember[] {
    const candidates = batchFor(primary, ready, new Set(this.state.skipped.map((s) => s.id))).slice(1);
    if (candidates.length === 0) return [];
    const now = this.now();
    let claimed: Array<BatchMember & { token: string }>;
    try {
      claimed = this.ctx.store.mutate((d) => {
        const readyNow = new Set(readyBeads(d.beads, { execution: true, now, held: this.ctx.store.leased(now) }).map((b) => b.id));
        const out: Array<BatchMember & { token: string }> = [];
        for (const candidate of candidates) {
          const current = d.get(candidate.id);
          if (!current || !readyNow.has(candidate.id)) continue;
          const member = { before: fingerprintOf(current, now), verifyCommand: verifyCommandOf(current, this.ctx.env) };
          const bead = claimBead(d, candidate.id, { pid: process.pid, now, leaseDir: this.ctx.store.leaseDir });
          out.push({ ...member, bead: { ...bead }, token: String(bead['claim-token']) });
        }
        return out;
      });
    } catch (error) {
      this.ctx.output.narrative(`helix: batch: could not claim related beads, ${primary.id} goes alone: ${(error as Error).message}`);
      return [];
    }
    for (const member of claimed) this.held.set(member.bead.id, member.token);
    const dropped = candidates.filter((c) => !claimed.some((m) => m.bead.id === c.id)).map((c) => c.id);
    if (claimed.length > 0) this.ctx.output.narrative(`helix: batch: claimed ${claimed.map((m) => m.bead.id).join(', ')} with ${primary.id}`);
    if (dropped.length > 0) this.ctx.output.narrative(`helix: batch: left out ${dropped.join(', ')} (no longer open and ready)`);
    return claimed.map(({ token: _token, ...member }) => member);
  }

  /**
   * Judges one batch member after the dispatch, from a fresh read, and settles it like the primary
   * (settleMember decides): drift releases it; closed by the agent → verified; otherwise released.
   */
  private async settleBatchMember(member: BatchMember, verify: (command: string) => Promise<Verification>): Promise<MemberOutcome> {
    const { id } = member.bead;
    const after = this.snapshot().byId.get(id);
    const assessment = assessMember({ before: member.before, after, afterFingerprint: after ? fingerprintOf(after, this.now()) : undefined });
    // still held while it is verified: an interrupt now reopens it (releaseHeldClaims)
    const verification = assessment.kind === 'verify' && member.verifyCommand ? await verify(member.verifyCommand) : undefined;
    const settled = settleMember({ id, after, assessment, verification, closer: this.closer() });
    for (const op of settled.trackerOps) if (op.op !== 'close') this.performTrackerOp(op);
    return settled.outcome;
  }

  /** Reopens a bead the agent closed but verification refused (notes say why). */
  private reopen(id: string, reason: string): void {
    try {
      if (this.snapshot().byId.get(id)?.status === 'closed') this.ctx.store.mutate((d) => reopenBead(d, id, { reason, now: this.now() }));
    } catch (error) {
      this.ctx.output.narrative(`helix: could not reopen ${id}: ${(error as Error).message}`);
    }
  }

  /**
   * The review scope and the size of what the attempt changed (docs/contract/bash-interface.md §2.8): scope
   * `commit:<sha>` when the bead's closing commit exists here, else `last-commit`; the size counts
   * everything since the attempt's base revision, committed or not (UNMEASURED when it cannot).
   */
  private changeFacts(id: string, baseRev: string | undefined): ChangeFacts {
    const sha = this.snapshot().byId.get(id)?.closing_commit_sha;
    const known = typeof sha === 'string' && sha !== '' ? sha : undefined;
    const present = known !== undefined && commitExists(this.ctx.root, known);
    const size = changeSize(this.ctx.root, baseRev, this.ctx.store.file);
    return {
      scope: present ? `commit:${known}` : 'last-commit',
      lines: size?.lines ?? UNMEASURED,
      files: size?.files ?? UNMEASURED,
      ...(known !== undefined && !present ? { unavailableSha: known } : {}),
    };
  }

  /** Feedback was given: drop the crash-recovery record so it is never applied twice. */
  private forgetInjected(id: string): void {
    try {
      this.ctx.store.mutate((d) => {
        if (d.get(id)?.[INJECTED_KEY] !== undefined) d.change(id, (b) => { delete b[INJECTED_KEY]; });
      });
    } catch (error) {
      this.ctx.output.narrative(`helix: could not clear ${INJECTED_KEY} on ${id}: ${(error as Error).message}`);
    }
  }

  /**
   * Keeps this run's claims live for DDx while an agent works: every 30 s (DDx's
   * HeartbeatInterval; its TTL is 90 s) each held claim gets fresh heartbeat keys, under the lock
   * and only while the claim token is still ours. Returns the function that stops it.
   */
  private startHeartbeats(): () => void {
    if (this.held.size === 0) return () => undefined;
    const timer = setInterval(() => {
      for (const [id, token] of this.held) {
        try {
          const kept = this.ctx.store.mutate((d) => heartbeatBead(d, id, token, this.now()));
          if (!kept) this.ctx.output.narrative(`helix: claim on ${id} is no longer ours; heartbeat stopped`);
        } catch (error) {
          this.ctx.output.narrative(`helix: heartbeat on ${id} failed: ${(error as Error).message}`);
        }
      }
    }, HEARTBEAT_INTERVAL_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  private async dispatchBuild(bead: Bead, prompt: string, invokedBy: 'run' | 'build'): Promise<AgentCall> {
    const choice = agentForAction(this.ctx.plan, 'build');
    if (this.ctx.buildPath === 'execute-bead') {
      const promptFile = promptFileFor(this.ctx.root, bead.id);
      mkdirSync(dirname(promptFile), { recursive: true });
      writeFileSync(promptFile, prompt);
    }
    const command = buildCommand(this.ctx, bead.id, prompt);
    if (command.file === 'ddx') {
      const words = ddxCommandWords(command, bead.id);
      this.say(invokedBy === 'build' ? BUILD.delegating(words, bead.id) : RUN.delegatingLoop(words));
    } else if (choice.agent !== this.ctx.plan.primary.agent) {
      this.say(rotation('build', choice.agent));
    }
    // Named by the agent doing the work (the harness under ddx), as the Bash CLI's lines were.
    const call: CallInfo = { label: choice.agent, requested: choice.agent, model: choice.model, prompt, purpose: 'build' };
    if (this.ctx.buildPath === 'try') {
      // DDx's wall clock is HELIX_AGENT_TIMEOUT; helix waits for DDx's wrap-up after it, and reads what it spent from DDx's records
      const since = this.now();
      const timeout = agentTimeoutSeconds(this.ctx.env);
      Object.assign(call, { timeoutSec: timeout + TRY_GRACE_SECONDS, spentAfter: () => ddxAttemptSpend(this.ctx.store.dir, bead.id, since) });
    }
    return this.callAgent(command, call);
  }

  /** Runs one agent call with its lines and its framed block in the log (agent-call.ts). */
  private async runAgent(command: AgentCommand, call: CallInfo): Promise<AgentRunResult> {
    const result = await runAgentCall({ output: this.ctx.output, env: this.ctx.env, signal: this.ctx.signal, now: this.now }, command, call, this.totals);
    if (result.aborted) throw new RunInterrupted();
    return result;
  }

  /**
   * An agent call inside the loop: a program that cannot be started (not found, not executable, a
   * command line over the system's limit) is a failed call with one line saying why — a failed
   * attempt on the bead being built, never the end of the run.
   */
  private async callAgent(command: AgentCommand, call: CallInfo): Promise<AgentCall> {
    const before = this.ctx.store.read();
    try {
      const run = await this.runAgent(command, call);
      this.assertNoBeadsLost(before, call.label);
      return run;
    } catch (error) {
      if (!(error instanceof AgentStartError)) throw error;
      this.ctx.output.summary(error.message);
      const exitCode = error.code === 'ENOENT' ? CHILD_EXIT.notFound : CHILD_EXIT.cannotRun; // as a shell reports a program it could not find / run
      return { exitCode, output: '', stdout: '', stderr: '', answer: '', durationMs: 0, timedOut: false, aborted: false, tokens: 0, startFailure: error.message.replace(/^helix: /, '') };
    }
  }

  /** A call after which beads are missing from the file stops the run (exit 15), saying which. */
  private assertNoBeadsLost(before: Snapshot, label: string): void {
    const lost = vanishedIds(before, this.ctx.store.read(), () => archivedIds(this.ctx.store.dir));
    if (lost.length > 0) throw beadsLostError(this.ctx.store.dir, before, lost, label, this.now());
  }

  private async verify(commandText: string): Promise<Verification> {
    this.say(RUN.verifying(commandText));
    const run = await this.callAgent({ file: 'sh', args: ['-c', commandText], cwd: this.ctx.root, env: {} }, { label: 'verify', purpose: 'verify' });
    const tail = run.output.trim().split('\n').slice(-5).join(' | ');
    return { passed: run.exitCode === 0 && !run.timedOut, detail: `${commandText} exited ${run.exitCode}${tail ? `: ${tail}` : ''}` };
  }

  private closeEpic(epicId: string): Event {
    try {
      return { type: 'epicClosed', epic: this.ctx.store.mutate((d) => closeBead(d, epicId, { now: this.now() })) };
    } catch (error) {
      this.ctx.output.narrative(`helix: could not close epic ${epicId}: ${(error as Error).message}`);
      return { type: 'epicCloseFailed', epicId };
    }
  }

  private markBlocked(id: string, reason: string): void {
    try {
      this.ctx.store.mutate((d) => {
        if (d.get(id)) d.change(id, (b) => markBeadBlocked(b, reason, this.now()));
      });
    } catch (error) {
      this.ctx.output.narrative(`helix: could not mark ${id} blocked: ${(error as Error).message}`);
    }
  }

  // ── queue drain: check and the actions it routes to ─────────────────────────────────────────

  /** The `adversarial <action>: switching to <agent>` line, when the action runs on another agent. */
  private announceRotation(action: 'build' | 'check' | 'polish' | 'review'): void {
    const line = rotationLine(this.ctx.plan, action);
    if (line) this.say(line);
  }

  /** Post-implementation / post-epic review (cross-model through the review agent). */
  private async runReview(kind: ReviewKind, scope: string, cycle: number, beadId: string): Promise<Event> {
    const before = this.snapshot();
    const reviewed = before.byId.get(beadId);
    const parent = typeof reviewed?.parent === 'string' && reviewed.parent ? reviewed.parent : undefined;
    const prompt = actionPrompt('review', { ...this.promptPlace(), scope, reviewed: { id: beadId, parent, cycle } });
    const { command, call } = actionCommand(this.ctx, 'review', prompt);
    this.announceRotation('review');
    const run = await this.callAgent(command, call);
    const review = { store: this.ctx.store, before, reviewedId: beadId, cycle, now: this.now() };
    const { trailers, verdict } = answerAction(this.ctx.output, 'review', run, this.ctx.root, review, 'narrative');
    const outcome: ReviewOutcome = !verdict.ok ? 'unparseable' : trailers.reviewStatus === 'ISSUES_FOUND' ? 'issues' : 'clean';
    return { type: 'reviewed', kind, cycle, beadId, outcome, rc: verdict.exitCode, ...spentOn(run) };
  }

  private async runCheck(): Promise<Event> {
    const prompt = actionPrompt('check', { ...this.promptPlace(), scope: 'repo' });
    const { command, call } = actionCommand(this.ctx, 'check', prompt);
    this.announceRotation('check');
    const run = await this.callAgent(command, call);
    const ok = run.exitCode === 0;
    // The drain check's answer: stdout, except with --summary (the log has it) (§2.11).
    if (ok && this.ctx.output.mode !== 'summary') this.ctx.output.answer(answerOf(run));
    const nextAction = ok ? parseNextAction(answerOf(run)) : undefined;
    this.say(RUN.checkReturned(nextAction, run.exitCode));
    return { type: 'checked', nextAction, ok, ...spentOn(run) };
  }

  private async runAction(action: DrainAction, purpose: ActionPurpose): Promise<Event> {
    const name: ActionName = action;
    let governing: ReturnType<typeof acquireGoverningBead> | undefined;
    if (action === 'align') {
      // Alignment runs under its governing bead, like `helix align` (refused while another holds it).
      try {
        governing = acquireGoverningBead(this.ctx.store, 'repo', { root: this.ctx.root, now: this.now(), env: this.ctx.env, say: (line) => this.say(line) });
      } catch (error) {
        if (!isHelixError(error)) throw error;
        this.ctx.output.always(error.message);
        return { type: 'actionDone', action, purpose, ok: false };
      }
    }
    const prompt = actionPrompt(name, {
      ...this.promptPlace(),
      scope: 'repo',
      rounds: action === 'design' ? 5 : action === 'polish' ? 6 : undefined,
      governing: governing ? { bead: governing.bead.id, mode: governing.mode } : undefined,
    });
    const { command, call } = actionCommand(this.ctx, name, prompt);
    if (action === 'polish') this.announceRotation('polish');
    const run = await this.callAgent(command, call);
    // Judged like the one-shot action: backfill by its trailers, the others by the exit status.
    const { verdict } = answerAction(this.ctx.output, action, run, this.ctx.root, undefined, 'narrative');
    if (!verdict.ok && verdict.reason) return { type: 'actionDone', action, purpose, ok: false, detail: verdict.reason, ...spentOn(run) };
    const ok = run.exitCode === 0;
    return { type: 'actionDone', action, purpose, ok, detail: ok ? undefined : `${call.label} exited ${run.exitCode}`, ...spentOn(run) };
  }
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

/** Two turns of the event loop: the second has a poll phase, which delivers pending signals. */
function signalsDelivered(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** What one agent call spent, for the run's totals (cost only when the agent reported one). */
function spentOn(run: AgentRunResult): { tokens: number; costUsd?: number } {
  return run.usage?.costUsd !== undefined ? { tokens: run.tokens, costUsd: run.usage.costUsd } : { tokens: run.tokens };
}

function gitHead(root: string): string | undefined {
  const r = spawnSync('git', ['rev-parse', '--verify', '-q', 'HEAD'], { cwd: root, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

function commitExists(root: string, sha: string): boolean {
  return spawnSync('git', ['rev-parse', '--verify', '-q', `${sha}^{commit}`], { cwd: root, encoding: 'utf8' }).status === 0;
}

/** Lines of a file as git counts them for a new file (a last line without a newline counts). */
function fileLines(path: string): number {
  let text: Buffer;
  try {
    text = readFileSync(path);
  } catch {
    return 0;
  }
  if (text.includes(0)) return 0; // binary: git counts no lines
  let lines = 0;
  for (const byte of text) if (byte === 0x0a) lines++;
  return text.length > 0 && text[text.length - 1] !== 0x0a ? lines + 1 : lines;
}

/**
 * Lines (added + deleted) and files the attempt changed since `base`, committed or not: the diff
 * from `base` to the working tree plus untracked files. The tracker file is helix's bookkeeping,
 * not the attempt's change, and is left out. Undefined when it cannot be measured (no base
 * revision — an unborn HEAD when the attempt started — or any git error): the caller reviews then.
 */
export function changeSize(root: string, base: string | undefined, trackerFile?: string): { lines: number; files: number } | undefined {
  if (!base) return undefined;
  const top = spawnSync('git', ['rev-parse', '--show-toplevel'], { cwd: root, encoding: 'utf8' });
  if (top.status !== 0) return undefined;
  const rel = trackerFile ? relative(top.stdout.trim(), trackerFile) : undefined;
  const pathspec = ['--', '.', ...(rel && !rel.startsWith('..') ? [`:(exclude,glob)${rel}*`] : [])];
  const diff = spawnSync('git', ['diff', '--numstat', base, ...pathspec], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const untracked = spawnSync('git', ['ls-files', '--others', '--exclude-standard', '-z', ...pathspec], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (diff.status !== 0 || untracked.status !== 0) return undefined;
  let lines = 0;
  let files = 0;
  for (const row of diff.stdout.split('\n')) {
    const [added, removed] = row.split('\t');
    if (added === undefined || removed === undefined) continue;
    files++;
    lines += (Number(added) || 0) + (Number(removed) || 0);
  }
  for (const path of untracked.stdout.split('\0').filter(Boolean)) {
    files++;
    lines += fileLines(join(root, path));
  }
  return { lines, files };
}

export class RunInterrupted extends Error {
  constructor() {
    super('interrupted');
    this.name = 'RunInterrupted';
  }
}

/**
 * Orphan recovery (docs/contract/bash-interface.md §3, docs/contract/cli.md §7): unclaims every stale helix claim, re-reading
 * each bead under the lock just before acting (it may have closed meanwhile). Says why each
 * in-progress helix bead it left alone was left alone. Returns what it recovered, and the names
 * `tracker doctor --fix` kept from claims it released (their feedback is owed too).
 */
export interface RecoveredOrphan {
  bead: Bead;
  /** Memory names the interrupted attempt injected (taken off the bead in the same write). */
  injected: string[];
}

export function recoverOrphanedClaims(store: BeadStore, now: Date, thresholdSec: number, say: (line: Say) => void): RecoveredOrphan[] {
  const facts = { now, thresholdSec };
  const beads = store.read().beads;
  // names `tracker doctor --fix` kept from the claims it released: settled here, like our own orphans'
  const unsettled = hasUnsettledInjections(beads) ? store.mutate(takeUnsettledInjections) : [];
  const inProgress = beads.filter((b) => b.status === 'in_progress' && isHelixClaim(b));
  if (inProgress.length === 0) return unsettled;
  say(ORPHANS.found(inProgress.length));
  const staleIds = new Set(staleClaims(beads, facts).map((s) => s.id));
  for (const bead of inProgress.filter((b) => !staleIds.has(b.id))) {
    const pid = claimedPidOf(bead);
    const machine = bead['claimed-machine'];
    // another host's claim cannot be checked from here: it is left alone without a word
    if (typeof machine === 'string' && machine && machine !== thisMachine()) continue;
    if (pid !== undefined && isPidAlive(pid)) say(ORPHANS.pidAlive(bead.id, pid));
    else {
      const claimedAt = timeOf(bead['claimed-at']) ?? timeOf(bead.updated_at);
      if (claimedAt !== undefined) say(ORPHANS.tooFresh(bead.id, Math.max(0, Math.floor((now.getTime() - claimedAt) / 1000)), thresholdSec));
    }
  }
  const recovered: RecoveredOrphan[] = [];
  for (const id of staleIds) {
    const released = store.mutate((d) => releaseOrphan(d, id, facts, 'now'));
    if (!released) continue;
    recovered.push({ bead: released.bead, injected: released.injected });
    const age = Number.isFinite(released.stale.ageSec) ? released.stale.ageSec : 0;
    const { aheadSec } = released.stale;
    say(ORPHANS.reclaiming(released.stale.id, age, released.stale.pid, aheadSec === undefined ? released.stale.why : `${released.stale.why}; claim dated ${aheadSec}s in the future`));
  }
  if (recovered.length > 0) say(ORPHANS.recovered(recovered.length));
  return [...unsettled, ...recovered];
}
