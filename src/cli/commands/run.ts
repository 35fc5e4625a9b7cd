// `helix run`: the bounded supervisor loop (docs/contract/cli.md §6). Takes no positionals: any is
// reported the way an unknown flag is (docs/contract/bash-interface.md §2.1).
import { HelixError } from '../../errors.js';
import { unknownRunOption } from '../../supervisor/text/lines.js';
import { type RunFlags, baseOptions, capSettings, withRunFlags } from '../agent-flags.js';
import { type CommandContext, type HelixCommand, finishWith, withCommonFlags } from '../program.js';
import { RUN_HELP } from '../usage.js';

export function register(program: HelixCommand, ctx: CommandContext): void {
  withRunFlags(withCommonFlags(program.command('run').description('the bounded supervisor loop: claim, delegate, verify, close or back off, then check')))
    .withHelpSection(RUN_HELP)
    .usage('[options]')
    .argument('[unexpected...]')
    .action(async (unexpected: string[], o: RunFlags) => {
      if (unexpected.length > 0) throw new HelixError('error', unknownRunOption('run', unexpected[0] as string));
      const { runLoop } = await import('../../supervisor/shell/run.js');
      const { openMemoryPort } = await import('../../supervisor/shell/memory-port.js');
      const memoryOn = o.memory !== false && ctx.env.HELIX_MEMORY !== '0';
      const settings: Record<string, unknown> = await capSettings(o);
      if (o.maxCycles !== undefined) settings.maxCycles = o.maxCycles;
      if (o.reviewEvery !== undefined) settings.reviewEvery = o.reviewEvery;
      if (o.reviewThreshold !== undefined) settings.reviewThreshold = o.reviewThreshold;
      if (o.autoAlign === false) settings.autoAlign = false;
      if (o.autoReview === false) settings.autoReview = false;
      finishWith(ctx.io, await runLoop({
        ...baseOptions(ctx, o),
        reviewAgent: o.reviewAgent,
        settings,
        progress: o.progress ?? 'auto',
        openMemory: memoryOn ? (root, say) => openMemoryPort(root, ctx.env, say) : undefined,
      }));
    });
}
