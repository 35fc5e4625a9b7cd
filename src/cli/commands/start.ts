// `helix start [run flags]`: `helix run --summary` in the background with a pid file
// (docs/contract/bash-interface.md §16).
import { type RunFlags, baseOptions, withRunFlags } from '../agent-flags.js';
import { type CommandContext, type HelixCommand, finishWith, withCommonFlags } from '../program.js';

export function register(program: HelixCommand, ctx: CommandContext): void {
  withRunFlags(withCommonFlags(program.command('start').description('run `helix run` in the background with a pid file'))).action(async (o: RunFlags) => {
    // The background run is a --summary run with start's own flags.
    const given = process.argv.slice(process.argv.indexOf('start') + 1);
    const args = given.includes('--summary') || given.includes('-s') ? given : ['--summary', ...given];
    if (o.dryRun) {
      // nothing to background: show what the run would do, as `helix run --dry-run` does
      const { runLoop } = await import('../../supervisor/shell/run.js');
      finishWith(ctx.io, await runLoop({ ...baseOptions(ctx, o), dryRun: true }));
      return;
    }
    const { startBackground } = await import('../../supervisor/shell/background.js');
    finishWith(ctx.io, await startBackground(ctx.cwd, ctx.env, args));
  });
}
