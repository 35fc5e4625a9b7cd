// One agent call as the user sees it (docs/contract/bash-interface.md §0.3, §0.4): the start line and the prompt
// echo (normal mode), a heartbeat for long `ddx agent run` calls, the timeout line, the framed block
// in the session log, and the completion line — long form in normal mode, the summary form with its
// log range under --summary. What the agent answered is returned for the caller to print. Every
// agent call of helix, the verify command's too (an attempt's and `helix gate`'s), goes through
// `callAgent`; DDx's bookkeeping (an evidence entry) through `callQuietly`: this file alone starts
// the agents module's process (`runAgentInvocation`).
import {
  type AgentInvocation,
  type AgentProblem,
  type AgentRunResult,
  AgentStartError,
  type DdxCallRecord,
  type UsageLimit,
  agentTimeoutSeconds,
  claudeRootHint,
  ddxProblemOf,
  ddxUsageLimitOf,
  errorTextsOf,
  failureTextsOf,
  limitInText,
  problemIn,
  readDdxRecord,
  rootRefusalIn,
  runAgentInvocation,
  spentOf,
  usageLimitOf,
} from '../../agents/index.js';
import { CHILD_EXIT } from '../../errors.js';
import { type BeadStore, archivedIds, beadsLostError, saveLostBeads, vanishedIds } from '../../tracker/index.js';
import { type CallInfo, type CallKind, callKind, ddxCommandWords, lostBeadsStopRun } from '../core/dispatch.js';
import { AGENT_CALL, FRAME, type Say, stamp, tagged } from '../text/lines.js';
import { type LogRange, type RunOutput, clockTime } from './output.js';
import { withProcessTag } from './claimer-calls.js';

/**
 * An agent call's result; `startFailure` says why the program could not be started at all (and
 * `startCode` its system error code); `ddx` is DDx's own record of a ddx call (agents/ddx-records.ts).
 */
export type AgentCall = AgentRunResult & { startFailure?: string; startCode?: string; ddx?: DdxCallRecord; /** its framed block in the session log (§0.3) */ log?: LogRange };

function harnessOf(invocation: AgentInvocation, fallback: string): string {
  const at = invocation.args.indexOf('--harness');
  return at >= 0 ? (invocation.args[at + 1] ?? fallback) : fallback;
}

export interface CallContext {
  output: RunOutput;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
  now: () => Date;
  /** Tokens of every call so far, for the `<total> total` of the completion lines. */
  totals: CallTotals;
  /**
   * Inside the loop (`helix run`, `helix build`): a program that cannot be started (not found, not
   * executable, a command line over the system's limit) is a failed call with one line saying why
   * — a failed attempt, never the end of the run — and a call after which beads are missing from
   * the file stops the run (exit 15), saying which; a planning action's call saves them, says so
   * in one line and the run goes on (core/dispatch.ts lostBeadsStopRun).
   */
  loop?: { store: BeadStore };
  /** Several slots (`--jobs` above 1): an action's lines name the action, as an attempt's name its bead (docs/contract/cli.md §6.10; the lines are docs/contract/bash-interface.md's). */
  tagActions?: boolean;
  /** How long a stopped call's processes get between SIGTERM and SIGKILL, when not run-agent.ts's default (`helix gate` answers within `helix stop`'s 10 s). */
  killGraceMs?: number;
}

/** Tokens of every call this process made, for the `<total> total` of the completion lines. */
export class CallTotals {
  tokens = 0;
  /**
   * DDx sessions already on some call's bill: with several `ddx try` in flight, a triage DDx
   * records without a bead falls in more than one call's window, and is counted once.
   */
  readonly ddxSessions = new Set<string>();
}

/** An agent call cut short by an interrupt: the command's exit path takes over. */
export class RunInterrupted extends Error {
  constructor() {
    super('interrupted');
    this.name = 'RunInterrupted';
  }
}

