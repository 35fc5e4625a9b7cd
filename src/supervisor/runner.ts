// The imperative shell of `helix run`: performs the effects the state machine asks for — tracker
// reads and writes, agent calls, verification, sleeps, output, run-state — and feeds each result
// back as the next event. Policy lives in machine.ts; mechanics of one attempt live here.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join, relative } from 'node:path';
import {
  type AgentCommand,
  type AgentChoice,
  type AgentRunResult,
  type ExecuteBeadResult,
  AgentStartError,
  type AgentPlan,
  type DdxInstall,
  agentForAction,
  agentTimeoutSeconds,
  claudeRootHint,
  ddxRunCommand,
  directAgentCommand,
  executeBeadCommand,
  isDirectAgent,
  parseExecuteBeadResult,
  parseNextAction,
  parseTrailers,
  parseTryResult,
  rootRefusalIn,
  runAgentCommand,
  tryCommand,
} from '../agents/index.js';
import { HelixError, isHelixError } from '../errors.js';
import {
  type Bead,
  type Fingerprint,
  BeadStore,
  HEARTBEAT_INTERVAL_MS,
  claimBead,
  closeBead,
  fingerprintOf,
  heartbeatBead,
  readyBeads,
  readyEpics,
  reopenBead,
  staleClaimOf,
  staleClaims,
  unclaimBead,
  orphanThresholdSec,
  problemsWarning,
  isPidAlive,
  timeOf,
} from '../tracker/index.js';
import { judgeAction, reviewParseable } from './action-verdict.js';
import { blockerLines, markBeadBlocked, writeBlockerReport } from './blockers.js';
import { renderContext, writeContext } from './context.js';
import { acquireGoverningBead, releaseGoverningBead } from './governing.js';
import { type DispatchAssessment, assessDispatch, assessMember } from './judge.js';
import {
  type ActionPurpose,
  type AttemptOutcome,
  type DrainAction,
  type Effect,
  type Event,
  type MachineState,
  type MemberOutcome,
  type MemberVerdict,
  initialState,
  step,
} from './machine.js';
import { type RunOutput, clockTime } from './output.js';
import type { SupervisorSettings } from './policy.js';
import { type ActionName, actionPrompt, implementationPrompt } from './prompts.js';
import { followUpReview } from './review-findings.js';
import { type UnfinishedAttempt, readRunState, unfinishedAttempt, writeRunState } from './run-state.js';
import { batchFor, tasksToPromote } from './selection.js';

/**
 * How builds reach an agent: `execute-bead` (DDx v0.6.x runs the bead; helix claims and closes),
 * `try` (current DDx runs, claims and closes it; helix re-reads, fingerprints and verifies around
 * DDx's own claim), or `direct` (helix claims, codex/claude work, the agent closes).
 */
export type BuildPath = 'execute-bead' | 'try' | 'direct';

/** Optional memory hooks (the learning loop); every call may fail without breaking the run. */
export interface MemoryPort {
  inject(bead: Bead): Promise<{ block: string; names: string[] }>;
  /** `output` is the agent's final answer (UTILIZED / LEARNED lines are read from it). */
  feedback(input: { bead: Bead; injected: string[]; verified: boolean; output: string; failureDetail?: string }): Promise<void>;
  /** Systemic memories, for the blocker report. */
  systemic?(): Promise<string[]>;
  close?(): void;
}

/** The bead key that keeps an attempt's injected memory names, so a crash does not lose them. */
export const INJECTED_KEY = 'helix-injected';

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

