// `helix log [-f]`: the current or last run's event log (docs/events.md) as lines; with -f,
// follows the run as it goes — bead n of m, elapsed, spend, each event — until it stops.
import { type CommandContext, type HelixCommand, NO_AGENT_FLAGS, finishWith, withCommonFlags } from '../program.js';

export function register(program: HelixCommand, ctx: CommandContext): void {
  withCommonFlags(program.command('log').description("the current or last run's events (docs/events.md); -f follows the run until it stops"), NO_AGENT_FLAGS)
    .option('-f, --follow', 'follow the run: each event with bead n of m, elapsed and spend, until the run stops')
    .action(async (o: { follow?: boolean }) => {
      const { followLog, printLog } = await import('../../supervisor/shell/log.js');
      if (!o.follow) {
        finishWith(ctx.io, printLog(ctx.cwd, ctx.env));
        return;
      }
      const interrupted = new AbortController();
      const stop = () => interrupted.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        const exitCode = await followLog(ctx.cwd, ctx.env, (line) => ctx.io.stdout(`${line}\n`), interrupted.signal);
        finishWith(ctx.io, { exitCode });
      } finally {
        process.removeListener('SIGINT', stop);
        process.removeListener('SIGTERM', stop);
      }
    });
}
