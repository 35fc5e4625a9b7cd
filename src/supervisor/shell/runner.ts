// The imperative shell of `helix run`: the loop that feeds the state machine (core/machine.ts) its
// events and performs the effects each step asks for. Each family of effects has its own file —
// queue.ts (the queue and its context file), attempt.ts (one attempt on one bead), drain.ts (the
// check, the actions and the reviews), recovery.ts (orphan recovery), run-end.ts (the blocker
// report) — sharing one RunContext: the session, the clock, the machine's state and the claims.
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentProblem, UsageLimit } from '../../agents/index.js';
import { isPidAlive, type Bead } from '../../tracker/index.js';
import { type Effect, type Event, type MachineState, assertOneNextEvent, step } from '../core/machine.js';
import type { AttemptOutcome } from '../core/outcome.js';
import { noCostBuildAgent } from '../core/dispatch.js';
import { alignedSinceLastBuild } from '../core/alignment-due.js';
import { RunInterrupted } from './agent-call.js';
import { attempt } from './attempt.js';
import { attemptPortsOf } from './attempt-ports.js';
import { markBlocked, parkBead } from './bead-writes.js';
import { runAction, runCheck, runReview, settleGoverning } from './drain.js';
import { closeEpic, readQueue, refreshContext } from './queue.js';
import { recoverOrphans } from './recovery.js';
import { RunContext, type SupervisorEnvironment } from './run-context.js';
import { finishRun, systemicMemories } from './run-end.js';
import { type UnfinishedAttempt, readRunState, unfinishedAttempt } from './run-state.js';

export type { SupervisorEnvironment } from './run-context.js';

export interface RunSummary {
  exitCode: number;
  state: MachineState;
}

/** What `helix build` ended on: the attempt's outcome, or a call that did not get through (nothing counted). */
export type BuildResult = AttemptOutcome | { kind: 'limited'; limit: UsageLimit } | { kind: 'unavailable'; problem: AgentProblem };

export class Supervisor {
  private readonly context: RunContext;
  /** Systemic memories known at the end of the run, for the blocker report. */
  private systemicLines: string[] = [];
  /** The attempt an earlier run died in the middle of, settled by the first orphan recovery. */
  private unfinished: UnfinishedAttempt | undefined;

  constructor(session: SupervisorEnvironment) {
    this.context = new RunContext(session);
  }

  get machineState(): MachineState {
    return this.context.state;
  }

  /** Drives the machine until it stops. Throws only on an interrupt or an unexpected error. */
  async run(): Promise<RunSummary> {
    const run = this.context;
    const noCostAgent = noCostBuildAgent(run.session);
    let event: Event | undefined = { type: 'started', ...(noCostAgent ? { noCostAgent } : {}) };
    // read before this run's first write replaces it
    const previous = readRunState(run.session.store.dir);
    this.unfinished = unfinishedAttempt(previous, isPidAlive);
    // an alignment that finished after the last build attempt, in an earlier run, counts in this one
    run.state = { ...run.state, alignedSinceBuild: alignedSinceLastBuild(previous?.last_alignment, previous?.last_build_attempt) };
    if (typeof previous?.last_alignment === 'string') run.lastAlignment = previous.last_alignment;
    run.persist({ stop_reason: null, interrupted_by: null, current_issue: null, cycle_start: null, cycle_end: null, cycle_duration: null, pid: process.pid });
    if (run.session.settings.jobs > 1) return this.runFleet(event);
    while (event) {
      const effects = this.advance(event);
      event = undefined;
      for (const effect of effects) {
        // A signal that came while helix was busy in synchronous work (waiting for the tracker
        // lock, say) is only seen once the event loop turns: let it, so no new step starts after it.
        await signalsDelivered();
        if (run.session.signal?.aborted) throw new RunInterrupted();
        const produced = await this.perform(effect);
        if (produced) event = produced;
      }
      if (run.state.stop) break;
    }
    return { exitCode: run.state.stop?.exitCode ?? 1, state: run.state };
  }

  /** One step of the machine: its new state kept, its effects to perform. */
  private advance(event: Event): Effect[] {
    const next = step(this.context.state, event, this.context.session.settings);
    assertOneNextEvent(event, next.effects);
    this.context.state = next.state;
    return next.effects;
  }

  /**
   * The loop with several builds in flight (core/fleet.ts): `startAttempt` runs an attempt beside
   * the others without waiting for it; the machine takes one event at a time — an effect's own
   * event first, then the slots' ends in the order they came. On an interrupt or an error every
   * slot is let finish its way out (its calls are stopped by the same signal) before it is rethrown.
   */
  private async runFleet(first: Event): Promise<RunSummary> {
    const run = this.context;
    const slots = new Map<string, Promise<void>>();
    const ended: Event[] = [];
    let wake: (() => void) | undefined;
    let failure: unknown;
    let event: Event | undefined = first;
    // each attempt in flight holds a lane (1…N) from its claim to its end: the board's row, the report's lane
    const lanes = new Map<string, number>();
    const freeLane = () => {
      const held = new Set(lanes.values());
      let lane = 1;
      while (held.has(lane)) lane++;
      return lane;
    };
    const start = (bead: Bead, cycle: number, readyCount: number) => {
      lanes.set(bead.id, freeLane());
      const slot = attempt({ ports: attemptPortsOf(run, { slot: lanes.get(bead.id)!, beadId: bead.id }), selected: bead, cycle, ready: [], readyCount, command: 'run' })
        .then((done) => void ended.push({ ...done, at: run.now().getTime(), ...(done.type === 'attempted' ? { cycle } : {}) } as Event))
        .catch((error: unknown) => void (failure ??= error))
        .finally(() => {
          slots.delete(bead.id);
          lanes.delete(bead.id);
          this.persistInFlight(slots);
          wake?.();
        });
      slots.set(bead.id, slot);
      this.persistInFlight(slots);
    };
    try {
      while (event) {
        const effects = this.advance(event.type === 'queue' ? { ...event, at: run.now().getTime() } : event);
        event = undefined;
        for (const effect of effects) {
          await signalsDelivered();
          if (run.session.signal?.aborted || failure) break;
          if (effect.type === 'startAttempt') {
            start(effect.bead, effect.cycle, effect.readyCount);
            continue;
          }
          const produced = await this.perform(effect);
          if (produced) event = produced;
        }
        if (run.session.signal?.aborted) throw new RunInterrupted();
        if (failure) throw failure;
        if (run.state.stop) break;
        if (!event) event = ended.shift();
        while (!event && slots.size > 0) {
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
          if (failure) throw failure;
          if (run.session.signal?.aborted) throw new RunInterrupted();
          event = ended.shift();
        }
      }
    } finally {
      // every slot ends its way (an interrupt stops its calls; its own finally releases what it holds)
      await Promise.allSettled([...slots.values()]);
    }
    return { exitCode: run.state.stop?.exitCode ?? 1, state: run.state };
  }

