// The supervisor's entry points, one per command: run the loop, one build pass, one check, a
// dry run. Each takes plain options and returns its exit code and the lines it leaves for the
// terminal (a CommandResult); src/cli/commands/run.ts, build.ts and check.ts turn flags into these
// options and print the result.
import { SURFACE_COMMANDS, describeDdx, formatDryRun, parseNextAction } from '../../agents/index.js';
import { HelixError, isHelixError, EXIT } from '../../errors.js';
import { excludeRuntimeFiles, readyBeads, readyEpics } from '../../tracker/index.js';
import { type Interrupt, type InterruptWatch, watchInterrupts } from './interrupts.js';
import type { MemoryPort } from './memory-port.js';
import { type BuildResult, type RunSummary, Supervisor } from './runner.js';
import { acquireRunMutex } from './mutex.js';
import { countInRunState, writeRunState } from './run-state.js';
import { type CommandResult, type OutputMode, SILENT_OUTPUT, SessionOutput } from './output.js';
import { type SupervisorSettings, defaultSettings } from '../core/policy.js';
import { actionPrompt, implementationPrompt, promptPlaceOf } from '../text/prompts.js';
import { actionCommand, buildCommand, ownershipOf, rotationLine } from '../core/dispatch.js';
import { callOnce } from './one-shot.js';
import { answerOf } from './agent-call.js';
import { BUILD, RUN, type Say } from '../text/lines.js';
import { SETUP } from '../text/setup.js';
import { type Session, prepareSession, type SessionFlags } from './session.js';
import { assertDdxCanBuild } from './ddx-repository.js';
import { removeGateCheck } from './gate-check.js';
import type { Bead } from '../../tracker/index.js';
import { selectNext } from '../core/selection.js';
import { renderContext } from './context.js';
import { RunRecord, eventLogPath, runIdOf } from './run-record.js';

export interface CommandOptions extends SessionFlags {
  cwd: string;
  env: NodeJS.ProcessEnv;
  mode: OutputMode;
  dryRun?: boolean;
}

export interface RunOptions extends CommandOptions {
  settings?: Partial<SupervisorSettings>;
  memory?: MemoryPort;
  /** Opens the memory port once the session is known (the run loop's learning hooks). */
  openMemory?: (root: string, say: (line: string) => void) => Promise<MemoryPort | undefined>;
}

/** The line for an interrupt that came before anything was claimed or started. */
function interruptedBeforeStart(interrupt: Interrupt): CommandResult {
  return { exitCode: interrupt.exitCode, stderr: [RUN.interruptedBeforeStart(interrupt.what)] };
}

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
  const output = new SessionOutput(session.root, options.mode);
  for (const line of [RUN.runStarted(process.pid, session.plan.primary.agent, session.buildPath, output.logName), RUN.ddxDescribed(describeDdx(session.ddx)), ...setupLines(session, options.env)]) {
    output.line(line.level, line.text);
  }
  let supervisor: Supervisor | undefined;
  let memory: MemoryPort | undefined;
  let outcome: { value: RunSummary } | { error: unknown };
  const startedAt = new Date();
  const record = new RunRecord(eventLogPath(output.logName), runIdOf(output.logName), options.env, session.root, () => new Date(), (line) => output.line(line.level, line.text));
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
    await record.record({ type: 'run_start', pid: process.pid, ready, open, agent: session.plan.primary.agent, root: session.root });
    supervisor = new Supervisor({ ...session, env: options.env, settings, output, memory, signal: watch.signal, record, startedAt });
    outcome = { value: await supervisor.run() };
  } catch (error) {
    outcome = { error };
  }
  // The one exit path: release what is held, say why the run ended, record run-state.
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
  const { command } = actionCommand(setup, 'check', actionPrompt('check', { ...promptPlaceOf(setup, SILENT_OUTPUT.logName), scope: 'repo' }));
  return { exitCode: EXIT.ok, stdout: [formatDryRun(command)] };
}