/**
 * What an agent answered, as printed on stdout: its final answer, never its transcript (codex's
 * and claude's structured output; the stdout of a ddx call). The transcript is in the log.
 */
export function answerOf(result: AgentRunResult): string {
  return result.answer;
}

/** How a call is stopped when that is not a plain SIGTERM (agents/run-agent.ts `stopWith`: a `ddx try` stops after its gate). */
export interface CallStop {
  stopWith?: () => Promise<'SIGTERM' | 'SIGKILL'>;
}

/** One call, as the user sees it; throws RunInterrupted when an interrupt ended it. */
export async function callAgent(ctx: CallContext, invocation: AgentInvocation, call: CallInfo, stop: CallStop = {}): Promise<AgentCall> {
  const before = ctx.loop?.store.read();
  const shape = callShape(ctx, invocation, call);
  printStart(shape);
  const started = ctx.now().getTime();
  // A long `ddx agent run` says every minute that it is still going (normal mode only).
  const heartbeat = shape.kind === 'ddx-run' ? setInterval(() => shape.print(AGENT_CALL.ddxRunHeartbeat(shape.harness, Math.round((ctx.now().getTime() - started) / 1000))), 60_000) : undefined;
  heartbeat?.unref();
  let result: AgentRunResult;
  try {
    result = await runAgentInvocation(invocation, {
      // tagged with this process too: a later run can tell whether anything of it is left (claimer-calls.ts)
      env: withProcessTag(ctx.env),
      timeoutMs: shape.timeoutSec * 1000,
      signal: ctx.signal,
      // claude's and codex's structured streams: a line per tool call, thinking block, tool result (§0.4)
      onProgress: (text) => shape.print(AGENT_CALL.progress(text)),
      ...(stop.stopWith ? { stopWith: stop.stopWith } : {}),
      ...(ctx.killGraceMs !== undefined ? { killGraceMs: ctx.killGraceMs } : {}),
    });
  } catch (error) {
    if (!ctx.loop || !(error instanceof AgentStartError)) throw error;
    ctx.output.always(error.message);
    return notStarted(error);
  } finally {
    if (heartbeat) clearInterval(heartbeat);
  }
  // DDx keeps what its agents spent and answered in its own records, not (all) on stdout
  const ddx = invocation.file === 'ddx' ? unseen(ctx.totals, readDdxRecord(invocation.cwd, new Date(started), call.beadId ? { beadId: call.beadId } : {})) : undefined;
  if (ddx?.spent) result = { ...result, tokens: ddx.spent.tokens, usage: { ...(result.usage ?? NO_USAGE), ...(ddx.spent.costUsd !== undefined ? { costUsd: ddx.spent.costUsd } : {}) } };
  ctx.totals.tokens += result.tokens;
  const log = printEnd(shape, result);
  if (result.aborted) throw new RunInterrupted();
  if (ctx.loop && before) {
    const lost = vanishedIds(before, ctx.loop.store.read(), () => archivedIds(ctx.loop!.store.dir));
    if (lost.length > 0 && lostBeadsStopRun(call)) throw beadsLostError(ctx.loop.store.dir, before, lost, call.label, ctx.now());
    // a planning action rewrote the queue: what it removed is kept where import puts it back, and said
    if (lost.length > 0) ctx.output.always(AGENT_CALL.beadsRemoved(saveLostBeads(ctx.loop.store.dir, before, lost, call.label, ctx.now()), call.action ?? 'action'));
  }
  return { ...result, log, ...(ddx ? { ddx } : {}) };
}

/**
 * A call of DDx's bookkeeping, no agent's work (an evidence entry on a bead): no lines, no log
 * block, not in the totals; its exit and what it said. A program that cannot be started is a
 * failed call (`startFailure`), never thrown.
 */
