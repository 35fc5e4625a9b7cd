// The commander wiring every command file shares: a Command subclass that reports unknown
// options and commands in the contract's words (cli.md §1, §3), and the common agent flags that
// every command accepts (commands that run no agent accept and ignore them).
import { Command, Help, Option } from 'commander';
import { HelixError } from '../errors.js';
import { USAGE, unknownCommand, unknownRunOption } from '../supervisor/lines.js';
import type { CommandResult } from '../supervisor/output.js';

/** Help that opens with the command's description (`tracker --help` begins `Manage beads`). */
class DescriptionFirstHelp extends Help {
  override formatHelp(cmd: Command, helper: Help): string {
    const description = helper.commandDescription(cmd);
    const withoutDescription = Object.create(helper) as Help;
    withoutDescription.commandDescription = () => '';
    const body = super.formatHelp(cmd, withoutDescription);
    return description ? `${description}\n\n${body}` : body;
  }
}

export class HelixCommand extends Command {
  /** `--help` prints the general usage (the root and the Bash CLI's commands, bash-interface §0.6). */
  private generalUsage = false;

  override createCommand(name?: string): HelixCommand {
    return new HelixCommand(name);
  }

  /** Makes `--help` on this command print the general usage, as the Bash CLI did. */
  withGeneralUsage(): this {
    this.generalUsage = true;
    return this;
  }

  override helpInformation(context?: Parameters<Command['helpInformation']>[0]): string {
    return this.generalUsage ? USAGE : super.helpInformation(context);
  }

  override createHelp(): Help {
    return Object.assign(new DescriptionFirstHelp(), this.configureHelp());
  }

  unknownOption(flag: string): never {
    throw new HelixError('error', unknownRunOption(this.name(), flag));
  }

  unknownCommand(): never {
    const name = this.args[0] ?? '';
    throw new UnknownCommandError(name, this.helpInformation());
  }
}

export class UnknownCommandError extends HelixError {
  readonly usage: string;
  constructor(name: string, usage: string) {
    super('error', unknownCommand(name));
    this.usage = usage;
  }
}

/** The flags of cli.md §3 that every command accepts. */
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

export function withCommonFlags<C extends Command>(command: C): C {
  command
    .addOption(new Option('--agent <agent>', 'agent to run (codex|claude)'))
    .addOption(new Option('--claude', 'same as --agent claude'))
    .addOption(new Option('--codex', 'same as --agent codex'))
    .addOption(new Option('--model <model>', 'model for the primary agent only'))
    .addOption(new Option('--effort <effort>', 'reasoning effort (low|medium|high|xhigh|max)'))
    .addOption(new Option('--dry-run', 'print the agent command instead of running it'))
    .addOption(new Option('-q, --quiet', 'less output'))
    .addOption(new Option('-s, --summary', 'one concise line per event; the rest goes to the log (implies --quiet)'));
  return command;
}

/** Resolves --claude/--codex/--agent into one agent name (undefined = not chosen explicitly). */
export function chosenAgent(options: CommonOptions): string | undefined {
  if (options.agent) return options.agent;
  if (options.claude) return 'claude';
  if (options.codex) return 'codex';
  return undefined;
}

/** Writes a JSON document on stdout the way every `--json` command does. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Prints the lines a supervisor command left for the terminal and sets the process's exit code. */
export function finishWith(result: CommandResult): void {
  for (const line of result.stdout ?? []) process.stdout.write(`${line}\n`);
  for (const line of result.stderr ?? []) process.stderr.write(`${line}\n`);
  process.exitCode = result.exitCode;
}
