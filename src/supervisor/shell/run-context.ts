// What every effect family of `helix run` shares (attempt.ts, queue.ts, drain.ts, recovery.ts, …):
// the session it runs in, the clock, the machine's state, this run's claims, the context of its
// agent calls, and the reads and writes all of them make — the tracker read with its one warning,
// the ready queue, run-state, a line of text/lines.ts.
import type { AgentPlan, DdxInstall } from '../../agents/index.js';
import { type Bead, type BeadStore, type Snapshot, problemsWarning, readyBeads } from '../../tracker/index.js';
import type { BuildPath } from '../core/dispatch.js';
import { type MachineState, initialState } from '../core/machine.js';
import type { SupervisorSettings } from '../core/policy.js';
import { type Say, UPKEEP, stamp } from '../text/lines.js';
import { type PromptPlace, promptPlaceOf } from '../text/prompts.js';
import { type CallContext, CallTotals } from './agent-call.js';
import { HeldClaims } from './claims.js';
import type { MemoryPort } from './memory-port.js';
import { type RunOutput, clockTime } from './output.js';
import { writeRunState } from './run-state.js';
import { RunRecord } from './run-record.js';
import type { EventBody } from '../core/run-events.js';
import { spendFields } from '../core/machine.js';

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
  /** The run's event log and notifier (`helix run`); without it, events go nowhere. */
  record?: RunRecord;
  /** When the run started (for --max-duration); default: when the context was made. */
  startedAt?: Date;
}

export class RunContext {
  readonly session: SupervisorEnvironment;
  readonly now: () => Date;
  /** The machine's state, as the last step left it. */
  state: MachineState = initialState();
  /** This run's live claims: the primary and its batch, released on every exit path. */
  readonly claims: HeldClaims;
  /** Every agent call of the run: its lines, its totals, and the loop's rules for start failures and lost beads. */
  readonly calls: CallContext;
  /** The run's event log and notifier. */
  readonly record: RunRecord;
  readonly startedAt: Date;
  /** The governing bead an alignment of this run holds across a limit wait; settled at the latest when the run ends. */
  governing: string | undefined;
  /**
   * When an alignment last finished (run-state's `last_alignment`, any run), written with every
   * persist: current DDx writes its own summary over run-state.json during `ddx try`.
   */
  lastAlignment: string | undefined;
  private warnedProblems = false;

  constructor(session: SupervisorEnvironment) {
    this.session = session;
    this.now = session.now ?? (() => new Date());
    this.startedAt = session.startedAt ?? this.now();
    this.record = session.record ?? new RunRecord(undefined, '-', {}, session.root, this.now, () => undefined);
    this.claims = new HeldClaims({
      store: session.store,
      now: this.now,
      say: (line) => this.say(line),
      snapshot: () => this.snapshot(),
      ready: (beads) => this.ready(beads),
      env: session.env,
      buildPath: session.buildPath,
      skipped: () => new Set(this.state.skipped.map((s) => s.id)),
    });
    this.calls = { output: session.output, env: session.env, signal: session.signal, now: this.now, totals: new CallTotals(), loop: { store: session.store }, tagActions: session.settings.jobs > 1 };
  }

  /** The tracker (a bead write's port). */
  get store(): BeadStore {
    return this.session.store;
  }

  /** Prints a line of lines.ts at its level; stamped lines get the wall-clock time. */
  say(line: Say): void {
    this.session.output.line(line.level, line.stamped ? stamp(clockTime(this.now()), line.text) : line.text, line.live);
  }

  /** Appends an event to the run's event log (one a notifier hears about is sent, not waited for). */
  event(body: EventBody): void {
    void this.record.record(body);
  }

  /** The tracker as it is now; damaged lines are reported once per run. */
  snapshot(): Snapshot {
    const snapshot = this.session.store.read();
    if (snapshot.problems.length > 0 && !this.warnedProblems) {
      this.warnedProblems = true;
      this.session.output.always(problemsWarning(this.session.store.file, snapshot.problems));
    }
    return snapshot;
  }

  /** Execution-ready beads, leaving out those a live DDx worker lease holds (DDx leaves them `open`). */
  ready(beads: Bead[]): Bead[] {
    const now = this.now();
    return readyBeads(beads, { execution: true, now, held: this.session.store.leased(now) });
  }

  readyCount(): number {
    return this.ready(this.snapshot().beads).length;
  }

  /** Where prompts run: the repository, the tracker, the session log and the tracker's command. */
  promptPlace(): PromptPlace {
    return promptPlaceOf(this.session, this.session.output.logName);
  }

  /** Merges the run's counters and `extra` into run-state; a failed write is said, never fatal. */
  persist(extra: Record<string, unknown> = {}): void {
    const s = this.state;
    try {
      writeRunState(this.session.store.dir, {
        focused_epic: s.focusedEpic ?? null,
        completed_cycles: s.completed,
        attempted_cycles: s.attempted,
        skipped_count: s.skipped.length,
        total_tokens: s.tokens,
        // null, not absent: the file is merged, and a previous run's cost must not survive.
        total_cost_usd: s.costUsd !== undefined ? Number(s.costUsd.toFixed(6)) : null,
        // what the budget caps count: the cost of calls that reported none is not in cost_usd
        spent: spendFields(s.spend),
        // the run's event log (helix build writes none: the last run's stays named)
        ...(this.record.path ? { events: this.record.path } : {}),
        last_run: this.now().toISOString(),
        agent: this.session.plan.primary.agent,
        log: this.session.output.logName,
        run_pid: process.pid,
        ...(this.lastAlignment ? { last_alignment: this.lastAlignment } : {}),
        ...extra,
      });
    } catch (error) {
      this.say(UPKEEP.runStateFailed((error as Error).message));
    }
  }
}
