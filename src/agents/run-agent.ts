// Runs one AgentInvocation as a child process (execa, argument arrays, never a shell) and returns
// what the supervisor needs: exit code, the output of both streams interleaved in arrival order
// (the transcript, for the session log), the agent's final answer (the only text trailers are read
// from, see agent-output.ts), duration, whether it timed out, and token usage.
//
// Process hygiene: the agent leads its own process group, and every process of the call carries
// the call's tag in its environment (descendants.ts), so one that moved to a session of its own
// (`setsid`, a daemon) is found too. On timeout or abort the group and the tagged processes get
// SIGTERM, then SIGKILL after a grace period; when the agent exits on its own, whatever it left
// running is stopped the same way; and when helix itself dies, even by SIGKILL, the watchdog of
// process-group.ts does it — an agent call never leaves processes behind. The call ends when the
// agent exits: a leftover that still holds its stdout or stderr (one the tag does not reach) is
// given PIPE_DRAIN_MS to let go, then the pipes are closed on it. A leftover that holds a pipe a
// wrapper of the agent reads to its end (DDx waiting on its harness) is stopped while the call
// runs, once it has held it as long (pipe-holders.ts).
//
// A program that cannot be started (not found, not executable, a command line over the system's
// limit) throws AgentStartError with one short line, never the command line itself: a prompt in
// an argument can be hundreds of kilobytes.
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { performance } from 'node:perf_hooks';
import { execa } from 'execa';
import { CHILD_EXIT, HelixError } from '../errors.js';
import type { AgentInvocation } from './invocation.js';
import { agentTimeoutSeconds } from './timeout.js';
import { MAX_TIMER_SECONDS } from '../numbers.js';
import { extractTokens } from './tokens.js';
import { findOnPath } from './discovery.js';
import { type AgentUsage, parseEventLine, progressLines, readAgentAnswer, usageTokens } from './agent-output.js';
import { exitCodeForSignal, signalGroup, trackGroup, untrackGroup } from './process-group.js';
import { signalTagged, tagVariable } from './descendants.js';
import { watchStrayPipeHolders } from './pipe-holders.js';

/** Exit code reported for a call that hit the timeout (as GNU `timeout` does). */
export const TIMEOUT_EXIT_CODE = CHILD_EXIT.timedOut;
/** How long a group gets between SIGTERM and SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 5000;
/** After the agent exited, how long what it left behind may keep its stdout/stderr open. */
export const PIPE_DRAIN_MS = 2000;
/** How often a running call is searched for leftovers holding a pipe a wrapper reads (pipe-holders.ts). */
const HOLDER_POLL_MS = 1000;

export type OutputStream = 'stdout' | 'stderr';

export interface RunAgentOptions {
  /** The base environment; the invocation's own variables go on top. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Default: HELIX_AGENT_TIMEOUT from `env` (2700 s). Infinity, or more than a timer holds: none. */
  timeoutMs?: number;
  /** Called with each piece of output as it arrives, e.g. to append it to the session log. */
  onChunk?: (text: string, stream: OutputStream) => void;
  /** Called with each live-progress line (tool calls, thinking, tool results) of a structured stream. */
  onProgress?: (line: string) => void;
  /** Aborting kills the agent's process group (the supervisor's SIGINT/SIGTERM handling). */
  signal?: AbortSignal;
  killGraceMs?: number;
  /**
   * For a program whose own handling of SIGTERM does harm (`ddx try`: cancelled, it lands work no
   * check passed): on an abort or a timeout, does what must come first and answers how the call
   * stops — SIGKILL to the group and the call's tagged processes at once, or SIGTERM to the program
   * alone, which stops what it started itself (DDx cancels its children through its context; a
   * SIGTERM to its group would kill the git of a land half way), and SIGKILL to everything after
   * the grace. The watchdog, which cannot ask, kills such a call outright when helix dies.
   */
  stopWith?: () => Promise<'SIGTERM' | 'SIGKILL'>;
}