type Verification = { passed: boolean; detail: string };

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
  private checkedDirty = false;
  /** Systemic memories known at the end of the run, for the blocker report. */
  private systemicLines: string[] = [];
  /** The attempt an earlier run died in the middle of, settled by the first orphan recovery. */
  private unfinished: UnfinishedAttempt | undefined;

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
    this.persist({ stop_reason: null, interrupted_by: null, current_issue: null, cycle_start: null, cycle_end: null, cycle_duration: null });
    while (event) {
      const next = step(this.state, event, this.ctx.settings);
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
   * Ends an attempt cut short by a signal or an error: it was attempted (contract §6.8 counts it),
   * and every claim it holds is released. Returns the released ids.
   */
  abandonAttempt(): string[] {
    // Claims are held only between claim and settle, so a held claim means an attempt in flight.
    if (this.held.size > 0) this.state = { ...this.state, attempted: this.state.attempted + 1 };
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
        this.say(`helix: could not reopen ${id}: ${(error as Error).message}`);
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
      this.ctx.output.verbose(`helix: released claim on ${id}`);
      return true;
    } catch (error) {
      this.ctx.output.verbose(`helix: could not release ${id}: ${(error as Error).message}`);
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

  /** The run-complete line, blocker report and final run-state: printed on every exit path. */
  finish(reason: string, extra: Record<string, unknown> = {}): void {
    const s = this.state;
    const { output } = this.ctx;
    output.summary(`helix: ═══ run complete: ${s.attempted} attempted, ${s.completed} completed, ${s.skipped.length} skipped, ${s.tokens} tokens${costPart(s.costUsd)} ═══`);
    if (s.skipped.length > 0) {
      for (const line of blockerLines(s.skipped)) output.summary(line);
      for (const line of this.systemicLines) output.summary(`helix:   systemic: ${line}`);
      try {
        const file = writeBlockerReport({ root: this.ctx.root, skipped: s.skipped, attempted: s.attempted, completed: s.completed, log: output.logName, now: this.now(), systemic: this.systemicLines });
        output.verbose(`helix: blocker report ${file}`);
      } catch (error) {
        output.verbose(`helix: could not write the blocker report: ${(error as Error).message}`);
      }
    }
    this.persist({ stop_reason: reason, current_issue: null, ...extra });
  }

  /** `helix build`: one attempt on one bead, no queue drain. */
  async buildOnce(bead: Bead, ready: Bead[]): Promise<AttemptOutcome> {
    this.persist({ stop_reason: null });
    const event = await this.attempt(bead, 1, ready);
    if (event.type !== 'attempted') return { kind: 'passed-over', reason: 'not attempted' };
    const next = step(this.state, event, { ...this.ctx.settings, maxCycles: 1, reviewEvery: 0 });
    this.state = next.state;
    for (const effect of next.effects) if (effect.type === 'say' || effect.type === 'markBlocked') await this.perform(effect);
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
      this.ctx.output.verbose(`helix: could not write run-state: ${(error as Error).message}`);
    }
  }

  private say(text: string, level: 'summary' | 'verbose' = 'verbose', stamped = false): void {
    const line = stamped ? `helix: [${clockTime(this.now())}] ${text}` : text;
    if (level === 'summary') this.ctx.output.summary(line);
    else this.ctx.output.verbose(line);
  }

  private async perform(effect: Effect): Promise<Event | undefined> {
    switch (effect.type) {
      case 'say':
        this.say(effect.text, effect.level, effect.stamped);
        return undefined;
      case 'cycleStart':
        if (this.ctx.output.mode === 'normal') this.say(`ready=${effect.readyCount}, cycle=${effect.cycle}, issue=${effect.beadId}`, 'summary', true);
        else this.say(`cycle ${effect.cycle}: ${effect.beadId} (${effect.readyCount} ready)`, 'summary', true);
        return undefined;
      case 'writeContext':
        this.refreshContext();
        return undefined;
      case 'recoverOrphans':
        return this.recoverOrphans(effect.why);
      case 'readQueue':
        return this.readQueue();
      case 'attempt':
        return this.attempt(effect.bead, effect.cycle, effect.ready);
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
        return this.runReview(effect.scope, effect.cycle, effect.beadId);
      case 'runAction':
        return this.runAction(effect.action, effect.purpose);
      case 'stop':
        if (effect.message) this.ctx.output.summary(effect.message);
        return undefined;
    }
  }

  // ── queue ────────────────────────────────────────────────────────────────────────────────────

  private snapshot() {
    const snapshot = this.ctx.store.read();
    if (snapshot.problems.length > 0 && !this.warnedProblems) {
      this.warnedProblems = true;
      this.ctx.output.summary(problemsWarning(this.ctx.store.file, snapshot.problems));
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

  /** Promotes tasks that gained more than one child; true when the file changed. */
  private promoteEpics(beads: Bead[]): boolean {
    const candidates = tasksToPromote(beads);
    for (const task of candidates) {
      try {
        this.ctx.store.mutate((d) => d.change(task.id, (b) => { b.issue_type = 'epic'; b.updated_at = this.now().toISOString(); }));
        this.say(`helix: promoted ${task.id} to epic (it has more than one child)`);
      } catch (error) {
        this.say(`helix: could not promote ${task.id}: ${(error as Error).message}`);
      }
    }
    return candidates.length > 0;
  }

  private refreshContext(): void {
    writeContext(this.ctx.root, this.contextText());
  }

  private contextText(beads: Bead[] = this.snapshot().beads): string {
    const focused = this.state.focusedEpic ? beads.find((b) => b.id === this.state.focusedEpic) : undefined;
    return renderContext({ root: this.ctx.root, trackerFile: this.ctx.store.file, beads, readyCount: this.ready(beads).length, focusedEpic: focused });
  }

  // ── orphan recovery (contract §7) ───────────────────────────────────────────────────────────

  private async recoverOrphans(why: 'start' | 'failure' | 'build-breaker'): Promise<Event> {
    if (why === 'start') this.reopenUnverified();
    const readyBefore = this.readyCount();
    const recovered = recoverOrphanedClaims(this.ctx.store, this.now(), orphanThresholdSec(this.ctx.env), (line) => this.say(line));
    // A crashed attempt's injected memories did not help a verified task: feed that back once.
    if (this.ctx.memory) {
      for (const orphan of recovered.filter((o) => o.injected.length > 0)) {
        try {
          await this.ctx.memory.feedback({ bead: orphan.bead, injected: orphan.injected, verified: false, output: '' });
          this.say(`helix: fed back ${orphan.injected.length} memories of the interrupted attempt on ${orphan.bead.id}`);
        } catch (error) {
          this.say(`helix: memory feedback skipped: ${(error as Error).message}`);
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
    this.say(`helix: reopened ${unfinished.id}: closed during an attempt of run pid ${unfinished.pid}, which ended before verifying it`, 'summary');
  }

  // ── one attempt ─────────────────────────────────────────────────────────────────────────────

  private async attempt(selected: Bead, cycle: number, ready: Bead[]): Promise<Event> {
    const started = this.now();
    const passedOver = (reason: string): Event => ({ type: 'attempted', bead: selected, outcome: { kind: 'passed-over', reason }, durationSec: 0, tokens: 0 });
    // Re-read just before claiming: another session may have refined or taken the bead.
    const current = this.snapshot();
    const bead = current.byId.get(selected.id);
    if (!bead || !this.ready(current.beads).some((b) => b.id === selected.id)) {
      return passedOver('no longer open and ready');
    }
    const before = fingerprintOf(bead, this.now());
    // The verify command is taken now: text the agent writes during the attempt is never run.
    const verifyCommand = verifyCommandOf(bead, this.ctx.env);

    // On `ddx try` DDx takes the claim itself (a claim of ours would make it refuse the bead).
    const selfClaim = this.ctx.buildPath !== 'try';
    if (selfClaim) {
      try {
        const claimed = this.ctx.store.mutate((d) => claimBead(d, bead.id, { pid: process.pid, now: this.now(), leaseDir: this.ctx.store.leaseDir }));
        this.held.set(bead.id, String(claimed['claim-token']));
      } catch (error) {
        if (isHelixError(error) && error.kind === 'conflict') return passedOver(error.message);
        throw error;
      }
    }
    this.persist({ current_issue: bead.id, cycle_start: started.toISOString(), cycle_end: null, cycle_duration: null });
    const members = this.ctx.buildPath === 'direct' ? this.claimBatch(bead, ready) : [];

    let injected: string[] = [];
    let memoryBlock: { block: string; names: string[] } | undefined;
    // `ddx try` takes no prompt from helix: memories injected there would reach no agent.
    if (this.ctx.memory && this.ctx.buildPath !== 'try') {
      try {
        memoryBlock = await this.ctx.memory.inject(bead);
        injected = memoryBlock.names;
        this.say(`cycle ${cycle}: injected ${injected.length} memories`, this.ctx.output.mode === 'summary' ? 'summary' : 'verbose', true);
        if (injected.length > 0 && this.held.has(bead.id)) {
          this.ctx.store.mutate((d) => d.change(bead.id, (b) => { b[INJECTED_KEY] = injected; }));
        }
      } catch (error) {
        this.say(`helix: memory injection skipped: ${(error as Error).message}`);
      }
    }

    const prompt = implementationPrompt({
      bead,
      context: this.contextText(current.beads),
      related: members.map((m) => m.bead),
      memory: memoryBlock,
      helixCloses: this.ctx.buildPath === 'execute-bead',
      env: this.ctx.env,
    });
    const baseRev = gitHead(this.ctx.root);
    if (this.ctx.buildPath === 'execute-bead') this.warnIfDirty();
    let run: AgentCall;
    const stopHeartbeats = this.startHeartbeats();
    try {
      run = await this.dispatchBuild(bead, prompt);
    } catch (error) {
      // Interrupted (or broken) before any verdict: the names say nothing about the memories, and
      // left on a released bead they would be fed back by some later recovery. Drop them.
      if (injected.length > 0) this.forgetInjected(bead.id);
      throw error;
    } finally {
      stopHeartbeats();
    }
    const result =
      this.ctx.buildPath === 'execute-bead' ? parseExecuteBeadResult(run.stdout, bead.id) : this.ctx.buildPath === 'try' ? parseTryResult(run.stdout, bead.id) : undefined;
    const validResult = result && !('invalid' in result) ? result : undefined;
    if (result && 'invalid' in result) this.say(`helix: invalid execute-bead result for ${bead.id}: ${result.reason}`, 'summary');
    const tokens = validResult?.tokens ?? run.tokens;
    const costUsd = validResult?.cost_usd ?? run.usage?.costUsd;

    const afterSnapshot = this.snapshot();
    const after = afterSnapshot.byId.get(bead.id);
    const assessment = assessDispatch({
      before,
      after,
      afterFingerprint: after ? fingerprintOf(after, this.now()) : undefined,
      exitCode: run.exitCode,
      timedOut: run.timedOut,
      result,
      closer: this.ctx.buildPath === 'try' ? 'ddx' : 'helix',
      startFailure: run.startFailure,
    });
    if (assessment.kind === 'failed' && assessment.unknown) this.say(`helix: ${bead.id}: ${assessment.detail}`, 'summary');

    // One verify run per command per attempt: the tree does not change between the members' checks.
    const verifications = new Map<string, Promise<Verification>>();
    const verify = (command: string) => {
      let run = verifications.get(command);
      if (!run) verifications.set(command, (run = this.verify(command)));
      return run;
    };
    const outcome = await this.settle(bead, after, assessment, verifyCommand, verify, validResult, baseRev);
    const batch: MemberVerdict[] = [];
    for (const member of members) batch.push({ bead: member.bead, outcome: await this.settleMember(member, verify) });

    if (this.ctx.memory && outcome.kind !== 'drift') {
      const verified = outcome.kind === 'completed';
      try {
        await this.ctx.memory.feedback({ bead, injected, verified, output: run.answer, failureDetail: outcome.kind === 'failed' ? outcome.detail : undefined });
      } catch (error) {
        this.say(`helix: memory feedback skipped: ${(error as Error).message}`);
      }
    }
    // A drifted attempt is never judged, but its names must not outlive it either.
    if (injected.length > 0) this.forgetInjected(bead.id);

    const ended = this.now();
    const durationSec = (ended.getTime() - started.getTime()) / 1000;
    this.persist({ current_issue: null, cycle_start: started.toISOString(), cycle_end: ended.toISOString(), cycle_duration: Math.round(durationSec) });
    return { type: 'attempted', bead, outcome, durationSec, tokens, ...(costUsd !== undefined ? { costUsd } : {}), ...(members.length > 0 ? { batch } : {}) };
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
      this.say(`helix: batch: could not claim related beads, ${primary.id} goes alone: ${(error as Error).message}`);
      return [];
    }
    for (const member of claimed) this.held.set(member.bead.id, member.token);
    const dropped = candidates.filter((c) => !claimed.some((m) => m.bead.id === c.id)).map((c) => c.id);
    if (claimed.length > 0) this.say(`helix: batch: claimed ${claimed.map((m) => m.bead.id).join(', ')} with ${primary.id}`);
    if (dropped.length > 0) this.say(`helix: batch: left out ${dropped.join(', ')} (no longer open and ready)`);
    return claimed.map(({ token: _token, ...member }) => member);
  }

  /**
   * Judges one batch member after the dispatch, from a fresh read: drift releases it; closed by
   * the agent → verified like the primary (a failure reopens it); otherwise its claim is released.
   */
  private async settleMember(member: BatchMember, verify: (command: string) => Promise<Verification>): Promise<MemberOutcome> {
    const { id } = member.bead;
    const after = this.snapshot().byId.get(id);
    const assessment = assessMember({ before: member.before, after, afterFingerprint: after ? fingerprintOf(after, this.now()) : undefined });
    if (assessment.kind === 'drift') {
      this.releaseAfterDrift(id, after);
      return { kind: 'drift', changes: assessment.changes };
    }
    if (assessment.kind === 'release') {
      this.releaseClaim(id);
      return { kind: 'released' };
    }
    // still held while it is verified: an interrupt now reopens it (releaseHeldClaims)
    const verification = member.verifyCommand ? await verify(member.verifyCommand) : { passed: true, detail: '' };
    this.held.delete(id); // closing dropped the claim
    if (verification.passed) return { kind: 'completed' };
    const reason = `verification failed: ${verification.detail}`;
    this.reopen(id, reason);
    return { kind: 'failed', detail: reason };
  }

  /** Reopens a bead the agent closed but verification refused (notes say why). */
  private reopen(id: string, reason: string): void {
    try {
      if (this.snapshot().byId.get(id)?.status === 'closed') this.ctx.store.mutate((d) => reopenBead(d, id, { reason, now: this.now() }));
    } catch (error) {
      this.say(`helix: could not reopen ${id}: ${(error as Error).message}`);
    }
  }

  /**
   * Settles an attempt after the agent returned: releases the claim on drift or failure, and
   * otherwise runs verification and closes (helix's close) or reopens (a failed check).
   */
  private async settle(
    bead: Bead,
    after: Bead | undefined,
    assessment: DispatchAssessment,
    verifyCommand: string | undefined,
    verify: (command: string) => Promise<Verification>,
    validResult: ExecuteBeadResult | undefined,
    baseRev: string | undefined,
  ): Promise<AttemptOutcome> {
    if (assessment.kind === 'drift') {
      this.releaseAfterDrift(bead.id, after);
      return { kind: 'drift', changes: assessment.changes };
    }
    if (assessment.kind === 'failed') {
      this.releaseClaim(bead.id);
      return { kind: 'failed', failure: assessment.failure, detail: assessment.detail };
    }
    if (assessment.kind === 'preserved') {
      // Not landed: the bead goes back to the queue. A bead closed meanwhile is reopened, with why.
      this.say(`helix: ${bead.id} not landed: ${assessment.detail}`, 'summary');
      if (after?.status === 'closed') {
        this.reopen(bead.id, `not landed: ${assessment.detail}`);
        this.held.delete(bead.id);
      } else this.releaseClaim(bead.id);
      return { kind: 'failed', failure: 'no-completion', detail: assessment.detail };
    }
    const verification = verifyCommand ? await verify(verifyCommand) : { passed: true, detail: '' };
    if (!verification.passed) {
      const reason = `verification failed: ${verification.detail}`;
      this.reopen(bead.id, reason);
      // reopening already dropped the claim; otherwise release it
      if (this.snapshot().byId.get(bead.id)?.status === 'in_progress') this.releaseClaim(bead.id);
      else this.held.delete(bead.id);
      return { kind: 'failed', failure: 'no-completion', detail: reason };
    }
    if (assessment.helixCloses) {
      try {
        this.ctx.store.mutate((d) => closeBead(d, bead.id, { token: this.held.get(bead.id), commit: validResult?.result_rev, session: validResult?.session_id, now: this.now() }));
      } catch (error) {
        this.releaseClaim(bead.id);
        return { kind: 'failed', failure: 'no-completion', detail: `could not close: ${(error as Error).message}` };
      }
    }
    this.held.delete(bead.id);
    return { kind: 'completed', salvaged: assessment.salvaged, change: changeSize(this.ctx.root, validResult?.base_rev ?? baseRev) };
  }

  /** Feedback was given: drop the crash-recovery record so it is never applied twice. */
  private forgetInjected(id: string): void {
    try {
      this.ctx.store.mutate((d) => {
        if (d.get(id)?.[INJECTED_KEY] !== undefined) d.change(id, (b) => { delete b[INJECTED_KEY]; });
      });
    } catch (error) {
      this.say(`helix: could not clear ${INJECTED_KEY} on ${id}: ${(error as Error).message}`);
    }
  }

  /** After drift: release the claim; a closed bead stays closed unless it was superseded. */
  private releaseAfterDrift(id: string, after: Bead | undefined): void {
    if (after?.status === 'closed' && typeof after['superseded-by'] === 'string' && after['superseded-by']) {
      this.reopen(id, 'queue drift: superseded during execution');
      this.held.delete(id);
      return;
    }
    // On `ddx try` DDx closes on its own: a close made against changed governance is refused.
    if (after?.status === 'closed' && this.ctx.buildPath === 'try') {
      this.reopen(id, 'queue drift: DDx closed it, but its governance fields changed during execution');
      return;
    }
    if (after) this.releaseClaim(id);
    else this.held.delete(id);
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
          if (!kept) this.say(`helix: claim on ${id} is no longer ours; heartbeat stopped`);
        } catch (error) {
          this.say(`helix: heartbeat on ${id} failed: ${(error as Error).message}`);
        }
      }
    }, HEARTBEAT_INTERVAL_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * DDx v0.6.x execute-bead commits every uncommitted change as a checkpoint on the current branch
   * before it runs (93be5c8cb2 internal/agent/execute_bead.go: SynthesizeCommit
   * "chore: checkpoint pre-execute-bead <attempt>"): say so before it happens.
   */
  private warnIfDirty(): void {
    // Once per run: the tree a user leaves dirty is dirty before the first build.
    if (this.checkedDirty) return;
    this.checkedDirty = true;
    // The tracker itself is DDx's to commit (it commits beads.jsonl first, CommitTracker).
    const tracker = relative(this.ctx.root, this.ctx.store.dir) || '.ddx';
    const status = spawnSync('git', ['status', '--porcelain', '--', '.', `:(exclude)${tracker}`], { cwd: this.ctx.root, encoding: 'utf8' });
    const changed = status.status === 0 ? status.stdout.split('\n').filter((l) => l.trim()).length : 0;
    if (changed > 0) {
      this.say(`helix: warning: ${changed} uncommitted change(s) in ${this.ctx.root}: DDx ${this.ctx.ddx?.version ?? 'v0.6.x'} execute-bead commits them as a checkpoint on the current branch before it runs (\`git reset HEAD~\` undoes it)`, 'summary');
    }
  }

  /** The build command for a bead on this session's build path (writes the --prompt file when asked). */
  buildCommand(bead: Bead, prompt: string, writePromptFile = true): AgentCommand {
    const choice = agentForAction(this.ctx.plan, 'build');
    const root = this.ctx.root;
    if (this.ctx.buildPath === 'execute-bead') {
      // the id comes from a file anyone can edit: it names a file here, never a path
      const promptFile = join(root, '.helix', 'prompts', `${bead.id.replace(/[^A-Za-z0-9._-]/g, '_')}.md`);
      if (writePromptFile) {
        mkdirSync(join(root, '.helix', 'prompts'), { recursive: true });
        writeFileSync(promptFile, prompt);
      }
      return executeBeadCommand({ root, beadId: bead.id, harness: choice.agent, model: choice.model, effort: choice.effort, promptFile });
    }
    if (this.ctx.buildPath === 'try') {
      return tryCommand({ root, beadId: bead.id, harness: choice.agent, model: choice.model, effort: choice.effort });
    }
    return this.directCommand(choice, prompt);
  }

  /** codex or claude called directly; any other agent exists only as a ddx harness. */
  private directCommand(choice: AgentChoice, prompt: string): AgentCommand {
    if (!isDirectAgent(choice.agent)) throw new HelixError('missingTool', `helix: agent ${choice.agent} can only run through ddx, which is not installed`);
    return directAgentCommand(choice.agent, { root: this.ctx.root, prompt, model: choice.model, effort: choice.effort });
  }

  private async dispatchBuild(bead: Bead, prompt: string): Promise<AgentCall> {
    // Named by the agent doing the work (the harness under ddx), as the Bash CLI's lines were.
    return this.callAgent(this.buildCommand(bead, prompt), agentForAction(this.ctx.plan, 'build').agent);
  }

  /**
   * Runs one agent call with its whole transcript streamed into the log; prints the `… complete`
   * line. A structured stream (codex --json, claude stream-json) is not echoed raw: in normal mode
   * the terminal gets its live-progress lines (addendum §0.4) and then the final answer.
   */
  async runAgent(command: AgentCommand, label: string, signal: AbortSignal | undefined = this.ctx.signal): Promise<AgentRunResult> {
    const structured = command.format !== undefined;
    const sink = this.ctx.output.agentOutputSink({ echo: !structured });
    const result = await runAgentCommand(command, {
      env: this.ctx.env,
      timeoutMs: agentTimeoutSeconds(this.ctx.env) * 1000,
      onChunk: (text) => sink.append(text),
      onProgress: (line) => sink.echo(`helix: [${clockTime(this.now())}] ${line}`),
      signal,
    });
    // The raw stream stayed off the terminal: show what the agent answered, as the raw text used to.
    if (structured && result.answer.trim()) sink.echo(result.answer.trimEnd());
    const range = sink.range();
    this.say(
      `${label} complete (rc=${result.exitCode}, ${Math.round(result.durationMs / 1000)}s, ${result.tokens} tokens${costPart(result.usage?.costUsd)}) — log L${range.first}–L${range.last} in ${this.ctx.output.logName}`,
      'summary',
      true,
    );
    if (command.format === 'claude-stream-json' && result.exitCode !== 0 && rootRefusalIn(result.stderr)) this.say(claudeRootHint(), 'summary');
    if (result.aborted) throw new RunInterrupted();
    return result;
  }

  /**
   * An agent call inside the loop: a program that cannot be started (not found, not executable, a
   * command line over the system's limit) is a failed call with one line saying why — a failed
   * attempt on the bead being built, never the end of the run.
   */
  private async callAgent(command: AgentCommand, label: string): Promise<AgentCall> {
    try {
      return await this.runAgent(command, label);
    } catch (error) {
      if (!(error instanceof AgentStartError)) throw error;
      this.say(error.message, 'summary', false);
      const exitCode = error.code === 'ENOENT' ? 127 : 126; // as a shell reports a program it could not find / run
      return { exitCode, output: '', stdout: '', stderr: '', answer: '', durationMs: 0, timedOut: false, aborted: false, tokens: 0, startFailure: error.message.replace(/^helix: /, '') };
    }
  }

  private async verify(commandText: string): Promise<Verification> {
    this.say(`helix: verifying: ${commandText}`);
    const run = await this.callAgent({ file: 'sh', args: ['-c', commandText], cwd: this.ctx.root, env: {} }, 'verify');
    const tail = run.output.trim().split('\n').slice(-5).join(' | ');
    return { passed: run.exitCode === 0 && !run.timedOut, detail: `${commandText} exited ${run.exitCode}${tail ? `: ${tail}` : ''}` };
  }

  private closeEpic(epicId: string): Event {
    try {
      const epic = this.ctx.store.mutate((d) => closeBead(d, epicId, { now: this.now() }));
      const spec = typeof epic['spec-id'] === 'string' && epic['spec-id'] ? epic['spec-id'] : 'last-commit';
      return { type: 'epicClosed', epicId, reviewScope: spec };
    } catch (error) {
      const epic = this.snapshot().byId.get(epicId);
      this.say(`helix: could not close epic ${epicId}: ${(error as Error).message}`);
      return { type: 'attempted', bead: epic ?? { id: epicId, title: epicId, status: 'open', priority: 2 }, outcome: { kind: 'passed-over', reason: 'epic could not be closed' }, durationSec: 0, tokens: 0 };
    }
  }

  private markBlocked(id: string, reason: string): void {
    try {
      this.ctx.store.mutate((d) => d.change(id, (b) => markBeadBlocked(b, reason, this.now())));
    } catch (error) {
      this.say(`helix: could not mark ${id} blocked: ${(error as Error).message}`);
    }
  }

  // ── queue drain: check and the actions it routes to ─────────────────────────────────────────

  /** The command for a non-build action under the run's agent plan. */
  actionCommand(action: ActionName, prompt: string): { command: AgentCommand; label: string } {
    const planAction = action === 'implementation' ? 'build' : action;
    const choice = agentForAction(this.ctx.plan, planAction);
    const root = this.ctx.root;
    if (this.ctx.actionsViaDdx) {
      const surface = this.ctx.ddx?.surface ?? 'agent';
      return {
        command: ddxRunCommand(surface, { root, harness: choice.agent, prompt, timeoutSeconds: agentTimeoutSeconds(this.ctx.env), model: choice.model, effort: choice.effort }),
        label: choice.agent,
      };
    }
    return { command: this.directCommand(choice, prompt), label: choice.agent };
  }

  /** Post-implementation / post-epic review (cross-model through the review agent). */
  private async runReview(scope: string, cycle: number, beadId: string): Promise<Event> {
    const before = this.snapshot();
    const reviewed = before.byId.get(beadId);
    const parent = typeof reviewed?.parent === 'string' && reviewed.parent ? reviewed.parent : undefined;
    const prompt = actionPrompt('review', { scope, reviewed: { id: beadId, parent, cycle }, context: this.contextText(before.beads), env: this.ctx.env });
    const { command, label } = this.actionCommand('review', prompt);
    this.say(`helix: reviewing ${scope} after cycle ${cycle}`);
    const run = await this.callAgent(command, label);
    const trailers = parseTrailers(run.answer);
    const parseable = reviewParseable(trailers);
    if (parseable) this.say(`helix: review ${trailers.reviewStatus}${trailers.reviewStatus === 'ISSUES_FOUND' ? ` (${trailers.issuesCount} issues, ${trailers.findingsFiled ?? 0} filed)` : ''}`);
    const followUp = followUpReview(
      this.ctx.store,
      trailers,
      { reviewed, reviewedId: beadId, cycle, before: new Set(before.beads.map((b) => b.id)), output: run.answer },
      this.now(),
    );
    if (followUp.outcome === 'filed') this.say(followUp.line);
    if (followUp.outcome === 'failed') this.say(followUp.line, 'summary');
    return { type: 'reviewed', cycle, parseable, ...spentOn(run) };
  }

  private async runCheck(): Promise<Event> {
    const prompt = actionPrompt('check', { scope: 'repo', context: this.contextText(), env: this.ctx.env });
    const { command, label } = this.actionCommand('check', prompt);
    this.say('helix: queue drained; running check');
    const run = await this.callAgent(command, label);
    const nextAction = parseNextAction(run.answer);
    this.say(`helix: check returned ${nextAction ?? 'no NEXT_ACTION'} (rc=${run.exitCode})`);
    return { type: 'checked', nextAction, ...spentOn(run) };
  }

  private async runAction(action: DrainAction, purpose: ActionPurpose): Promise<Event> {
    const name: ActionName = action === 'design' ? 'design' : action;
    // Alignment runs under its governing bead, like `helix align` (refused while another holds it).
    let governing: Bead | undefined;
    if (action === 'align') {
      try {
        governing = acquireGoverningBead(this.ctx.store, 'repo', this.now());
      } catch (error) {
        if (!isHelixError(error) || error.kind !== 'conflict') throw error;
        return { type: 'actionDone', action, purpose, ok: false, detail: error.message.replace(/^helix: /, '') };
      }
    }
    try {
      const prompt = actionPrompt(name, {
        scope: 'repo',
        context: this.contextText(),
        env: this.ctx.env,
        rounds: action === 'design' ? 5 : action === 'polish' ? 6 : undefined,
        governingBead: governing?.id,
      });
      const { command, label } = this.actionCommand(name, prompt);
      this.say(`helix: running ${action} (${purpose})`);
      const run = await this.callAgent(command, label);
      if (action === 'backfill') {
        const verdict = judgeAction('backfill', run.exitCode, parseTrailers(run.answer), this.ctx.root);
        for (const line of verdict.lines) this.say(line);
        if (!verdict.ok) return { type: 'actionDone', action, purpose, ok: false, detail: verdict.reason, ...spentOn(run) };
      }
      const ok = run.exitCode === 0;
      return { type: 'actionDone', action, purpose, ok, detail: ok ? undefined : `${label} exited ${run.exitCode}`, ...spentOn(run) };
    } finally {
      if (governing) releaseGoverningBead(this.ctx.store, governing);
    }
  }
}

/** Two turns of the event loop: the second has a poll phase, which delivers pending signals. */
function signalsDelivered(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** What one agent call spent, for the run's totals (cost only when the agent reported one). */
function spentOn(run: AgentRunResult): { tokens: number; costUsd?: number } {
  return run.usage?.costUsd !== undefined ? { tokens: run.tokens, costUsd: run.usage.costUsd } : { tokens: run.tokens };
}

/**
 * `, $0.0123` after a token count, or nothing when no agent reported a cost above zero (codex
 * reports none; a stand-in or an older DDx reports 0, which would only look like a free call).
 */
export function costPart(usd: number | undefined): string {
  return usd !== undefined && usd > 0 ? `, $${usd.toFixed(4)}` : '';
}

function gitHead(root: string): string | undefined {
  const r = spawnSync('git', ['rev-parse', '--verify', '-q', 'HEAD'], { cwd: root, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** Lines and files changed since `base` (committed work), for the review threshold. */
export function changeSize(root: string, base: string | undefined): { lines: number; files: number } | undefined {
  if (!base) return undefined;
  const r = spawnSync('git', ['diff', '--numstat', base, 'HEAD'], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) return undefined;
  let lines = 0;
  let files = 0;
  for (const row of r.stdout.split('\n')) {
    const [added, removed] = row.split('\t');
    if (added === undefined || removed === undefined) continue;
    files++;
    lines += (Number(added) || 0) + (Number(removed) || 0);
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
 * Orphan recovery (contract §7): unclaims every stale helix claim, re-reading each bead under the
 * lock just before acting (it may have closed meanwhile). Returns how many were recovered.
 */
export interface RecoveredOrphan {
  bead: Bead;
  /** Memory names the interrupted attempt injected (taken off the bead in the same write). */
  injected: string[];
}

export function recoverOrphanedClaims(store: BeadStore, now: Date, thresholdSec: number, say: (line: string) => void): RecoveredOrphan[] {
  const facts = { now, thresholdSec };
  const candidates = staleClaims(store.read().beads, facts);
  const recovered: RecoveredOrphan[] = [];
  for (const candidate of candidates) {
    const released = store.mutate((d) => {
      const bead = d.get(candidate.id);
      const stale = bead ? staleClaimOf(bead, facts) : undefined;
      if (!bead || !stale) return undefined;
      const raw = bead[INJECTED_KEY];
      const injected = Array.isArray(raw) ? raw.filter((n): n is string => typeof n === 'string') : [];
      unclaimBead(d, candidate.id, { now });
      if (raw !== undefined) d.change(candidate.id, (b) => { delete b[INJECTED_KEY]; });
      return { stale, bead: { ...bead }, injected };
    });
    if (!released) continue;
    recovered.push({ bead: released.bead, injected: released.injected });
    const age = Number.isFinite(released.stale.ageSec) ? released.stale.ageSec : 'unknown';
    say(`helix: reclaiming orphaned ${released.stale.id} (age=${age}s, pid=${released.stale.pid ?? 'none'} ${released.stale.why})`);
  }
  if (recovered.length > 0) say(`helix: recovered ${recovered.length} orphaned issue(s)`);
  return recovered;
}