export async function callQuietly(ctx: Pick<CallContext, 'env'>, invocation: AgentInvocation, timeoutSec: number): Promise<AgentCall> {
  try {
    return await runAgentInvocation(invocation, { env: withProcessTag(ctx.env), timeoutMs: timeoutSec * 1000 });
  } catch (error) {
    if (!(error instanceof AgentStartError)) throw error;
    return notStarted(error);
  }
}

const NO_USAGE = { input: 0, cachedInput: 0, cacheCreation: 0, output: 0, reasoning: 0 };

/** The record without the sessions an earlier call already counted; those it keeps are counted now. */
function unseen(totals: CallTotals, record: DdxCallRecord): DdxCallRecord {
  const sessions = record.sessions.filter((s) => !totals.ddxSessions.has(s.id));
  for (const s of sessions) totals.ddxSessions.add(s.id);
  const { spent: _spent, ...rest } = record;
  return { ...rest, sessions, ...spentOf(sessions) };
}

/** A ddx call that did not do its work: a non-zero exit, or a result DDx did not call a success (v0.6.1 exits 0 on a failed execute-bead). */
function ddxCallFailed(call: AgentCall): boolean {
  const status = call.ddx?.result?.status;
  return call.exitCode !== 0 || (typeof status === 'string' && status !== 'success' && status !== 'already_satisfied');
}

/**
 * Did the call end on a usage or rate limit? Read from the agent's structured output only
 * (agents/usage-limit.ts): claude's and codex's events on a direct call, DDx's JSON result.
 */
export function limitOfCall(invocation: AgentInvocation, call: AgentCall, now: Date): UsageLimit | undefined {
  if (call.timedOut || call.startFailure) return undefined;
  if (invocation.file === 'ddx') {
    if (!ddxCallFailed(call)) return undefined;
    // DDx's own fields first; then the CLI's text in DDx's record of the sessions (the real binaries never set those fields)
    return ddxUsageLimitOf(call.stdout) ?? firstOf(failureTextsOf(call.ddx ?? { sessions: [] }), (text) => limitInText(text, now));
  }
  if (call.exitCode === 0) return undefined;
  return usageLimitOf(invocation.format, call.stdout, now);
}

/**
 * Did the call fail on something that is not the work's — setup (a program not installed, a login,
 * a model, a route) or infrastructure (a provider down, DDx's own malfunction)? Read from DDx's
 * status and failure mode first, then from what the program itself reported (agents/agent-problems.ts).
 */
export function problemOfCall(invocation: AgentInvocation, call: AgentCall): AgentProblem | undefined {
  if (call.startFailure) {
    // a program not there, or not runnable; a command line over the system's limit is the bead's size
    return call.startCode === 'E2BIG' ? undefined : { kind: 'setup', what: `${invocation.file} could not be started`, detail: call.startFailure, fix: 'install it, or put a working one on PATH' };
  }
  if (call.timedOut) return undefined;
  if (invocation.file === 'ddx') {
    if (!ddxCallFailed(call) || !call.ddx) return undefined;
    // DDx's own refusal before any agent ran: its output (no agent session: nothing in it is an agent's)
    const refusal = call.output.split('\n').filter((line) => (call.ddx?.sessions.length ? line.startsWith('Error: ') : line.trim() !== ''));
    return (call.ddx.result ? ddxProblemOf(call.ddx.result) : undefined) ?? firstOf([...failureTextsOf(call.ddx), ...refusal], problemIn);
  }
  if (call.exitCode === 0) return undefined;
  return firstOf(errorTextsOf(invocation.format, call.stdout, call.stderr), problemIn);
}

