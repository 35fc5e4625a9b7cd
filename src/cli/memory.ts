// Placeholder until this command group lands.
import { HelixError } from '../errors.js';
import type { HelixCommand } from './program.js';

export function registerMemoryCommands(program: HelixCommand): void {
  program
    .command('memory')
    .description('the memory store')
    .allowUnknownOption()
    .argument('[args...]')
    .action(() => {
      throw new HelixError('error', 'helix memory: not implemented yet');
    });
}
