// `helix backfill [scope]`: the backfill action, judged by its BACKFILL_* trailers and report file
// (docs/contract/bash-interface.md §6).
import type { CommandContext, HelixCommand } from '../program.js';
import { registerOneShot } from '../one-shot-command.js';

export function register(program: HelixCommand, ctx: CommandContext): void {
  registerOneShot(program, ctx, 'backfill', 'run the backfill action; requires BACKFILL_STATUS and an existing BACKFILL_REPORT', 'scope');
}
