// The supervisor's entry points, one per command: run the loop, one build pass, one check, a
// dry run. Each takes plain options and returns an exit code; src/cli only parses and prints.
import { formatDryRun, parseNextAction } from '../agents/index.js';
import { HelixError, isHelixError, EXIT } from '../errors.js';
import { excludeRuntimeFiles, readyBeads } from '../tracker/index.js';
import { type MemoryPort, RunInterrupted, Supervisor, type SupervisorEnvironment } from './runner.js';
import { acquireRunMutex } from './mutex.js';
import { countInRunState, writeRunState } from './run-state.js';
import { type OutputMode, SILENT_OUTPUT, SessionOutput } from './output.js';
import { type SupervisorSettings, defaultSettings } from './policy.js';
import { actionPrompt, implementationPrompt } from './prompts.js';
import { answerOf } from './agent-call.js';
import { BUILD, RUN } from './lines.js';
import { type Session, prepareSession, type SessionFlags } from './session.js';
import type { Bead } from '../tracker/index.js';
import { selectNext } from './selection.js';
import { renderContext } from './context.js';

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

const SIGNAL_EXIT: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

/** Runs `body` with SIGINT/SIGTERM turned into an abort; returns the signal that arrived, if any. */
async function withSignals<T>(body: (signal: AbortSignal) => Promise<T>): Promise<{ value?: T; error?: unknown; signal?: string }> {
  const controller = new AbortController();
  let received: string | undefined;
  const onSignal = (name: string) => () => {
    received = name;
    controller.abort();
  };
  const handlers = { SIGINT: onSignal('SIGINT'), SIGTERM: onSignal('SIGTERM') };
  process.on('SIGINT', handlers.SIGINT);
  process.on('SIGTERM', handlers.SIGTERM);
  try {
    return { value: await body(controller.signal), signal: received };
  } catch (error) {
    return { error, signal: received };
  } finally {
    process.off('SIGINT', handlers.SIGINT);
    process.off('SIGTERM', handlers.SIGTERM);
  }
}

/** `helix run`: the bounded supervisor loop. */
export async function runLoop(options: RunOptions): Promise<number> {
  const settings: SupervisorSettings = { ...defaultSettings(options.env), ...options.settings };
  if (options.dryRun) return dryRunNext(options);
  // Tools first: a run that cannot start an agent must not touch the tracker. A run refused here
  // (no agent, another run active) never started, so it prints no run-complete line.
  const session = await prepareSession(options.cwd, options.env, options);
  let releaseMutex: () => void;
  try {
    releaseMutex = acquireRunMutex(session.store.dir);
  } catch (error) {
    // A refused run is counted where the running one keeps its state (bash-interface §2.2).
    if (isHelixError(error) && error.kind === 'runActive') countInRunState(session.store.dir, 'parallel_run_denied_count');
    throw error;
  }
  excludeRuntimeFiles(session.root);
  const output = new SessionOutput(session.root, options.mode);
  const started = RUN.runStarted(process.pid, session.plan.primary.agent, session.buildPath, output.logName);
  output.line(started.level, started.text);
  let supervisor: Supervisor | undefined;
  let memory: MemoryPort | undefined;
  const outcome = await withSignals(async (signal) => {
    memory = options.memory ?? (options.openMemory ? await options.openMemory(session.root, (line) => output.always(line)) : undefined);
    writeRunState(session.store.dir, { memory_status: memory ? 'on' : options.openMemory ? 'unavailable' : 'off' });
    const ctx: SupervisorEnvironment = { ...session, env: options.env, settings, output, memory, signal };
    supervisor = new Supervisor(ctx);
    return supervisor.run();
  });
  let exitCode: number;
  let reason: string;
  if (outcome.value) {
    exitCode = outcome.value.exitCode;
    reason = outcome.value.state.stop?.reason ?? 'completed';
  } else if (outcome.signal || outcome.error instanceof RunInterrupted) {
    const released = supervisor?.abandonAttempt() ?? [];
    output.always(RUN.interrupted(outcome.signal ?? 'signal', released));
    exitCode = SIGNAL_EXIT[outcome.signal ?? 'SIGTERM'] ?? EXIT.error;
    reason = 'error';
  } else {
    supervisor?.abandonAttempt();
    const error = outcome.error;
    output.always(isHelixError(error) ? error.message : `helix: run failed: ${(error as Error)?.stack ?? String(error)}`);
    exitCode = isHelixError(error) ? error.exitCode : EXIT.error;
    reason = 'error';
  }
  try {
    await supervisor?.gatherSystemic();
    supervisor?.finish(reason);
  } finally {
    memory?.close?.();
    releaseMutex();
  }
  return exitCode;
}

