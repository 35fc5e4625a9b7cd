// `helix check [scope]`: runs the check action and prints its answer; exit 0 when it names a
// NEXT_ACTION (docs/contract/cli.md §2).
import { baseOptions } from '../agent-flags.js';
import { type CommandContext, type CommonOptions, type HelixCommand, finishWith, withCommonFlags } from '../program.js';

export function register(program: HelixCommand, ctx: CommandContext): void {
  withCommonFlags(program.command('check').description('run the check action and print its answer (exit 0 when it names a NEXT_ACTION)'))
    .argument('[scope]', 'scope to check', 'repo')
    .action(async (scope: string, o: CommonOptions) => {
      const { checkOnce } = await import('../../supervisor/shell/check.js');
      finishWith(ctx.io, await checkOnce({ ...baseOptions(ctx, o), scope }));
    });
}
