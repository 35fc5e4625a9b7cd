// The commander wiring every command file shares: a Command subclass that reports unknown
// options and commands in the contract's words (docs/contract/cli.md §1, §3) and words help as
// cli.md §1 says. What a command needs besides commander — the common flags, its context and
// output — is in command-context.ts, which this file passes on, so a command file may import everything from here.
import { Command, Help } from 'commander';
import { HelixError } from '../errors.js';
import { unknownCommand, unknownRunOption } from '../supervisor/text/lines.js';
import { HELP_FOOTER, USAGE } from './usage.js';

export * from './command-context.js';

/**
 * A command's own help: its description first (`tracker --help` begins `Manage beads`), then its
 * usage and flags, the sections it adds (`run`'s quick start), and the pointer to `helix help`.
 */
class CommandHelp extends Help {
  override formatHelp(cmd: Command, helper: Help): string {
    const description = helper.commandDescription(cmd);
    const withoutDescription = Object.create(helper) as Help;
    withoutDescription.commandDescription = () => '';
    const body = super.formatHelp(cmd, withoutDescription);
    const sections = cmd instanceof HelixCommand ? cmd.helpSections : [];
    const tail = [...sections, ...(cmd.parent ? [`${HELP_FOOTER}\n`] : [])].map((text) => `\n${text}`).join('');
    return `${description ? `${description}\n\n` : ''}${body}${tail}`;
  }
}

export class HelixCommand extends Command {
  /** `--help` prints the general usage: the root and `help` (docs/contract/bash-interface.md §0.7). */
  private generalUsage = false;
  /** Text after the flags in this command's own help. */
  readonly helpSections: string[] = [];

  override createCommand(name?: string): HelixCommand {
    return new HelixCommand(name);
  }

  /** Makes `--help` on this command print the general usage. */
  withGeneralUsage(): this {
    this.generalUsage = true;
    return this;
  }

  /** Adds a section (a heading line and its lines) after the flags in this command's help. */
  withHelpSection(text: string): this {
    this.helpSections.push(text);
    return this;
  }

  override helpInformation(context?: Parameters<Command['helpInformation']>[0]): string {
    return this.generalUsage ? USAGE : super.helpInformation(context);
  }

  override createHelp(): Help {
    return Object.assign(new CommandHelp(), this.configureHelp());
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
