// `helix polish [--rounds N] [scope]`: the polish action, refining beads before they are built
// (docs/contract/bash-interface.md §8).
import type { CommandContext, HelixCommand } from '../program.js';
import { registerOneShot, rounds } from '../one-shot-command.js';

export function register(program: HelixCommand, ctx: CommandContext): void {
  registerOneShot(program, ctx, 'polish', 'run the polish action (refine beads)', 'scope', (c) => c.option('--rounds <n>', 'polish rounds (default 6)', rounds));
}
