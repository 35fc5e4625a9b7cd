// `helix build [selector]`: one bounded implementation pass on one execution-ready bead, and its
// --dry-run (src/cli/commands/build.ts calls it).

import { HelixError, isHelixError, EXIT } from '../../errors.js';
import { excludeRuntimeFiles, readyBeads } from '../../tracker/index.js';
import { watchInterrupts } from './interrupts.js';
import type { MemoryPort } from './memory-port.js';
import { type BuildResult, Supervisor } from './runner.js';
import { acquireRunMutex } from './mutex.js';
import { type CommandResult, SessionOutput } from './output.js';
import { defaultSettings } from '../core/policy.js';
import { BUILD, RUN } from '../text/lines.js';
import { SETUP } from '../text/setup.js';
import { type Session, prepareSession } from './agent-setup.js';
import { assertDdxCanBuild } from './ddx-repository.js';
import type { Bead } from '../../tracker/index.js';
import { type CommandOptions, type RunOptions, printBuildCommand } from './run-options.js';
import { resolveSelector } from '../core/selection.js';
import { removeGateCheck } from './gate-check.js';

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
    // Nothing ready: the Bash CLI printed the command with a placeholder and exited 0 (docs/contract/bash-interface.md §11).
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
