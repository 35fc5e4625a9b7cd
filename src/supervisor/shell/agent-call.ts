// One agent call as the user sees it (docs/contract/bash-interface.md §0.3, §0.4): the start line and the prompt
// echo (normal mode), a heartbeat for long `ddx agent run` calls, the timeout line, the framed block
// in the session log, and the completion line — long form in normal mode, the summary form with its
// log range under --summary. What the agent answered is returned for the caller to print.
import { type AgentCommand, type AgentRunResult, agentTimeoutSeconds, claudeRootHint, rootRefusalIn, runAgentCommand } from '../../agents/index.js';
import { type CallInfo, callKind, ddxCommandWords } from '../core/dispatch.js';
import { AGENT_CALL, FRAME, type Say, stamp } from '../text/lines.js';
import { type RunOutput, clockTime } from './output.js';

function harnessOf(command: AgentCommand, fallback: string): string {
  const at = command.args.indexOf('--harness');
  return at >= 0 ? (command.args[at + 1] ?? fallback) : fallback;
}

export interface CallContext {
  output: RunOutput;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  now: () => Date;
}

/** Tokens of every call this process made, for the `<total> total` of the completion lines. */
export class CallTotals {
  tokens = 0;
}

/**
 * What an agent answered, as printed on stdout: its final answer, never its transcript (codex's
 * and claude's structured output; the stdout of a ddx call). The transcript is in the log.
 */
export function answerOf(result: AgentRunResult): string {
  return result.answer;
}

export async function runAgentCall(ctx: CallContext, command: AgentCommand, call: CallInfo, totals: CallTotals): Promise<AgentRunResult> {
  const { output } = ctx;
  const time = () => clockTime(ctx.now());
  const print = (line: Say) => output.line(line.level, line.stamped ? stamp(time(), line.text) : line.text);
  const timeoutSec = call.timeoutSec ?? agentTimeoutSeconds(ctx.env);
  const kind = callKind(command, call);
  const bytes = Buffer.byteLength(call.prompt ?? '', 'utf8');
  const harness = harnessOf(command, call.label);

  if (kind === 'codex') print(AGENT_CALL.codexStart({ root: command.cwd, model: call.model, bytes, timeoutSec }));
  if (kind === 'ddx-run') {
    print(AGENT_CALL.ddxRunStart({ command: ddxCommandWords(command), harness, requested: call.requested ?? call.label, model: call.model, bytes, timeoutSec }));
  }
  if (kind === 'claude') {
    print(AGENT_CALL.claudeStart({ model: call.model, timeoutSec }));
    for (const line of (call.prompt ?? '').replace(/\n$/, '').split('\n')) print(AGENT_CALL.claudePromptLine(line));
    print(AGENT_CALL.claudePromptBytes(bytes));
  }

  const started = ctx.now().getTime();
  // A long `ddx agent run` says every minute that it is still going (normal mode only).
  const heartbeat = kind === 'ddx-run' ? setInterval(() => print(AGENT_CALL.ddxRunHeartbeat(harness, Math.round((ctx.now().getTime() - started) / 1000))), 60_000) : undefined;
  heartbeat?.unref();
  let result: AgentRunResult;
  try {
    result = await runAgentCommand(command, {
      env: ctx.env,
      timeoutMs: timeoutSec * 1000,
      signal: ctx.signal,
      // claude's and codex's structured streams: a line per tool call, thinking block, tool result (§0.4)
      onProgress: (text) => print(AGENT_CALL.progress(text)),
    });
  } finally {
    if (heartbeat) clearInterval(heartbeat);
  }
  const recorded = result.tokens === 0 && result.usage?.costUsd === undefined ? call.spentAfter?.() : undefined;
  if (recorded) {
    const usage = result.usage ?? { input: 0, cachedInput: 0, cacheCreation: 0, output: 0, reasoning: 0 };
    result = { ...result, tokens: recorded.tokens, ...(recorded.costUsd !== undefined ? { usage: { ...usage, costUsd: recorded.costUsd } } : {}) };
  }
  totals.tokens += result.tokens;
  const seconds = Math.round(result.durationMs / 1000);
  const rc = result.exitCode;

  if (result.timedOut) {
    if (kind === 'codex') print(AGENT_CALL.codexTimeout(timeoutSec));
    else if (kind === 'claude') print(AGENT_CALL.claudeTimeout(timeoutSec));
    else print(AGENT_CALL.otherTimeout(call.label, timeoutSec));
  }

  const body = result.output.replace(/\n+$/, '');
  const t = time();
  const name = command.file === 'ddx' ? ddxCommandWords(command, call.purpose === 'build' ? command.env.HELIX_SELECTED_ISSUE : undefined) : command.file;
  const cost = result.usage?.costUsd;
  const block =
    kind === 'codex'
      ? [FRAME.codexHead(t, rc, seconds), body, FRAME.codexEnd]
      : kind === 'ddx-run'
        ? [FRAME.ddxRunHead(t, { harness, rc, exit: rc, seconds, costUsd: cost ?? 0, tokens: result.tokens }), body, FRAME.ddxRunEnd]
        : kind === 'claude'
          ? [body]
          : [FRAME.otherHead(t, call.purpose === 'verify' ? 'verify' : name, rc, seconds), body, FRAME.otherEnd(call.purpose === 'verify' ? 'verify' : name)];
  const range = output.logBlock(`${block.join('\n')}\n`);
  const where = { first: range.first, last: range.last, log: output.logName };

  if (kind === 'codex') {
    print(AGENT_CALL.codexComplete({ rc, seconds, tokens: result.tokens, total: totals.tokens }));
    print(AGENT_CALL.codexCompleteSummary({ rc, seconds, tokens: result.tokens, costUsd: cost, ...where }));
  } else if (kind === 'ddx-run') {
    print(AGENT_CALL.ddxRunComplete({ harness, exit: rc, seconds, tokens: result.tokens, costUsd: cost ?? 0, total: totals.tokens }));
    print(AGENT_CALL.ddxRunCompleteSummary({ harness, exit: rc, seconds, tokens: result.tokens, costUsd: cost ?? 0, ...where }));
  } else if (kind === 'claude') {
    print(AGENT_CALL.claudeCompleteSummary({ rc, seconds, tokens: result.tokens, costUsd: cost, ...where }));
  } else {
    print(AGENT_CALL.otherComplete({ label: call.label, rc, seconds, tokens: result.tokens, total: totals.tokens }));
    print(AGENT_CALL.otherCompleteSummary({ label: call.label, rc, seconds, tokens: result.tokens, costUsd: cost, ...where }));
  }
  // claude refuses its bypass flags as root: say what to do (the agents module words the advice)
  if (command.format === 'claude-stream-json' && rc !== 0 && rootRefusalIn(result.stderr)) output.always(claudeRootHint());
  return result;
}
