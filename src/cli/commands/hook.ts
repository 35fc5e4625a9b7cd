// `helix hook <event>`: the Claude Code hooks (src/installer/hooks.ts). The action imports only
// what a hook needs, and a hook exits 0 with nothing harmful on stdout whatever goes wrong, so it
// can never block an edit.
import { HelixError } from '../../errors.js';
import { type CommandContext, type HelixCommand, NO_AGENT_FLAGS, withCommonFlags } from '../program.js';

const HOOK_EVENTS = ['session-start', 'pre-tool-use', 'stop', 'subagent-stop'] as const;

export function register(program: HelixCommand, ctx: CommandContext): void {
  withCommonFlags(
    program
      .command('hook')
      .description('Claude Code hooks: session-start | pre-tool-use | stop | subagent-stop (reads the hook JSON on stdin; never blocks)')
      .argument('<event>', HOOK_EVENTS.join(' | ')),
    NO_AGENT_FLAGS,
  ).action(async (event: string) => {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      throw new HelixError('error', `helix hook: unknown event: ${event} (expected one of ${HOOK_EVENTS.join(', ')})`);
    }
    await runHook(ctx, event as (typeof HOOK_EVENTS)[number]);
  });
}

async function runHook(ctx: CommandContext, event: (typeof HOOK_EVENTS)[number]): Promise<void> {
  try {
    const [hooks, port] = await Promise.all([import('../../installer/hooks.js'), import('../../installer/hook-memory.js')]);
    const hookContext = { cwd: ctx.cwd, env: ctx.env, openMemory: port.openHookMemory };
    let out: string;
    if (event === 'session-start') out = await hooks.sessionStart(hookContext);
    else if (event === 'pre-tool-use') out = await hooks.preToolUse(await readStdin(), hookContext);
    else {
      const [{ readFileSync }, { parseTrailers }] = await Promise.all([import('node:fs'), import('../../agents/trailers.js')]);
      const readAnswer = (payload: Parameters<typeof hooks.readFinalAnswer>[0]) => hooks.readFinalAnswer(payload, (path) => readFileSync(path, 'utf8'));
      out = await hooks.stop(await readStdin(), { ...hookContext, readAnswer, trailers: parseTrailers });
    }
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