export interface AgentRunResult {
  /** The agent's exit code; 124 after a timeout; 128+n when a signal ended it. */
  exitCode: number;
  /** stdout and stderr interleaved in arrival order: the transcript, never parsed for trailers. */
  output: string;
  /** The agent's final answer (see readAgentAnswer): the text trailers are read from. */
  answer: string;
  /** Usage from the agent's structured output, when it printed any. */
  usage?: AgentUsage;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
  /** The call was aborted through `signal`. */
  aborted: boolean;
  /** The signal that ended the agent, if any. */
  signal?: string;
  /** input + output tokens from `usage`; else a `tokens used` footer or execute-bead's JSON; else 0. */
  tokens: number;
}

/** An agent program could not be started: one line naming the program and why, never its arguments. */
export class AgentStartError extends HelixError {
  readonly program: string;
  /** The errno code (ENOENT, EACCES, E2BIG, …), when the system gave one. */
  readonly code: string | undefined;
  constructor(program: string, code: string | undefined, why: string, kind: 'error' | 'missingTool' = 'error', message = `helix: could not start ${program}: ${why}`) {
    super(kind, message);
    this.name = 'AgentStartError';
    this.program = program;
    this.code = code;
  }
}

/** A required program (ddx, codex, claude) is not there or not executable. */
export class MissingToolError extends AgentStartError {
  constructor(program: string, why: string, code?: string) {
    super(program, code, why, 'missingTool', `helix: ${program}: ${why}`);
    this.name = 'MissingToolError';
  }
}

