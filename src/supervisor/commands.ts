// The supervisor's entry points, one per command: run the loop, one build pass, one check, a
// dry run. Each takes plain options and returns an exit code; src/cli only parses and prints.
import { describeDdx, formatDryRun, parseNextAction } from '../agents/index.js';
import { HelixError, isHelixError, EXIT } from '../errors.js';
import { excludeRuntimeFiles, readyBeads, readyEpics } from '../tracker/index.js';
import { type Interrupt, type InterruptWatch, untilInterrupted, watchInterrupts } from './interrupts.js';
import type { AttemptOutcome } from './machine.js';
import { type MemoryPort, type RunSummary, Supervisor } from './runner.js';
import { acquireRunMutex } from './mutex.js';
import { writeRunState } from './run-state.js';
import { type OutputMode, SILENT_OUTPUT, SessionOutput } from './output.js';
import { type SupervisorSettings, defaultSettings } from './policy.js';
import { actionPrompt, implementationPrompt } from './prompts.js';
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

/** The tail of the interrupted line: which claims (the primary and its batch) were released. */
function releasedNote(ids: string[]): string {
  if (ids.length === 0) return '';
  return ids.length === 1 ? `; claim on ${ids[0]} released` : `; claims on ${ids.join(', ')} released`;
}

/** The line for an interrupt that came before anything was claimed or started. */
function interruptedBeforeStart(interrupt: Interrupt): number {
  process.stderr.write(`helix: interrupted by ${interrupt.what} before the run started; nothing was changed\n`);
  return interrupt.exitCode;
}

/** `helix run`: the bounded supervisor loop. */
export async function runLoop(options: RunOptions): Promise<number> {
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
    const releaseMutex = acquireRunMutex(session.store.dir);
    try {
      return await superviseRun(session, options, settings, watch);
    } finally {
      releaseMutex();
    }
  });
}

/** The run between taking the mutex and giving it back, with its one exit path. */
async function superviseRun(session: Session, options: RunOptions, settings: SupervisorSettings, watch: InterruptWatch): Promise<number> {
  excludeRuntimeFiles(session.root);
  const output = new SessionOutput(session.root, options.mode);
  output.verbose(`helix: run started (pid=${process.pid}, agent=${session.plan.primary.agent}, build path=${session.buildPath}, log=${output.logName})`);
  output.verbose(`helix: DDx: ${describeDdx(session.ddx)}`);
  let supervisor: Supervisor | undefined;
  let memory: MemoryPort | undefined;
  let outcome: { value: RunSummary } | { error: unknown };
  try {
    memory = options.memory ?? (options.openMemory ? await options.openMemory(session.root, (line) => output.summary(line)) : undefined);
    writeRunState(session.store.dir, { memory_status: memory ? 'on' : options.openMemory ? 'unavailable' : 'off' });
    supervisor = new Supervisor({ ...session, env: options.env, settings, output, memory, signal: watch.signal });
    outcome = { value: await supervisor.run() };
  } catch (error) {
    outcome = { error };
  }
  // The one exit path: release what is held, say why the run ended, record run-state.
  let exitCode: number;
  let reason: string;
  let interruptedBy: string | null = null;
  const interrupt = watch.received;
  if ('value' in outcome) {
    exitCode = outcome.value.exitCode;
    reason = outcome.value.state.stop?.reason ?? 'completed';
  } else if (interrupt) {
    const released = supervisor?.abandonAttempt() ?? [];
    output.summary(`helix: interrupted by ${interrupt.what}${releasedNote(released)}`);
    exitCode = interrupt.exitCode;
    reason = 'error';
    interruptedBy = interrupt.cause;
  } else {
    supervisor?.abandonAttempt();
    const error = outcome.error;
    output.summary(isHelixError(error) ? error.message : `helix: run failed: ${(error as Error)?.stack ?? String(error)}`);
    exitCode = isHelixError(error) ? error.exitCode : EXIT.error;
    reason = 'error';
  }
  try {
    await supervisor?.gatherSystemic();
    supervisor?.finish(reason, { interrupted_by: interruptedBy });
  } finally {
    memory?.close?.();
  }
  return exitCode;
}

/** `run --dry-run`: the exact command the next step would run; nothing is claimed or started. */
async function dryRunNext(options: CommandOptions): Promise<number> {
  const session = await prepareSession(options.cwd, options.env, options, false);
  const { beads } = session.store.read();
  const held = session.store.leased();
  const ready = readyBeads(beads, { execution: true, held });
  const selection = selectNext({ ready, epics: readyEpics(beads, { held }), beads, focusedEpic: undefined, excluded: new Set() });
  if (selection.kind === 'attempt') return printBuildCommand(session, options.env, selection.bead, beads, ready);
  const supervisor = new Supervisor({ ...session, env: options.env, settings: defaultSettings(options.env), output: SILENT_OUTPUT });
  const { command } = supervisor.actionCommand('check', actionPrompt('check', { scope: 'repo', env: options.env }));
  process.stdout.write(`${formatDryRun(command)}\n`);
  return EXIT.ok;
}

