// `helix install [--uninstall] [--with-hooks]`: the installer (docs/contract/cli.md §11). The work
// is scripts/install-local-skills.sh, run through src/installer with its arguments as an array;
// its output and exit code pass through.
import { HelixError } from '../../errors.js';
import { type CommandContext, type CommonOptions, type HelixCommand, withCommonFlags } from '../program.js';

interface InstallOptions extends CommonOptions {
  uninstall?: boolean;
  withHooks?: boolean;
}

export function register(program: HelixCommand, ctx: CommandContext): void {
  const command = withCommonFlags(
    program
      .command('install')
      .description('link the helix skills into ~/.agents, ~/.claude and ~/.codex and write ~/.local/bin/helix')
      .option('--uninstall', 'remove the links into this checkout, the launcher (when ours) and the hooks')
      .option('--with-hooks', "also merge the helix hooks into Claude Code's settings.json (after a backup)"),
    ['dryRun'],
  );
  // here --dry-run shows the installer's plan: no agent is involved
  const dryRun = command.options.find((option) => option.long === '--dry-run');
  if (dryRun) dryRun.description = 'print what would be linked, written and removed; change nothing';
  command.action(async (_options: InstallOptions, self: HelixCommand) => {
    // The common flags are also the program's, so commander may file --dry-run under either.
    const options = self.optsWithGlobals<InstallOptions>();
    const { runInstallScript } = await import('../../installer/install-script.js');
    let status: number;
    try {
      status = runInstallScript({ uninstall: options.uninstall, dryRun: options.dryRun, withHooks: options.withHooks });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new HelixError('missingTool', 'helix install: bash not found on PATH');
      throw error;
    }
    // The script already printed why; pass its exit code through.
    if (status !== 0) ctx.io.exitCode = status;
  });
}
