// `helix design [--rounds N] [scope]` (alias `plan`): the plan action, one agent call
// (docs/contract/bash-interface.md §7).
import type { CommandContext, HelixCommand } from '../program.js';
import { registerOneShot, rounds } from '../one-shot-command.js';

export function register(program: HelixCommand, ctx: CommandContext): void {
  registerOneShot(program, ctx, 'design', 'run the plan action (design rounds)', 'scope', (c) => c.alias('plan').option('--rounds <n>', 'design rounds (default 5)', rounds));
}