/** `--dry-run` of a build: the exact command, with the prompt helix would write; nothing runs. */
function printBuildCommand(session: Session, env: NodeJS.ProcessEnv, bead: Bead, beads: Bead[], ready: Bead[]): number {
  const supervisor = new Supervisor({ ...session, env, settings: defaultSettings(env), output: SILENT_OUTPUT });
  const context = renderContext({ root: session.root, trackerFile: session.store.file, beads, readyCount: ready.length, focusedEpic: undefined });
  const prompt = implementationPrompt({ bead, context, helixCloses: session.buildPath === 'execute-bead', env });
  process.stdout.write(`${formatDryRun(supervisor.buildCommand(bead, prompt, false))}\n`);
  return EXIT.ok;
}

/** `helix build [selector]`: one bounded implementation pass on one execution-ready bead. */
export async function buildOnce(options: CommandOptions & { selector?: string; openMemory?: RunOptions['openMemory'] }): Promise<number> {
  const session = await prepareSession(options.cwd, options.env, options, !options.dryRun);
  const { beads } = session.store.read();
  const ready = readyBeads(beads, { execution: true, held: session.store.leased() });
  const bead = resolveSelector(ready, options.selector);
  if (!bead) throw new HelixError('error', 'helix: no execution-ready bead matched the build selector');
  if (options.dryRun) return printBuildCommand(session, options.env, bead, beads, ready);
  excludeRuntimeFiles(session.root);
  const output = new SessionOutput(session.root, options.mode);
  return watchInterrupts(async (watch) => {
    let supervisor: Supervisor | undefined;
    let memory: MemoryPort | undefined;
    let outcome: { value: AttemptOutcome } | { error: unknown };
    try {
      memory = options.openMemory ? await options.openMemory(session.root, (line) => output.summary(line)) : undefined;
      supervisor = new Supervisor({ ...session, env: options.env, settings: { ...defaultSettings(options.env), maxCycles: 1 }, output, memory, signal: watch.signal });
      outcome = { value: await supervisor.buildOnce(bead, ready) };
    } catch (error) {
      outcome = { error };
    } finally {
      memory?.close?.();
    }
    if (!('value' in outcome)) {
      const released = supervisor?.releaseHeldClaims() ?? [];
      const interrupt = watch.received;
      if (!interrupt) throw outcome.error;
      output.summary(`helix: interrupted by ${interrupt.what}${releasedNote(released)}`);
      return interrupt.exitCode;
    }
    return buildVerdict(output, bead, outcome.value);
  });
}

function buildVerdict(output: SessionOutput, bead: Bead, result: AttemptOutcome): number {
  if (result.kind === 'completed') return EXIT.ok;
  output.summary(`helix: build of ${bead.id} did not complete: ${'detail' in result ? result.detail : result.kind}`);
  return EXIT.error;
}

/** Exact id, else a unique id suffix, else a unique case-insensitive title match; none → first ready. */
export function resolveSelector<T extends { id: string; title: string }>(ready: T[], selector: string | undefined): T | undefined {
  if (!selector) return ready[0];
  const exact = ready.find((b) => b.id === selector);
  if (exact) return exact;
  const bySuffix = ready.filter((b) => b.id.endsWith(`-${selector}`) || b.id.endsWith(selector));
  if (bySuffix.length === 1) return bySuffix[0];
  const needle = selector.toLowerCase();
  const byTitle = ready.filter((b) => b.title.toLowerCase().includes(needle));
  return byTitle.length === 1 ? byTitle[0] : undefined;
}

/** Text as printed on its own: a final newline added when missing (empty stays empty). */
export function withNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

/** `helix check [scope]`: prints the check's answer; exit 0 when it named a NEXT_ACTION. */
export async function checkOnce(options: CommandOptions & { scope?: string }): Promise<number> {
  const session = await prepareSession(options.cwd, options.env, options, !options.dryRun);
  if (!options.dryRun) excludeRuntimeFiles(session.root);
  const output = options.dryRun ? SILENT_OUTPUT : new SessionOutput(session.root, options.mode === 'normal' ? 'quiet' : options.mode);
  const supervisor = new Supervisor({ ...session, env: options.env, settings: defaultSettings(options.env), output });
  const { command, label } = supervisor.actionCommand('check', actionPrompt('check', { scope: options.scope ?? 'repo', env: options.env }));
  if (options.dryRun) {
    process.stdout.write(`${formatDryRun(command)}\n`);
    return EXIT.ok;
  }
  const call = await untilInterrupted((signal) => supervisor.runAgent(command, label, signal));
  if ('interrupt' in call) {
    output.summary(`helix: interrupted by ${call.interrupt.what}`);
    return call.interrupt.exitCode;
  }
  const run = call.value;
  // The agent's final answer, never its transcript (that is in the session log).
  process.stdout.write(withNewline(run.answer));
  const next = parseNextAction(run.answer);
  if (!next) {
    process.stderr.write('helix: unable to determine NEXT_ACTION from check output\n');
    return EXIT.error;
  }
  return EXIT.ok;
}
