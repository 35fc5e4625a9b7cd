// The list of command groups. Each file is thin wiring: flags, usage, and an action that
// lazy-imports the library doing the work, so `helix <anything>` loads only what it uses.
import type { HelixCommand } from './program.js';
import { registerTrackerCommands } from './tracker.js';
import { registerMemoryCommands } from './memory.js';
import { registerRunCommands } from './run.js';
import { registerInstallCommands } from './install.js';
import { registerDoctorCommand } from './doctor.js';
import { registerActionCommands } from './actions.js';

export function registerCommands(program: HelixCommand): void {
  registerRunCommands(program);
  registerActionCommands(program);
  registerTrackerCommands(program);
  registerMemoryCommands(program);
  registerDoctorCommand(program);
  registerInstallCommands(program);
}
