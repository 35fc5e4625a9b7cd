// The list of commands, by name, each loaded only when asked for: `helix status` loads
// commands/status.ts and what it imports, never the tracker, memory or run wiring (npm's
// cmd-list). The order is the order commander lists them in; `helix help` prints the usage of
// src/supervisor/text/lines.ts, which names them all without loading any.
import type { CommandContext, HelixCommand } from './program.js';

/** A command file: it adds its command (flags, usage, action) to the program. */
export interface CommandModule {
  register(program: HelixCommand, ctx: CommandContext): void;
}

export interface CommandEntry {
  /** The name, then its aliases. */
  names: readonly string[];
  load(): Promise<CommandModule>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { names: ['run'], load: () => import('./commands/run.js') },
  { names: ['build', 'implement'], load: () => import('./commands/build.js') },
  { names: ['check'], load: () => import('./commands/check.js') },
  { names: ['next'], load: () => import('./commands/next.js') },
  { names: ['triage'], load: () => import('./commands/triage.js') },
  { names: ['status'], load: () => import('./commands/status.js') },
  { names: ['start'], load: () => import('./commands/start.js') },
  { names: ['stop'], load: () => import('./commands/stop.js') },
  { names: ['log'], load: () => import('./commands/log.js') },
  { names: ['report'], load: () => import('./commands/report.js') },
  { names: ['align'], load: () => import('./commands/align.js') },
  { names: ['design', 'plan'], load: () => import('./commands/design.js') },
  { names: ['polish'], load: () => import('./commands/polish.js') },
  { names: ['review'], load: () => import('./commands/review.js') },
  { names: ['backfill'], load: () => import('./commands/backfill.js') },
  { names: ['experiment'], load: () => import('./commands/experiment.js') },
  { names: ['tracker'], load: () => import('./commands/tracker.js') },
  { names: ['memory'], load: () => import('./commands/memory.js') },
  { names: ['doctor'], load: () => import('./commands/doctor.js') },
  { names: ['install'], load: () => import('./commands/install.js') },
  { names: ['hook'], load: () => import('./commands/hook.js') },
  // DDx's pre-merge check runs it (docs/ddx.md#verified-before-it-lands): not in the general usage
  { names: ['gate'], load: () => import('./commands/gate.js') },
];

/**
 * The command an argument list asks for: its first word that is not a flag (the root takes no
 * flag with a value), or, after `help`, the command whose help is wanted.
 */
export function requestedCommand(argv: readonly string[]): string | undefined {
  const words = argv.filter((arg) => !arg.startsWith('-'));
  return words[0] === 'help' ? words[1] : words[0];
}

/** Loads the commands `names` asks for (every command when undefined) and adds them to the program. */
export async function registerCommands(program: HelixCommand, ctx: CommandContext, names?: readonly string[]): Promise<void> {
  const wanted = COMMANDS.filter((entry) => names === undefined || entry.names.some((name) => names.includes(name)));
  const modules = await Promise.all(wanted.map((entry) => entry.load()));
  for (const module of modules) module.register(program, ctx);
}
