// Placeholder until this command group lands.
import { HelixError } from '../errors.js';
import type { HelixCommand } from './program.js';

export function registerTrackerCommands(program: HelixCommand): void {
  program
    .command('tracker')
    .description('Manage beads')
    .allowUnknownOption()
    .argument('[args...]')
    .action(() => {
      throw new HelixError('error', 'helix tracker: not implemented yet');
    });
}