/** `--dry-run` of a build: the exact command, with the prompt helix would write; nothing runs. */
function printBuildCommand(session: Session, env: NodeJS.ProcessEnv, bead: Bead, beads: Bead[], ready: Bead[]): CommandResult {
  const setup = { ...session, env };
  const place = promptPlaceOf(setup, SILENT_OUTPUT.logName);
  const context = renderContext({ root: session.root, trackerFile: session.store.file, beads, readyCount: ready.length, focusedEpic: undefined, trackerCli: place.trackerCli });
  const prompt = implementationPrompt({ ...place, bead, context, ownership: ownershipOf(session.buildPath) });
  // The placeholder of an empty queue is printed as the Bash CLI printed it: bare, not quoted.
  const line = formatDryRun(buildCommand(setup, bead.id, prompt)).replaceAll(`'${BUILD.placeholderId}'`, BUILD.placeholderId);
  return { exitCode: EXIT.ok, stdout: [line] };
}

/** `helix build [selector]`: one bounded implementation pass on one execution-ready bead. */
export async function buildOnce(options: CommandOptions & { selector?: string; openMemory?: RunOptions['openMemory'] }): Promise<CommandResult> {
  const session = await prepareSession(options.cwd, options.env, options, !options.dryRun);
  if (options.dryRun) return buildDryRun(session, options);
  // A build is a run of one bead: it holds the run mutex, so it never writes its claim, run_pid and
  // log over a live run's run-state (whose recovery trusts run_pid), and `helix stop` reaches it.
  let releaseMutex: () => void;
  try {
    releaseMutex = acquireRunMutex(session.store.dir);
  } catch (error) {
    if (isHelixError(error) && error.kind === 'runActive') throw new HelixError('runActive', BUILD.runActive(error.message));
    throw error;
  }
  try {
    // after the mutex, as for a run: a refused build says a run is active, not what its agent left
    assertDdxCanBuild(session, options.env);
    const { ready, bead } = buildCandidates(session, options.selector);
    if (!bead) throw new HelixError('error', BUILD.noMatch);
    return await buildHoldingMutex(session, options, bead, ready);
  } finally {
    releaseMutex();
  }
}

/** The bead file, its execution-ready beads and the one the selector picks (if any). */
function buildCandidates(session: Session, selector: string | undefined): { beads: Bead[]; ready: Bead[]; bead: Bead | undefined } {
  const { beads } = session.store.read();
  const ready = readyBeads(beads, { execution: true, held: session.store.leased() });
  return { beads, ready, bead: resolveSelector(ready, selector) };
}

/** `helix build --dry-run`: the command a build would run; nothing is taken or written. */
function buildDryRun(session: Session, options: CommandOptions & { selector?: string }): CommandResult {
  const { beads, ready, bead } = buildCandidates(session, options.selector);
  if (!bead && !options.selector) {
    // Nothing ready: the Bash CLI printed the command with a placeholder and exited 0 (§11).
    const placeholder: Bead = { id: BUILD.placeholderId, title: '?', status: 'open', priority: 2 };
    return printBuildCommand(session, options.env, placeholder, beads, ready);
  }
  if (!bead) throw new HelixError('error', BUILD.noMatch);
  return printBuildCommand(session, options.env, bead, beads, ready);
}

async function buildHoldingMutex(session: Session, options: CommandOptions & { openMemory?: RunOptions['openMemory'] }, bead: Bead, ready: Bead[]): Promise<CommandResult> {
  excludeRuntimeFiles(session.root);
  const output = new SessionOutput(session.root, options.mode);
  return watchInterrupts(async (watch): Promise<CommandResult> => {
    let supervisor: Supervisor | undefined;
    let memory: MemoryPort | undefined;
    let outcome: { value: BuildResult } | { error: unknown };
    try {
      memory = options.openMemory ? await options.openMemory(session.root, (line) => output.always(line)) : undefined;
      supervisor = new Supervisor({ ...session, env: options.env, settings: { ...defaultSettings(options.env), maxCycles: 1 }, output, memory, signal: watch.signal });
      outcome = { value: await supervisor.buildOnce(bead, ready) };
    } catch (error) {
      outcome = { error };
    } finally {
      memory?.close?.();
      // issue 32: helix's pre-merge check lives as long as the build (installed before its `ddx try`)
      removeGateCheck(session.root);
    }
    if (!('value' in outcome)) {
      const released = supervisor?.releaseHeldClaims() ?? [];
      const interrupt = watch.received;
      if (!interrupt) throw outcome.error;
      output.always(RUN.interrupted(interrupt.what, released));
      return { exitCode: interrupt.exitCode };
    }
    return { exitCode: buildVerdict(output, bead, outcome.value) };
  });
}

