// `helix report [run-id] [--trace]`: the last run's night (or the named run's) as one
// self-contained HTML page beside its log — lanes, outcomes, pauses, beads, spend — or, with
// --trace, as Chrome trace-event JSON; prints the file's path.
import { type CommandContext, type HelixCommand, NO_AGENT_FLAGS, finishWith, withCommonFlags } from '../program.js';

export function register(program: HelixCommand, ctx: CommandContext): void {
  withCommonFlags(program.command('report').description("draw the last run's night (or run-id's) as one HTML page beside its log; prints its path").argument('[run-id]', 'a run such as helix-20261126-200000 (default: the last run)'), NO_AGENT_FLAGS)
    .option('--trace', 'write Chrome trace-event JSON (<run>.trace.json: Perfetto, chrome://tracing) instead of the page')
    .action(async (runId: string | undefined, o: { trace?: boolean }) => {
      const { reportRun } = await import('../../supervisor/shell/report.js');
      finishWith(ctx.io, reportRun(ctx.cwd, ctx.env, { runId, trace: o.trace === true, now: Date.now() }));
    });
}