  /** Run-state names the beads in flight (helix status, and a later run's recovery). */
  private persistInFlight(slots: Map<string, Promise<void>>): void {
    this.context.persist({ in_flight: [...slots.keys()] });
  }

  /**
   * Ends an attempt cut short by a signal or an error: it was attempted (docs/contract/cli.md §6.8 counts it),
   * and every claim it holds is released. Returns the released ids.
   */
  abandonAttempt(exitCode: number): string[] {
    const run = this.context;
    // Claims are held only between claim and settle, so a held claim means an attempt in flight.
    run.state = step(run.state, { type: 'interrupted', attemptInFlight: run.claims.size > 0, exitCode }, run.session.settings).state;
    return this.releaseHeldClaims();
  }

  /** Releases every claim this run holds (interrupts and unexpected errors); returns the ids released. */
  releaseHeldClaims(): string[] {
    return this.context.claims.releaseAll();
  }

  /** Collects what the end-of-run report needs from memory (async, before finish). */
  async gatherSystemic(): Promise<void> {
    this.systemicLines = await systemicMemories(this.context);
  }

  /** The run-complete line, blocker report and final run-state: printed on every exit path (docs/contract/bash-interface.md §2.13). */
  async finish(reason: string, exitCode: number, detail: string, extra: Record<string, unknown> = {}): Promise<void> {
    const run = this.context;
    // an alignment the run ended in the middle of (a limit stop, a signal) holds its governing bead: no claim outlives the run
    if (run.governing) settleGoverning(run, run.governing, false);
    await finishRun(this.context, reason, extra, this.systemicLines, exitCode, this.context.state.stopDetail ?? detail);
  }

  /** `helix build`: one attempt on one bead, no queue drain, no review (the Bash `build` had none). */
  async buildOnce(bead: Bead, ready: Bead[]): Promise<BuildResult> {
    const run = this.context;
    run.persist({ stop_reason: null });
    const event = await attempt({ ports: attemptPortsOf(run), selected: bead, cycle: 1, ready, readyCount: ready.length, command: 'build' });
    // one build does not wait a limit or an infrastructure failure out: it says so and exits, the bead as it was
    if (event.type === 'limited') return { kind: 'limited', limit: event.limit };
    if (event.type === 'unavailable') return { kind: 'unavailable', problem: event.problem };
    if (event.type !== 'attempted') return { kind: 'passed-over', reason: 'not attempted' };
    run.state = step(run.state, event, { ...run.session.settings, maxCycles: 1, reviewEvery: 0, autoReview: false }).state;
    return event.outcome;
  }

  private async perform(effect: Effect): Promise<Event | undefined> {
    const run = this.context;
    switch (effect.type) {
      case 'say':
        run.say(effect);
        return undefined;
      case 'writeContext':
        refreshContext(run);
        return undefined;
      case 'recoverOrphans': {
        const unfinished = effect.why === 'start' ? this.unfinished : undefined;
        if (effect.why === 'start') this.unfinished = undefined;
        return recoverOrphans(run, effect.why, unfinished);
      }
      case 'readQueue':
        return readQueue(run);
      case 'attempt':
        return attempt({ ports: attemptPortsOf(run, { slot: 1, beadId: effect.bead.id }), selected: effect.bead, cycle: effect.cycle, ready: effect.ready, readyCount: effect.readyCount, command: 'run' });
      case 'startAttempt':
        throw new Error('helix internal error: startAttempt outside the fleet loop');
      case 'closeEpic':
        return closeEpic(run, effect.epicId);
      case 'markBlocked':
        markBlocked(run, effect.id, effect.reason);
        return undefined;
      case 'park':
        parkBead(run, effect.id, effect.attempts);
        return undefined;
      case 'record':
        await run.record.record(effect.event);
        return undefined;
      case 'sleep':
        if (effect.seconds > 0) await sleep(effect.seconds * 1000, undefined, { signal: run.session.signal }).catch(() => undefined);
        return undefined;
      case 'runCheck':
        return runCheck(run);
      case 'runReview':
        return runReview(run, effect.kind, effect.scope, effect.cycle, effect.beadId);
      case 'runAction':
        return runAction(run, effect.action, effect.purpose);
      case 'stop':
        if (effect.message) run.session.output.always(effect.message);
        return undefined;
    }
  }
}

/** Two turns of the event loop: the second has a poll phase, which delivers pending signals. */
function signalsDelivered(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
