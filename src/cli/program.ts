// The commander wiring every command file shares: a Command subclass that reports unknown
// options and commands in the contract's words (docs/contract/cli.md §1, §3). What a command
// needs besides commander — the common flags, its context and output — is in common.ts, which
// this file passes on, so a command file may import everything from here.
import { Command, Help } from 'commander';
import { HelixError } from '../errors.js';
import { USAGE, unknownCommand, unknownRunOption } from '../supervisor/text/lines.js';

export * from './common.js';

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
  /** `--help` prints the general usage (the root and the Bash CLI's commands, docs/contract/bash-interface.md §0.6). */
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
