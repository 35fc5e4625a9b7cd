// `helix check [scope]`: runs the check action and prints its answer (src/cli/commands/check.ts calls it).
import { formatDryRun, parseNextAction } from '../../agents/index.js';
import { EXIT } from '../../errors.js';
import { excludeRuntimeFiles } from '../../tracker/index.js';
import { type CommandResult, SILENT_OUTPUT, SessionOutput } from './output.js';
import { actionPrompt, promptPlaceOf } from '../text/prompts.js';
import { actionInvocation, rotationLine } from '../core/dispatch.js';
import { callOnce } from './one-shot.js';
import { answerOf } from './agent-call.js';
import { RUN } from '../text/lines.js';
import { prepareSession } from './agent-setup.js';
import { assertDdxCanBuild } from './ddx-repository.js';
import type { CommandOptions } from './run-options.js';

/** `helix check [scope]`: prints the check's answer; exit 0 when it named a NEXT_ACTION (docs/contract/cli.md §2). */
export async function checkOnce(options: CommandOptions & { scope?: string }): Promise<CommandResult> {
  const session = await prepareSession(options.cwd, options.env, options, !options.dryRun);
  if (!options.dryRun) assertDdxCanBuild(session, options.env);
  if (!options.dryRun) excludeRuntimeFiles(session.root);
  const output = options.dryRun ? SILENT_OUTPUT : new SessionOutput(session.root, options.mode);
  const setup = { ...session, env: options.env };
  const { invocation, call: callInfo } = actionInvocation(setup, 'check', actionPrompt('check', { ...promptPlaceOf(setup, output.logName), scope: options.scope ?? 'repo' }));
  if (options.dryRun) return { exitCode: EXIT.ok, stdout: [formatDryRun(invocation)] };
  const rotated = rotationLine(session.plan, 'check');
  if (rotated) output.line(rotated.level, rotated.text);
  const call = await callOnce(output, options.env, invocation, callInfo);
  if ('interrupt' in call) {
    output.always(RUN.interrupted(call.interrupt.what, []));
    return { exitCode: call.interrupt.exitCode };
  }
  const run = call.value;
  // The agent's final answer, never its transcript (that is in the session log).
  output.answer(answerOf(run));
  if (!parseNextAction(answerOf(run))) {
    output.always(RUN.noNextAction);
    return { exitCode: EXIT.error };
  }
  return { exitCode: EXIT.ok };
}
