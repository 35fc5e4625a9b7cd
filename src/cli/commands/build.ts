// `helix build [selector]` (alias `implement`): one bounded implementation pass on one
// execution-ready bead (docs/contract/bash-interface.md §11).
import { baseOptions } from '../agent-flags.js';
import { type CommandContext, type CommonOptions, type HelixCommand, finishWith, withCommonFlags } from '../program.js';

export function register(program: HelixCommand, ctx: CommandContext): void {
  withCommonFlags(program.command('build').alias('implement').description('one bounded implementation pass on one execution-ready bead'))
    .argument('[selector]', 'bead id, id suffix or title words (default: the first ready bead)')
    .action(async (selector: string | undefined, o: CommonOptions) => {
      const { buildOnce } = await import('../../supervisor/shell/build.js');
      const { openMemoryPort } = await import('../../supervisor/shell/memory-port.js');
      const memoryOn = ctx.env.HELIX_MEMORY !== '0';
      finishWith(ctx.io, await buildOnce({ ...baseOptions(ctx, o), selector, openMemory: memoryOn ? (root, say) => openMemoryPort(root, ctx.env, say) : undefined }));
    });
}
