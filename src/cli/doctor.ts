// Placeholder until this command group lands.
import { HelixError } from '../errors.js';
import type { HelixCommand } from './program.js';

export function registerDoctorCommand(program: HelixCommand): void {
  program
    .command('doctor')
    .description('tracker integrity, tools on PATH, skill links')
    .allowUnknownOption()
    .argument('[args...]')
    .action(() => {
      throw new HelixError('error', 'helix doctor: not implemented yet');
    });
}