export async function runAgentInvocation(invocation: AgentInvocation, options: RunAgentOptions = {}): Promise<AgentRunResult> {
  const baseEnv = options.env ?? process.env;
  const timeoutMs = options.timeoutMs ?? agentTimeoutSeconds(baseEnv) * 1000;
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  if (!isDirectory(invocation.cwd)) throw new AgentStartError(invocation.file, 'ENOENT', `working folder does not exist: ${invocation.cwd}`);

  const started = performance.now();
  const tag = randomBytes(8).toString('hex');
  const child = execa('/bin/sh', ['-c', START_LATCH, LATCH_NAME, invocation.file, ...invocation.args], {
    cwd: invocation.cwd,
    env: { ...baseEnv, ...invocation.env, ...tagVariable(baseEnv, tag) },
    extendEnv: false,
    ...(invocation.input === undefined ? {} : { input: invocation.input }),
    stdio: [invocation.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe', 'pipe'],
    buffer: false,
    reject: false,
    detached: true,
    cleanup: false,
    stripFinalNewline: false,
  });
  // Registered with the watchdog before the latch lets the agent start: from its first instruction
  // on, a SIGKILL of helix still stops the group (process-group.ts).
  if (child.pid !== undefined) trackGroup(child.pid, graceMs, tag, { outright: options.stopWith !== undefined });
  const latch = child.stdio[3] as unknown as NodeJS.WritableStream | undefined; // a duplex pipe, typed as readable
  latch?.on('error', () => undefined); // the latch is gone already: the result says why
  latch?.end('go\n');

  const output = collectOutput(child, invocation, options);
  const call = child.pid !== undefined ? superviseCall(child, child.pid, tag, { ...options, timeoutMs, graceMs }) : undefined;
  const result = await child;
  call?.end();
  const env = { ...baseEnv, ...invocation.env };
  if (child.pid === undefined) throw startFailure(invocation, result.code, result.originalMessage ?? '', env);
  const refused = latchRefusal(result.exitCode, output.collected.stderr);
  if (refused) throw startFailure(invocation, refused, '', env);
  if (output.failure() !== undefined) throw output.failure();

  output.end();
  const { collected } = output;
  const signal = result.signal ?? undefined;
  const timedOut = call?.state.timedOut ?? false;
  const { answer, usage } = readAgentAnswer(invocation.format, collected.stdout);
  const exitCode = timedOut ? TIMEOUT_EXIT_CODE : (result.exitCode ?? (signal ? exitCodeForSignal(signal) : 1));
  return {
    exitCode,
    output: collected.output,
    stdout: collected.stdout,
    stderr: collected.stderr,
    durationMs: Math.round(performance.now() - started),
    timedOut,
    aborted: call?.state.aborted ?? false,
    ...(signal ? { signal } : {}),
    answer,
    ...(usage ? { usage } : {}),
    tokens: usage ? usageTokens(usage) : tokensFrom(collected),
  };
}

/** What the collector and the watch use of the running child. */
interface Child {
  stdout: Readable | null;
  stderr: Readable | null;
  once(event: 'exit', listener: () => void): unknown;
}

/**
 * Collects both streams as they arrive — interleaved, and each alone — handing each piece to
 * `onChunk` and each structured event's progress lines to `onProgress`. The first error a callback
 * throws stops the callbacks and is the call's failure, thrown once the call has ended.
 */
function collectOutput(child: Child, invocation: AgentInvocation, options: RunAgentOptions) {
  const collected = { output: '', stdout: '', stderr: '' };
  let callbackError: unknown;
  const progress = progressReader(invocation, options.onProgress, (error) => {
    callbackError ??= error;
  });
  const collect = (stream: OutputStream) => {
    const decoder = new StringDecoder('utf8');
    const take = (text: string) => {
      if (!text) return;
      collected.output += text;
      collected[stream] += text;
      if (stream === 'stdout') progress.push(text);
      if (options.onChunk && callbackError === undefined) {
        try {
          options.onChunk(text, stream);
        } catch (error) {
          callbackError = error;
        }
      }
    };
    child[stream]?.on('data', (chunk: Buffer | string) => take(typeof chunk === 'string' ? chunk : decoder.write(chunk)));
    child[stream]?.on('end', () => take(decoder.end()));
  };
  collect('stdout');
  collect('stderr');
  return { collected, failure: () => callbackError, end: () => progress.end() };
}

/**
 * Watches a started call (its group `pgid`, its processes tagged `tag`) until it ends: stops it on
 * the timeout or an abort (SIGTERM, or `stopWith`'s answer; SIGKILL after the grace), stops what
 * the agent left when it exits on its own, and what holds a pipe a wrapper reads; `end()`, once the
 * call has ended, kills what is left and lets the watchdog forget the group.
 */
function superviseCall(child: Child, pgid: number, tag: string, options: RunAgentOptions & { timeoutMs: number; graceMs: number }) {
  const { graceMs } = options;
  const state = { timedOut: false, aborted: false, ended: false, stopping: false };
  /** Tagged processes (outside the group) found when the call was stopped. */
  let strays = 0;
  const timers: NodeJS.Timeout[] = [];
  const later = (ms: number, work: () => void) => {
    const timer = setTimeout(work, ms);
    timer.unref();
    timers.push(timer);
  };
  /** The group and the call's tagged processes (`alone`: the program, the group's leader) get `first`, and SIGKILL after the grace. */
  const signalCall = (first: NodeJS.Signals, alone = false) => {
    if (state.ended) return;
    if (alone) signalProcess(pgid, first);
    else {
      signalGroup(pgid, first);
      strays += signalTagged(tag, first);
    }
    if (first === 'SIGKILL') return;
    later(graceMs, () => {
      signalGroup(pgid, 'SIGKILL');
      signalTagged(tag, 'SIGKILL');
    });
  };
  const stopCall = () => {
    if (state.stopping) return;
    state.stopping = true;
    if (!options.stopWith) return signalCall('SIGTERM');
    void options.stopWith().then((first) => signalCall(first, first === 'SIGTERM'), () => signalCall('SIGKILL'));
  };
  const onAbort = () => {
    state.aborted = true;
    stopCall();
  };
  /** A leftover on a pipe a wrapper of the agent reads to its end (DDx waiting on its harness): it and its group go. */
  const stopHolder = (pid: number) => {
    strays++;
    if (!signalGroup(pid, 'SIGTERM')) signalProcess(pid, 'SIGTERM');
    later(graceMs, () => {
      if (!signalGroup(pid, 'SIGKILL')) signalProcess(pid, 'SIGKILL');
    });
  };
  const unwatchHolders = watchStrayPipeHolders(pgid, tag, { pollMs: HOLDER_POLL_MS, holdMs: PIPE_DRAIN_MS, stop: stopHolder });
  // A delay over 2^31-1 ms would fire at once: such a timeout means none.
  if (options.timeoutMs <= MAX_TIMER_SECONDS * 1000) {
    timers.push(setTimeout(() => {
      state.timedOut = true;
      stopCall();
    }, options.timeoutMs));
  }
  child.once('exit', () => {
    unwatchHolders();
    // Leftovers of an agent that exited on its own would otherwise hold our pipes open.
    if (!state.timedOut && !state.aborted) signalCall('SIGTERM');
    // The call ends with its program: a holder the tag did not reach loses the pipes.
    later(PIPE_DRAIN_MS, () => {
      child.stdout?.destroy();
      child.stderr?.destroy();
    });
  });
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  return {
    state,
    end() {
      state.ended = true;
      unwatchHolders();
      for (const timer of timers) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      signalGroup(pgid, 'SIGKILL'); // anything that let go of the pipes but kept running
      if (strays > 0) signalTagged(tag, 'SIGKILL');
      untrackGroup(pgid);
    },
  };
}

/** Splits a structured stdout stream into lines and hands each event's progress lines on. */
function progressReader(invocation: AgentInvocation, onProgress: ((line: string) => void) | undefined, fail: (error: unknown) => void) {
  const format = invocation.format;
  let pending = '';
  const emit = (line: string) => {
    const event = format && onProgress ? parseEventLine(line) : undefined;
    if (!event || !format || !onProgress) return;
    try {
      for (const text of progressLines(format, event)) onProgress(text);
    } catch (error) {
      fail(error);
    }
  };
  return {
    push(text: string) {
      if (!format || !onProgress) return;
      pending += text;
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) emit(line);
    },
    end() {
      if (pending) emit(pending);
      pending = '';
    },
  };
}