function firstOf<T>(texts: string[], read: (text: string) => T | undefined): T | undefined {
  for (const text of texts) {
    const found = read(text);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** A program that could not be started, as a failed call: the exit status a shell reports for it. */
function notStarted(error: AgentStartError): AgentCall {
  const exitCode = error.code === 'ENOENT' ? CHILD_EXIT.notFound : CHILD_EXIT.cannotRun;
  return { exitCode, output: '', stdout: '', stderr: '', answer: '', durationMs: 0, timedOut: false, aborted: false, tokens: 0, startFailure: error.message.replace(/^helix: /, ''), startCode: error.code };
}

/** What a call's lines need: its shape, the harness it names, its limit, and the printer. */
interface CallShape {
  ctx: CallContext;
  invocation: AgentInvocation;
  call: CallInfo;
  kind: CallKind;
  harness: string;
  timeoutSec: number;
  bytes: number;
  time: () => string;
  print: (line: Say) => void;
}

function callShape(ctx: CallContext, invocation: AgentInvocation, call: CallInfo): CallShape {
  const time = () => clockTime(ctx.now());
  return {
    ctx,
    invocation,
    call,
    kind: callKind(invocation, call),
    harness: harnessOf(invocation, call.label),
    timeoutSec: call.timeoutSec ?? agentTimeoutSeconds(ctx.env),
    bytes: Buffer.byteLength(call.prompt ?? '', 'utf8'),
    time,
    print: (raw) => {
      const tag = call.tag ?? (ctx.tagActions && call.purpose === 'action' ? call.action : undefined);
      const line = tag ? tagged(raw, tag) : raw;
      ctx.output.line(line.level, line.stamped ? stamp(time(), line.text) : line.text, line.live);
    },
  };
}

function printStart({ kind, invocation, call, harness, bytes, timeoutSec, print }: CallShape): void {
  if (kind === 'codex') print(AGENT_CALL.codexStart({ root: invocation.cwd, model: call.model, bytes, timeoutSec }));
  if (kind === 'ddx-run') {
    print(AGENT_CALL.ddxRunStart({ command: ddxCommandWords(invocation), harness, requested: call.requested ?? call.label, model: call.model, bytes, timeoutSec }));
  }
  if (kind === 'claude') {
    print(AGENT_CALL.claudeStart({ model: call.model, timeoutSec }));
    for (const line of (call.prompt ?? '').replace(/\n$/, '').split('\n')) print(AGENT_CALL.claudePromptLine(line));
    print(AGENT_CALL.claudePromptBytes(bytes));
  }
}

/** The timeout line, the framed block in the log (its range returned), and the completion lines. */
function printEnd({ ctx, kind, invocation, call, harness, timeoutSec, time, print }: CallShape, result: AgentRunResult): LogRange {
  const { output, totals } = ctx;
  const seconds = Math.round(result.durationMs / 1000);
  const rc = result.exitCode;

  if (result.timedOut) {
    if (kind === 'codex') print(AGENT_CALL.codexTimeout(timeoutSec));
    else if (kind === 'claude') print(AGENT_CALL.claudeTimeout(timeoutSec));
    else print(AGENT_CALL.otherTimeout(call.label, timeoutSec));
  }

  const body = result.output.replace(/\n+$/, '');
  const t = time();
  const name = invocation.file === 'ddx' ? ddxCommandWords(invocation, call.purpose === 'build' ? invocation.env.HELIX_SELECTED_ISSUE : undefined) : invocation.file;
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
    print(AGENT_CALL.claudeComplete({ rc, seconds, tokens: result.tokens, costUsd: cost, total: totals.tokens }));
    print(AGENT_CALL.claudeCompleteSummary({ rc, seconds, tokens: result.tokens, costUsd: cost, ...where }));
  } else {
    print(AGENT_CALL.otherComplete({ label: call.label, rc, seconds, tokens: result.tokens, total: totals.tokens }));
    print(AGENT_CALL.otherCompleteSummary({ label: call.label, rc, seconds, tokens: result.tokens, costUsd: cost, ...where }));
  }
  // claude refuses its bypass flags as root: say what to do (the agents module words the advice)
  if (invocation.format === 'claude-stream-json' && rc !== 0 && rootRefusalIn(result.stderr)) output.always(claudeRootHint());
  return range;
}
