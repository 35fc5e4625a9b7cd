// `helix run`: the bounded supervisor loop and its --dry-run. Takes plain options and returns its
// exit code and the lines it leaves for the terminal (src/cli/commands/run.ts and start.ts call it).
import { SURFACE_COMMANDS, describeDdx, formatDryRun } from '../../agents/index.js';
import { EXIT, HelixError, isHelixError } from '../../errors.js';
import { excludeRuntimeFiles, readyBeads, readyEpics } from '../../tracker/index.js';
import { type InterruptWatch, watchInterrupts } from './interrupts.js';
import type { MemoryPort } from './memory-port.js';
import { type RunSummary, Supervisor } from './runner.js';
import { acquireRunMutex } from './mutex.js';
import { countInRunState, writeRunState } from './run-state.js';
import { type CommandResult, SILENT_OUTPUT, SessionOutput, clockTime } from './output.js';
import { LiveBoard } from './live-board.js';
import { liveBoardWanted } from '../core/progress-mode.js';
import { type SupervisorSettings, defaultSettings } from '../core/policy.js';
import { actionPrompt, promptPlaceOf } from '../text/prompts.js';
import { actionInvocation } from '../core/dispatch.js';
import { RUN, type Say } from '../text/lines.js';
import { SETUP } from '../text/setup.js';
import { type Session, prepareSession } from './agent-setup.js';
import { assertDdxCanBuild, ddxRuntimeIgnored } from './ddx-repository.js';
import { selectNext } from '../core/selection.js';
import { RunRecord, eventLogPath, runIdOf } from './run-record.js';
import { type CommandOptions, type RunOptions, interruptedBeforeStart, printBuildCommand } from './run-options.js';
import { removeGateCheck } from './gate-check.js';

export type { CommandOptions, RunOptions } from './run-options.js';

/** `helix run`: the bounded supervisor loop. */
export async function runLoop(options: RunOptions): Promise<CommandResult> {
  const settings: SupervisorSettings = { ...defaultSettings(options.env), ...options.settings };
  if (options.dryRun) return dryRunNext(options);
  // Watched from the first step: a signal or a lost reader at any point ends the run through the
  // one exit path below, never through Node's default (which would skip the release).
  return watchInterrupts(async (watch) => {
    // Tools first: a run that cannot start an agent must not touch the tracker. A run refused here
    // (no agent, another run active) never started, so it prints no run-complete line.
    let session: Session;
    try {
      session = await prepareSession(options.cwd, options.env, options, true, watch.signal);
    } catch (error) {
      // an interrupted probe of ddx can look like a missing tool: the interrupt is the reason
      if (watch.received) return interruptedBeforeStart(watch.received);
      throw error;
    }
    if (watch.received) return interruptedBeforeStart(watch.received);
    // several builds at once need DDx's worktrees and leases: one line, before anything is taken
    if (settings.jobs > 1 && session.buildPath !== 'try') throw new HelixError('validation', RUN.jobsNeedCurrentDdx(settings.jobs, session.buildPath));
    if (settings.jobs > 1 && !ddxRuntimeIgnored(session.root)) throw new HelixError('repositoryState', RUN.jobsNeedDdxIgnores(settings.jobs));
    let releaseMutex: () => void;
    try {
      releaseMutex = acquireRunMutex(session.store.dir);
    } catch (error) {
      // A refused run is counted where the running one keeps its state (docs/contract/bash-interface.md §2.2).
      if (isHelixError(error) && error.kind === 'runActive') countInRunState(session.store.dir, 'parallel_run_denied_count');
      throw error;
    }
    try {
      // After the mutex: a second run is refused as already running, whatever the first one's
      // agent has left in the tree meanwhile.
      assertDdxCanBuild(session, options.env);
      return { exitCode: await superviseRun(session, options, settings, watch) };
    } finally {
      releaseMutex();
    }
  });
}