// The combined text first (docs/contract/cli.md §8); each stream alone when the other stream's output
// landed between the `tokens used` line and its count.
function tokensFrom(collected: { output: string; stdout: string; stderr: string }): number {
  return extractTokens(collected.output) || extractTokens(collected.stderr) || extractTokens(collected.stdout);
}

/**
 * The start latch every agent starts behind: `sh` waits on fd 3 for helix's `go` (sent once the group is
 * registered with the watchdog), then becomes the agent with exec — same pid, same group, its
 * stdin, stdout and stderr. Without `go` (helix died first) it exits and the agent never starts.
 */
const START_LATCH = 'IFS= read -r go <&3 && [ "$go" = go ] || exit 125; exec 3<&-; exec "$@"';
const LATCH_NAME = 'helix-agent';

/**
 * The errno of an agent the latch could not exec, from the shell's own message (`helix-agent: 1:
 * exec: codex: not found`, 127; `…: Permission denied`, 126), or undefined when the agent ran.
 */
function latchRefusal(exitCode: number | undefined, stderr: string): string | undefined {
  if ((exitCode !== CHILD_EXIT.cannotRun && exitCode !== CHILD_EXIT.notFound) || !new RegExp(`^${LATCH_NAME}: .*exec: `).test(stderr)) return undefined;
  return exitCode === CHILD_EXIT.notFound ? 'ENOENT' : 'EACCES';
}

/** One short line for a program that could not be started; the system's message may quote the whole command line. */
export function startFailure(invocation: Pick<AgentInvocation, 'file' | 'args'>, code: string | undefined, message: string, env: NodeJS.ProcessEnv = process.env): AgentStartError {
  const program = invocation.file;
  // ENOENT for a program that is there: the kernel could not find the interpreter its #! line names
  if (code === 'ENOENT' && findOnPath(program, env)) return new AgentStartError(program, code, 'the interpreter its #! line names was not found (ENOENT)');
  if (code === 'ENOENT') return new MissingToolError(program, 'not found on PATH (install it or put it on PATH)', code);
  if (code === 'EACCES') return new MissingToolError(program, 'found but not executable (check its permissions)', code);
  if (code === 'E2BIG') {
    const sizes = invocation.args.map((a) => Buffer.byteLength(a));
    const total = sizes.reduce((a, b) => a + b, 0);
    return new AgentStartError(program, code, `its command line is too long for the system (E2BIG: ${kib(total)} of arguments, the longest ${kib(Math.max(0, ...sizes))})`);
  }
  const firstLine = message.split('\n')[0] ?? '';
  const short = firstLine.length > 200 ? `${firstLine.slice(0, 200)}…` : firstLine;
  return new AgentStartError(program, code, code ? `${code}${short && !short.includes(code) ? ` (${short})` : ''}` : short || 'unknown error');
}

function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // exited meanwhile
  }
}

const kib = (bytes: number) => `${Math.ceil(bytes / 1024)} KB`;

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
