// `helix stop`: stops the background run (SIGTERM, wait up to 10 s, then SIGKILL;
// docs/contract/bash-interface.md §16).
import { type CommandContext, type HelixCommand, NO_AGENT_FLAGS, finishWith, withCommonFlags } from '../program.js';

export function register(program: HelixCommand, ctx: CommandContext): void {
  withCommonFlags(program.command('stop').description('stop the background run (SIGTERM, wait up to 10 s, then SIGKILL)'), NO_AGENT_FLAGS).action(async () => {
    const { stopBackground } = await import('../../supervisor/shell/background.js');
    finishWith(ctx.io, await stopBackground(ctx.cwd, ctx.env));
  });
}
