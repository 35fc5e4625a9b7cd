// `helix status [--json]`: tracker counts, the active run, claimed beads and the last run
// (docs/contract/cli.md §10; the layouts are docs/contract/bash-interface.md §14).
import type { CommandResult } from '../../supervisor/shell/output.js';
// command-context.js, not program.js: src/cli/plain.ts runs statusRun without loading commander
import { type CommandContext, NO_AGENT_FLAGS, finishWith, printJson, warnIfDamaged, withCommonFlags } from '../command-context.js';
import type { HelixCommand } from '../program.js';

export function register(program: HelixCommand, ctx: CommandContext): void {
  withCommonFlags(program.command('status').description('tracker counts, the active run, claimed beads and the last run'), NO_AGENT_FLAGS)
    .option('--json', 'JSON document (docs/contract/cli.md §10 keys)')
    .action(async (o: { json?: boolean }) => finishWith(ctx.io, await statusRun(ctx, { json: o.json })));
}

export async function statusRun(ctx: CommandContext, options: { json?: boolean }): Promise<CommandResult> {
  const { openStore } = await import('../../supervisor/shell/project.js');
  const { buildStatus } = await import('../../supervisor/shell/status.js');
  const { statusText } = await import('../../supervisor/text/status.js');
  const { readRunState } = await import('../../supervisor/shell/run-state.js');
  const { memoryHealth } = await import('../../supervisor/shell/memory-port.js');
  const { detectDdx } = await import('../../agents/ddx-surface.js');
  const { root, store } = openStore(ctx.cwd, ctx.env);
  await warnIfDamaged(ctx.io, store.file, store.read().problems);
  const now = new Date();
  const report = buildStatus(store, now, ctx.env, await memoryHealth(root, ctx.env), await detectDdx(ctx.env, root), root);
  if (options.json) {
    printJson(ctx.io, report);
    return { exitCode: 0 };
  }
  ctx.io.stdout(statusText(report, store.read().beads.filter((b) => b.status === 'in_progress'), readRunState(store.dir) !== undefined));
  return { exitCode: 0 };
}
