// What the supervisor's command entry points share: their options, the line for an interrupt that
// came before anything started, and the exact build command a --dry-run prints.
import { formatDryRun } from '../../agents/index.js';
import { EXIT } from '../../errors.js';
import { type Interrupt } from './interrupts.js';
import type { MemoryPort } from './memory-port.js';
import { type CommandResult, type OutputMode, SILENT_OUTPUT } from './output.js';
import { type SupervisorSettings } from '../core/policy.js';
import type { ProgressFlag } from '../core/progress-mode.js';
import { implementationPrompt, promptPlaceOf } from '../text/prompts.js';
import { buildInvocation, ownershipOf } from '../core/dispatch.js';
import { BUILD, RUN } from '../text/lines.js';
import { type Session, type SessionFlags } from './agent-setup.js';
import type { Bead } from '../../tracker/index.js';
import { renderContext } from './context.js';

export interface CommandOptions extends SessionFlags {
  cwd: string;
  env: NodeJS.ProcessEnv;
  mode: OutputMode;
  dryRun?: boolean;
}

export interface RunOptions extends CommandOptions {
  settings?: Partial<SupervisorSettings>;
  /** `--progress`: the live board on a terminal (auto, the default) or plain lines (core/progress-mode.ts). */
  progress?: ProgressFlag;
  memory?: MemoryPort;
  /** Opens the memory port once the session is known (the run loop's learning hooks). */
  openMemory?: (root: string, say: (line: string) => void) => Promise<MemoryPort | undefined>;
}

/** The line for an interrupt that came before anything was claimed or started. */
export function interruptedBeforeStart(interrupt: Interrupt): CommandResult {
  return { exitCode: interrupt.exitCode, stderr: [RUN.interruptedBeforeStart(interrupt.what)] };
}

/** `--dry-run` of a build: the exact command, with the prompt helix would write; nothing runs. */
export function printBuildCommand(session: Session, env: NodeJS.ProcessEnv, bead: Bead, beads: Bead[], ready: Bead[]): CommandResult {
  const setup = { ...session, env };
  const place = promptPlaceOf(setup, SILENT_OUTPUT.logName);
  const context = renderContext({ root: session.root, trackerFile: session.store.file, beads, readyCount: ready.length, focusedEpic: undefined, trackerCli: place.trackerCli });
  const prompt = implementationPrompt({ ...place, bead, context, ownership: ownershipOf(session.buildPath) });
  // The placeholder of an empty queue is printed as the Bash CLI printed it: bare, not quoted.
  const line = formatDryRun(buildInvocation(setup, bead.id, prompt)).replaceAll(`'${BUILD.placeholderId}'`, BUILD.placeholderId);
  return { exitCode: EXIT.ok, stdout: [line] };
}
