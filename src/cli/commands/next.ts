// `helix next`: the first ready execution bead's id, or `no ready issues`
// (docs/contract/bash-interface.md §17).
import type { CommandResult } from '../../supervisor/shell/output.js';
// command-context.js, not program.js: src/cli/plain.ts runs nextRun without loading commander
import { type CommandContext, NO_AGENT_FLAGS, finishWith, warnIfDamaged, withCommonFlags } from '../command-context.js';
import type { HelixCommand } from '../program.js';

export function register(program: HelixCommand, ctx: CommandContext): void {
  withCommonFlags(program.command('next').description('print the first ready execution bead id, or "no ready issues"'), NO_AGENT_FLAGS)
    .action(async () => finishWith(ctx.io, await nextRun(ctx)));
}

export async function nextRun(ctx: CommandContext): Promise<CommandResult> {
  const { openStore } = await import('../../supervisor/shell/project.js');
  const { readyBeads } = await import('../../tracker/ready.js');
  const { noReadyIssues } = await import('../../supervisor/text/lines.js');
  const { store } = openStore(ctx.cwd, ctx.env);
  const snapshot = store.read();
  await warnIfDamaged(ctx.io, store.file, snapshot.problems);
  const first = readyBeads(snapshot.beads, { execution: true, held: store.leased() })[0];
  return { exitCode: 0, stdout: [first ? first.id : noReadyIssues] };
}
