// What a command file needs besides commander itself: the common flags (declared through the
// command's own methods), the context a command runs in — its folder, its environment and the
// sink its output goes to — and the ways it prints. Nothing here loads commander, so the commands
// bin/helix serves without it (src/cli/plain.ts) can use it too.
import type { Command } from 'commander';
import type { CommandResult } from '../supervisor/shell/output.js';
import { printable } from '../terminal-text.js';

/** The flags of docs/contract/cli.md §3 that every command accepts. */
export interface CommonOptions {
  agent?: string;
  claude?: boolean;
  codex?: boolean;
  model?: string;
  effort?: string;
  dryRun?: boolean;
  quiet?: boolean;
  summary?: boolean;
}

/** The common flags, by the key commander files each under. */
const COMMON_FLAGS = [
  ['agent', '--agent <agent>', 'agent to run (codex|claude)'],
  ['claude', '--claude', 'same as --agent claude'],
  ['codex', '--codex', 'same as --agent codex'],
  ['model', '--model <model>', 'model for the primary agent only'],
  ['effort', '--effort <effort>', 'reasoning effort (low|medium|high|xhigh|max)'],
  ['dryRun', '--dry-run', 'print the agent command instead of running it'],
  ['quiet', '-q, --quiet', 'less output'],
  ['summary', '-s, --summary', 'one concise line per event; the rest goes to the log (implies --quiet)'],
] as const;

export type CommonFlag = (typeof COMMON_FLAGS)[number][0];

/**
 * Declares the common flags on a command. Every command accepts them (docs/contract/cli.md §3);
 * its help lists only those it uses (`inHelp`): all of them for the commands that run agents, none
 * for a tracker or memory command, which accepts and ignores them.
 */
export function withCommonFlags<C extends Command>(command: C, inHelp: 'all' | readonly CommonFlag[] = 'all'): C {
  for (const [key, flags, description] of COMMON_FLAGS) {
    command.option(flags, description);
    if (inHelp !== 'all' && !inHelp.includes(key)) command.options[command.options.length - 1]?.hideHelp();
  }
  return command;
}

/** The common flags, accepted and left out of the help: a command that runs no agent. */
export const NO_AGENT_FLAGS: readonly CommonFlag[] = [];

/** Resolves --claude/--codex/--agent into one agent name (undefined = not chosen explicitly). */
export function chosenAgent(options: CommonOptions): string | undefined {
  if (options.agent) return options.agent;
  if (options.claude) return 'claude';
  if (options.codex) return 'codex';
  return undefined;
}

/** Where a command's output goes: the process's streams, or a buffer a test reads. */
export interface CommandOutput {
  stdout(text: string): void;
  stderr(text: string): void;
  /** The exit code the command leaves (undefined: 0). */
  exitCode: number | undefined;
}

/** What a command reads and writes besides its arguments. */
export interface CommandContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  io: CommandOutput;
}

/** The real process: its folder, its environment, its streams and its exit code. */
export function processContext(): CommandContext {
  return {
    cwd: process.cwd(),
    env: process.env,
    io: {
      stdout: (text) => void process.stdout.write(text),
      stderr: (text) => void process.stderr.write(text),
      get exitCode() {
        return typeof process.exitCode === 'number' ? process.exitCode : undefined;
      },
      set exitCode(code) {
        process.exitCode = code;
      },
    },
  };
}

/** Output kept in memory, printable as the process streams make it (src/cli/terminal.ts). */
export class BufferedOutput implements CommandOutput {
  out = '';
  err = '';
  exitCode: number | undefined;
  stdout(text: string): void {
    this.out += printable(text);
  }
  stderr(text: string): void {
    this.err += printable(text);
  }
}

/** Writes a JSON document on stdout the way every `--json` command does. */
export function printJson(io: CommandOutput, value: unknown): void {
  io.stdout(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints the lines a command left for the terminal and sets its exit code. */
export function finishWith(io: CommandOutput, result: CommandResult): void {
  const text = (lines: string[] | undefined) => (lines ?? []).map((line) => `${line}\n`).join('');
  if (result.stdout?.length) io.stdout(text(result.stdout));
  if (result.stderr?.length) io.stderr(text(result.stderr));
  io.exitCode = result.exitCode;
}

/** Like every other read: one warning naming the damaged lines, here also that counts leave them out. */
export async function warnIfDamaged(io: CommandOutput, file: string, problems: import('../tracker/index.js').StoreProblem[]): Promise<void> {
  if (problems.length === 0) return;
  const { problemsWarning } = await import('../tracker/read.js');
  io.stderr(`${problemsWarning(file, problems, { counts: true })}\n`);
}