/** `run --dry-run`: the exact command the next step would run; nothing is claimed or started. */
async function dryRunNext(options: CommandOptions): Promise<number> {
  const session = await prepareSession(options.cwd, options.env, options, false);
  const { beads } = session.store.read();
  const ready = readyBeads(beads, { execution: true });
  const selection = selectNext({ ready, beads, focusedEpic: undefined, excluded: new Set() });
  if (selection.kind === 'attempt') return printBuildCommand(session, options.env, selection.bead, beads, ready);
  const supervisor = new Supervisor({ ...session, env: options.env, settings: defaultSettings(options.env), output: SILENT_OUTPUT });
  const { command } = supervisor.actionCommand('check', actionPrompt('check', { ...supervisor.promptPlace(), scope: 'repo' }));
  process.stdout.write(`${formatDryRun(command)}\n`);
  return EXIT.ok;
}

/** `--dry-run` of a build: the exact command, with the prompt helix would write; nothing runs. */
function printBuildCommand(session: Session, env: NodeJS.ProcessEnv, bead: Bead, beads: Bead[], ready: Bead[]): number {
  const supervisor = new Supervisor({ ...session, env, settings: defaultSettings(env), output: SILENT_OUTPUT });
  const place = supervisor.promptPlace();
  const context = renderContext({ root: session.root, trackerFile: session.store.file, beads, readyCount: ready.length, focusedEpic: undefined, trackerCli: place.trackerCli });
  const ownership = session.buildPath === 'execute-bead' ? 'helix-closes' : session.buildPath === 'execute-loop' ? 'ddx-owns' : 'agent-closes';
  const prompt = implementationPrompt({ ...place, bead, context, ownership });
  // The placeholder of an empty queue is printed as the Bash CLI printed it: bare, not quoted.
  const line = formatDryRun(supervisor.buildCommand(bead, prompt, false)).replaceAll(`'${BUILD.placeholderId}'`, BUILD.placeholderId);
  process.stdout.write(`${line}\n`);
  return EXIT.ok;
}

/** `helix build [selector]`: one bounded implementation pass on one execution-ready bead. */
export async function buildOnce(options: CommandOptions & { selector?: string; openMemory?: RunOptions['openMemory'] }): Promise<number> {
  const session = await prepareSession(options.cwd, options.env, options, !options.dryRun);
  const { beads } = session.store.read();
  const ready = readyBeads(beads, { execution: true });
  const bead = resolveSelector(ready, options.selector);
  if (options.dryRun && !bead && !options.selector) {
    // Nothing ready: the Bash CLI printed the command with a placeholder and exited 0 (§11).
    const placeholder: Bead = { id: BUILD.placeholderId, title: '?', status: 'open', priority: 2 };
    return printBuildCommand(session, options.env, placeholder, beads, ready);
  }
  if (!bead) throw new HelixError('error', BUILD.noMatch);
  if (options.dryRun) return printBuildCommand(session, options.env, bead, beads, ready);
  excludeRuntimeFiles(session.root);
  const output = new SessionOutput(session.root, options.mode);
  let supervisor: Supervisor | undefined;
  const memory = options.openMemory ? await options.openMemory(session.root, (line) => output.always(line)) : undefined;
  const outcome = await withSignals(async (signal) => {
    supervisor = new Supervisor({ ...session, env: options.env, settings: { ...defaultSettings(options.env), maxCycles: 1 }, output, memory, signal });
    return supervisor.buildOnce(bead, ready);
  }).finally(() => memory?.close?.());
  if (!outcome.value) {
    const released = supervisor?.releaseHeldClaims() ?? [];
    if (outcome.error && !(outcome.error instanceof RunInterrupted) && !outcome.signal) throw outcome.error;
    output.always(RUN.interrupted(outcome.signal ?? 'signal', released));
    return SIGNAL_EXIT[outcome.signal ?? 'SIGTERM'] ?? EXIT.error;
  }
  const result = outcome.value;
  if (result.kind === 'completed') return EXIT.ok;
  output.always(BUILD.notCompleted(bead.id, 'detail' in result ? result.detail : result.kind));
  return EXIT.error;
}

/**
 * The build selector (bash-interface §11): the first ready bead, in ready order, whose id, parent
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

/** `helix check [scope]`: prints the check's answer; exit 0 when it named a NEXT_ACTION (cli.md §2). */
export async function checkOnce(options: CommandOptions & { scope?: string }): Promise<number> {
  const session = await prepareSession(options.cwd, options.env, options, !options.dryRun);
  if (!options.dryRun) excludeRuntimeFiles(session.root);
  const output = options.dryRun ? SILENT_OUTPUT : new SessionOutput(session.root, options.mode);
  const supervisor = new Supervisor({ ...session, env: options.env, settings: defaultSettings(options.env), output });
  const { command, call } = supervisor.actionCommand('check', actionPrompt('check', { ...supervisor.promptPlace(), scope: options.scope ?? 'repo' }));
  if (options.dryRun) {
    process.stdout.write(`${formatDryRun(command)}\n`);
    return EXIT.ok;
  }
  supervisor.announceRotation('check');
  const run = await supervisor.runAgent(command, call);
  // The agent's final answer, never its transcript (that is in the session log).
  output.answer(answerOf(run));
  if (!parseNextAction(answerOf(run))) {
    output.always(RUN.noNextAction);
    return EXIT.error;
  }
  return EXIT.ok;
}
