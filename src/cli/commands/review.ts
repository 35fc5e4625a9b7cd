// `helix review [scope]`: a fresh-eyes review, judged by its trailers; exit 10 when it found
// issues (docs/contract/bash-interface.md §9).
import type { CommandContext, HelixCommand } from '../program.js';
import { registerOneShot } from '../one-shot-command.js';

export function register(program: HelixCommand, ctx: CommandContext): void {
  registerOneShot(program, ctx, 'review', 'fresh-eyes review of a change (default scope: last-commit)', 'scope', (c) => c.option('--review-agent <agent>', 'agent for the review'));
}
