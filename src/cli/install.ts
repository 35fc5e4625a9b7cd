// Placeholder until this command group lands.
import { HelixError } from '../errors.js';
import type { HelixCommand } from './program.js';

export function registerInstallCommands(program: HelixCommand): void {
  program
    .command('install')
    .description('link the helix skills into ~/.agents, ~/.claude and ~/.codex')
    .allowUnknownOption()
    .argument('[args...]')
    .action(() => {
      throw new HelixError('error', 'helix install: not implemented yet');
    });
}
