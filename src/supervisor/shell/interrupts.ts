// What ends a command that holds something — claims, the run's pid file, a governing bead, an
// agent's process group: SIGHUP (the terminal was closed), SIGINT, SIGTERM, and a reader of stdout
// or stderr that went away (EPIPE, as in `helix run 2>&1 | head -1`). Each becomes the reason of
// one AbortSignal, so the command's own exit path — release the claims, record run-state, reap the
// agent — runs every time. Nothing here calls process.exit: that would skip the release.
// process-group.js alone: every command installs the stream guard, and must not load execa for it
import { killTrackedGroups } from '../../agents/process-group.js';
import { EXIT } from '../../errors.js';

export type InterruptCause = 'SIGHUP' | 'SIGINT' | 'SIGTERM' | 'stdout' | 'stderr';

export interface Interrupt {
  cause: InterruptCause;
  exitCode: number;
  /** Completes `helix: interrupted by …`. */
  what: string;
}

type OutputStream = 'stdout' | 'stderr';

const SIGNALS = ['SIGHUP', 'SIGINT', 'SIGTERM'] as const;

const SIGNAL_EXIT: Record<(typeof SIGNALS)[number], number> = { SIGHUP: EXIT.hangup, SIGINT: EXIT.interrupted, SIGTERM: EXIT.terminated };

export function interruptOf(cause: InterruptCause): Interrupt {
  if (cause === 'stdout' || cause === 'stderr') return { cause, exitCode: EXIT.brokenPipe, what: `a closed ${cause} (EPIPE: its reader went away)` };
  return { cause, exitCode: SIGNAL_EXIT[cause], what: cause };
}

/** Streams whose reader went away. Later writes to them fail quietly; the session log keeps everything. */
const lostStreams = new Set<OutputStream>();
let guarded = false;
/** The innermost watched section, told when a stream is lost. */
let watching: ((cause: InterruptCause) => void) | undefined;

/**
 * Makes a failed write to stdout or stderr (EPIPE, or EIO on a terminal that hung up) an event
 * instead of an uncaught exception. Outside a watched section it only stops the output — a read
 * command piped into `head` finishes and exits 0; inside one it interrupts the section.
 */
export function guardOutputStreams(): void {
  if (guarded) return;
  guarded = true;
  for (const name of ['stdout', 'stderr'] as const) {
    process[name].on('error', () => {
      lostStreams.add(name);
      watching?.(name);
    });
  }
}

export function outputLost(stream: OutputStream): boolean {
  return lostStreams.has(stream);
}

export interface InterruptWatch {
  /** Aborted at the first interrupt. */
  readonly signal: AbortSignal;
  /** The first interrupt, once one arrived. */
  readonly received: Interrupt | undefined;
}

/**
 * Runs `body` with SIGHUP, SIGINT, SIGTERM and lost output turned into an abort of `watch.signal`.
 * The handlers stay until `body` has finished its own cleanup, so a signal during the cleanup
 * cannot kill helix half way through it; a repeated signal kills the agents' groups at once
 * instead of after their grace period (the second Ctrl-C of an impatient user).
 */
export async function watchInterrupts<T>(body: (watch: InterruptWatch) => Promise<T>): Promise<T> {
  guardOutputStreams();
  const controller = new AbortController();
  let received: Interrupt | undefined;
  const raise = (cause: InterruptCause) => {
    if (received) {
      if (cause !== 'stdout' && cause !== 'stderr') killTrackedGroups();
      return;
    }
    received = interruptOf(cause);
    controller.abort(received);
  };
  const handlers = SIGNALS.map((name) => [name, () => raise(name)] as const);
  for (const [name, handler] of handlers) process.on(name, handler);
  const outer = watching;
  watching = raise;
  for (const stream of lostStreams) raise(stream);
  try {
    return await body({
      signal: controller.signal,
      get received() {
        return received;
      },
    });
  } finally {
    watching = outer;
    for (const [name, handler] of handlers) process.off(name, handler);
  }
}

/**
 * One interruptible piece of work (an agent call of `helix check` or an action): its value, or
 * the interrupt that cut it short. What the caller holds (a governing bead) it releases itself.
 */
export async function untilInterrupted<T>(work: (signal: AbortSignal) => Promise<T>): Promise<{ value: T } | { interrupt: Interrupt }> {
  return watchInterrupts(async (watch) => {
    try {
      return { value: await work(watch.signal) };
    } catch (error) {
      if (watch.received) return { interrupt: watch.received };
      throw error;
    }
  });
}