function buildVerdict(output: SessionOutput, bead: Bead, result: BuildResult): number {
  if (result.kind === 'completed') return EXIT.ok;
  if (result.kind === 'limited') {
    const { agent, kind, resetsAt, detail } = result.limit;
    output.always(BUILD.limited(bead.id, `${agent} ${kind} limit${resetsAt !== undefined ? `, resets at ${new Date(resetsAt).toISOString()}` : ''}: ${detail}`));
    return EXIT.limitWait;
  }
  if (result.kind === 'unavailable') {
    const { kind, what, detail } = result.problem;
    output.always(kind === 'setup' ? SETUP.setupStop(what, detail, bead.id, result.problem.fix) : SETUP.infrastructureStop(1, what, detail));
    return EXIT.setup;
  }
  output.always(BUILD.notCompleted(bead.id, 'detail' in result ? result.detail : result.kind));
  return EXIT.error;
}

/**
 * The build selector (docs/contract/bash-interface.md §11): the first ready bead, in ready order, whose id, parent
 * or spec-id equals it, that carries it as a label, or whose title contains it. helix also takes
 * a unique id suffix or a unique case-insensitive title match. No selector: the first ready bead.
 */
export function resolveSelector<T extends { id: string; title: string; parent?: string; labels?: string[]; [key: string]: unknown }>(ready: T[], selector: string | undefined): T | undefined {
  if (!selector) return ready[0];
  const first = ready.find(
    (b) =>
      b.id === selector ||
      b.parent === selector ||
      b['spec-id'] === selector ||
      (Array.isArray(b.labels) && b.labels.includes(selector)) ||
      (typeof b.title === 'string' && b.title.includes(selector)),
  );
  if (first) return first;
  const bySuffix = ready.filter((b) => b.id.endsWith(`-${selector}`) || b.id.endsWith(selector));
  if (bySuffix.length === 1) return bySuffix[0];
  const needle = selector.toLowerCase();
  const byTitle = ready.filter((b) => b.title.toLowerCase().includes(needle));
  return byTitle.length === 1 ? byTitle[0] : undefined;
}

/** `helix check [scope]`: prints the check's answer; exit 0 when it named a NEXT_ACTION (docs/contract/cli.md §2). */
export async function checkOnce(options: CommandOptions & { scope?: string }): Promise<CommandResult> {
  const session = await prepareSession(options.cwd, options.env, options, !options.dryRun);
  if (!options.dryRun) assertDdxCanBuild(session, options.env);
  if (!options.dryRun) excludeRuntimeFiles(session.root);
  const output = options.dryRun ? SILENT_OUTPUT : new SessionOutput(session.root, options.mode);
  const setup = { ...session, env: options.env };
  const { command, call: callInfo } = actionCommand(setup, 'check', actionPrompt('check', { ...promptPlaceOf(setup, output.logName), scope: options.scope ?? 'repo' }));
  if (options.dryRun) return { exitCode: EXIT.ok, stdout: [formatDryRun(command)] };
  const rotated = rotationLine(session.plan, 'check');
  if (rotated) output.line(rotated.level, rotated.text);
  const call = await callOnce(output, options.env, command, callInfo);
  if ('interrupt' in call) {
    output.always(RUN.interrupted(call.interrupt.what, []));
    return { exitCode: call.interrupt.exitCode };
  }
  const run = call.value;
  // The agent's final answer, never its transcript (that is in the session log).
  output.answer(answerOf(run));
  if (!parseNextAction(answerOf(run))) {
    output.always(RUN.noNextAction);
    return { exitCode: EXIT.error };
  }
  return { exitCode: EXIT.ok };
}
