// `helix hook <event>`: the Claude Code hooks (src/installer/hooks.ts). The action imports only
// what a hook needs, and a hook exits 0 with nothing harmful on stdout whatever goes wrong, so it
// can never block an edit.
import { HelixError } from '../../errors.js';
import { type CommandContext, type HelixCommand, withCommonFlags } from '../program.js';

const HOOK_EVENTS = ['session-start', 'pre-tool-use'] as const;

export function register(program: HelixCommand, ctx: CommandContext): void {
  withCommonFlags(
    program
      .command('hook')
      .description('Claude Code hooks: session-start | pre-tool-use (reads the hook JSON on stdin; never blocks)')
      .argument('<event>', HOOK_EVENTS.join(' | ')),
  ).action(async (event: string) => {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      throw new HelixError('error', `helix hook: unknown event: ${event} (expected ${HOOK_EVENTS.join(' or ')})`);
    }
    await runHook(ctx, event as (typeof HOOK_EVENTS)[number]);
  });
}

async function runHook(ctx: CommandContext, event: (typeof HOOK_EVENTS)[number]): Promise<void> {
  try {
    const [hooks, port] = await Promise.all([import('../../installer/hooks.js'), import('../../installer/hook-memory.js')]);
    const hookContext = { cwd: ctx.cwd, env: ctx.env, openMemory: port.openHookMemory };
    const out = event === 'session-start' ? await hooks.sessionStart(hookContext) : await hooks.preToolUse(await readStdin(), hookContext);
    ctx.io.stdout(out);
  } catch (error) {
    // Never fail the session or the edit: a note for `claude --debug`, nothing on stdout.
    ctx.io.stderr(`helix hook ${event}: ${(error as Error)?.message ?? String(error)}\n`);
  }
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
