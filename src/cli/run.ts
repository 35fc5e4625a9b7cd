// Placeholder until this command group lands.
import { HelixError } from '../errors.js';
import type { HelixCommand } from './program.js';

export function registerRunCommands(program: HelixCommand): void {
  program
    .command('run')
    .description('the bounded supervisor loop')
    .allowUnknownOption()
    .argument('[args...]')
    .action(() => {
      throw new HelixError('error', 'helix run: not implemented yet');
    });
}
