// `helix install` (the installer, contract §11) and `helix hook <event>` (the Claude Code hooks).
// The work is in src/installer; the hook action imports only what a hook needs, and a hook exits
// 0 with nothing harmful on stdout whatever goes wrong, so it can never block an edit.
import { HelixError } from '../errors.js';
import { withCommonFlags, type CommonOptions, type HelixCommand } from './program.js';

interface InstallOptions extends CommonOptions {
  uninstall?: boolean;
  withHooks?: boolean;
}

const HOOK_EVENTS = ['session-start', 'pre-tool-use', 'stop', 'subagent-stop'] as const;

export function registerInstallCommands(program: HelixCommand): void {
  withCommonFlags(
    program
      .command('install')
      .description('link the helix skills into ~/.agents, ~/.claude and ~/.codex and write ~/.local/bin/helix')
      .option('--uninstall', 'remove the links into this checkout, the launcher (when ours) and the hooks')
      .option('--with-hooks', "also merge the helix hooks into Claude Code's settings.json (after a backup)"),
  ).action(async (_options: InstallOptions, command: HelixCommand) => {
    // The common flags are also the program's, so commander may file --dry-run under either.
    const options = command.optsWithGlobals<InstallOptions>();
    const { runInstallScript } = await import('../installer/install-script.js');
    let status: number;
    try {
      status = runInstallScript({ uninstall: options.uninstall, dryRun: options.dryRun, withHooks: options.withHooks });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new HelixError('missingTool', 'helix install: bash not found on PATH');
      throw error;
    }
    // The script already printed why; pass its exit code through.
    if (status !== 0) process.exitCode = status;
  });

  withCommonFlags(
    program
      .command('hook')
      .description('Claude Code hooks: session-start | pre-tool-use | stop | subagent-stop (reads the hook JSON on stdin; never blocks)')
      .argument('<event>', HOOK_EVENTS.join(' | ')),
  ).action(async (event: string) => {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      throw new HelixError('error', `helix hook: unknown event: ${event} (expected one of ${HOOK_EVENTS.join(', ')})`);
    }
    await runHook(event as (typeof HOOK_EVENTS)[number]);
  });
}

async function runHook(event: (typeof HOOK_EVENTS)[number]): Promise<void> {
  try {
    const [hooks, port] = await Promise.all([import('../installer/hooks.js'), import('../installer/hook-memory.js')]);
    const ctx = { cwd: process.cwd(), env: process.env, openMemory: port.openHookMemory };
    let out: string;
    if (event === 'session-start') out = await hooks.sessionStart(ctx);
    else if (event === 'pre-tool-use') out = await hooks.preToolUse(await readStdin(), ctx);
    else {
      const [{ readFileSync }, { parseTrailers }] = await Promise.all([import('node:fs'), import('../agents/trailers.js')]);
      const readAnswer = (payload: Parameters<typeof hooks.readFinalAnswer>[0]) => hooks.readFinalAnswer(payload, (path) => readFileSync(path, 'utf8'));
      out = await hooks.stop(await readStdin(), { ...ctx, readAnswer, trailers: parseTrailers });
    }
    process.stdout.write(out);
  } catch (error) {
    // Never fail the session or the edit: a note for `claude --debug`, nothing on stdout.
    process.stderr.write(`helix hook ${event}: ${(error as Error)?.message ?? String(error)}\n`);
  }
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
