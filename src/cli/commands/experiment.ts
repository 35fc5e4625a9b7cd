// `helix experiment [--close] [bead|goal]`: one experiment iteration; refuses a dirty worktree
// (docs/contract/bash-interface.md §10).
import type { CommandContext, HelixCommand } from '../program.js';
import { registerOneShot } from '../one-shot-command.js';

export function register(program: HelixCommand, ctx: CommandContext): void {
  registerOneShot(program, ctx, 'experiment', 'run the experiment action (refuses a dirty worktree)', 'bead-or-goal', (c) => c.option('--close', 'close the experiment bead when decided'));
}
