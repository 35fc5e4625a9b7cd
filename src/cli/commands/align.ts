// `helix align [scope]`: the alignment action under its governing planning bead
// (docs/contract/bash-interface.md §5).
import type { CommandContext, HelixCommand } from '../program.js';
import { registerOneShot } from '../one-shot-command.js';

export function register(program: HelixCommand, ctx: CommandContext): void {
  registerOneShot(program, ctx, 'align', 'run the alignment action under a governing planning bead', 'scope');
}