/** The run between taking the mutex and giving it back, with its one exit path. */
async function superviseRun(session: Session, options: RunOptions, settings: SupervisorSettings, watch: InterruptWatch): Promise<number> {
  excludeRuntimeFiles(session.root);
  // on a terminal the board shows what each slot does; its lines and answers print above it
  let board: LiveBoard | undefined;
  const output = new SessionOutput(session.root, options.mode, new Date(), (text) => (board ? board.above('stderr', text) : process.stderr.write(text)), (text) => (board ? board.above('stdout', text) : process.stdout.write(text)));
  for (const line of [RUN.runStarted(process.pid, session.plan.primary.agent, session.buildPath, output.logName), RUN.ddxDescribed(describeDdx(session.ddx)), ...setupLines(session, options.env)]) {
    output.line(line.level, line.text);
  }
  let supervisor: Supervisor | undefined;
  let memory: MemoryPort | undefined;
  let outcome: { value: RunSummary } | { error: unknown };
  const startedAt = new Date();
  const record = new RunRecord(eventLogPath(output.logName), runIdOf(output.logName), options.env, session.root, () => new Date(), (line) => output.line(line.level, line.text));
  if (liveBoardWanted(options.progress ?? 'auto', process.stderr.isTTY === true, options.env)) {
    board = new LiveBoard(eventLogPath(output.logName), process.stderr, process.stdout, (ms) => clockTime(new Date(ms)).slice(0, 5));
    output.underBoard = true;
    record.recorded = () => board?.refresh();
  }
  try {
    const { beads } = session.store.read();
    // a new project: the run still asks the check (docs/contract/bash-interface.md §2.11), and says so first
    if (beads.length === 0) {
      const empty = RUN.emptyBacklog(session.store.file);
      output.line(empty.level, empty.text);
    }
    memory = options.memory ?? (options.openMemory ? await options.openMemory(session.root, (line) => output.always(line)) : undefined);
    writeRunState(session.store.dir, { memory_status: memory ? 'on' : options.openMemory ? 'unavailable' : 'off' });
    const ready = readyBeads(beads, { execution: true, held: session.store.leased() }).length;
    // `open`: the backlog the run may reach (`helix log -f`'s bead n of m), not only what is ready now
    const open = beads.filter((b) => b.status === 'open' || b.status === 'in_progress').length;
    await record.record({ type: 'run_start', pid: process.pid, ready, open, agent: session.plan.primary.agent, root: session.root, jobs: settings.jobs });
    board?.start();
    supervisor = new Supervisor({ ...session, env: options.env, settings, output, memory, signal: watch.signal, record, startedAt });
    outcome = { value: await supervisor.run() };
  } catch (error) {
    outcome = { error };
  }
  // The one exit path: release what is held, say why the run ended, record run-state — below the board, gone now.
  board?.stop();
  board = undefined;
  let exitCode: number;
  let reason: string;
  let detail = '';
  let interruptedBy: string | null = null;
  const interrupt = watch.received;
  if ('value' in outcome) {
    exitCode = outcome.value.exitCode;
    reason = outcome.value.state.stop?.reason ?? 'completed';
  } else if (interrupt) {
    const released = supervisor?.abandonAttempt(interrupt.exitCode) ?? [];
    output.always(RUN.interrupted(interrupt.what, released));
    detail = RUN.interrupted(interrupt.what, released);
    exitCode = interrupt.exitCode;
    reason = 'stopped';
    interruptedBy = interrupt.cause;
  } else {
    const error = outcome.error;
    exitCode = isHelixError(error) ? error.exitCode : EXIT.error;
    supervisor?.abandonAttempt(exitCode);
    output.always(isHelixError(error) ? error.message : RUN.runFailed((error as Error)?.stack ?? String(error)));
    detail = isHelixError(error) ? error.message : RUN.runFailed(String((error as Error)?.message ?? error));
    reason = 'error';
  }
  try {
    await supervisor?.gatherSystemic();
    await supervisor?.finish(reason, exitCode, detail, { interrupted_by: interruptedBy });
  } finally {
    memory?.close?.();
    record.close();
    // issue 32: helix's pre-merge check lives as long as the run (installed before each `ddx try`)
    removeGateCheck(session.root);
  }
  return exitCode;
}

/** What the run says once about its agents: who does what, what fell back, HELIX_DIRECT_AGENT's rule. */
function setupLines(session: Session, env: NodeJS.ProcessEnv): Say[] {
  const lines = [SETUP.agents(session.plan, session.installedAgents, session.agentNamed), ...(session.plan.fallbacks ?? []).map(SETUP.fallback)];
  if (env.HELIX_DIRECT_AGENT === '1' && session.buildPath !== 'direct' && session.ddx?.surface) {
    lines.push(SETUP.directActionsOnly(session.plan.primary.agent, SURFACE_COMMANDS[session.ddx.surface].build));
  }
  return lines;
}

/** `run --dry-run`: the exact command the next step would run; nothing is claimed or started. */
async function dryRunNext(options: CommandOptions): Promise<CommandResult> {
  const session = await prepareSession(options.cwd, options.env, options, false);
  const { beads } = session.store.read();
  const held = session.store.leased();
  const ready = readyBeads(beads, { execution: true, held });
  const selection = selectNext({ ready, epics: readyEpics(beads, { held }), beads, focusedEpic: undefined, excluded: new Set() });
  if (selection.kind === 'attempt') return printBuildCommand(session, options.env, selection.bead, beads, ready);
  const setup = { ...session, env: options.env };
  const { invocation } = actionInvocation(setup, 'check', actionPrompt('check', { ...promptPlaceOf(setup, SILENT_OUTPUT.logName), scope: 'repo' }));
  return { exitCode: EXIT.ok, stdout: [formatDryRun(invocation)] };
}
