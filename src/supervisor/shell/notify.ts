// HELIX_NOTIFY: a program of the user's that hears about the moments an unattended run needs a
// person (run end, GUIDANCE/WAIT/STOP, typed stops, a limit pause and resume, a budget stop, a
// blocker report). helix runs it with an argument array — never a shell — and writes ONE JSON event
// (the event log's format, docs/events.md) and a newline on its stdin. A notifier that fails, hangs
// or is missing never stops the run and never holds it up beyond NOTIFY_TIMEOUT_MS: after that its
// whole process group (it leads one of its own) is killed, whatever it started included.
import { spawn } from 'node:child_process';

/** The program and its arguments, as HELIX_NOTIFY names them. */
export interface NotifyCommand {
  file: string;
  args: string[];
}

/** How long a notifier may take before helix kills it and goes on. */
export const NOTIFY_TIMEOUT_MS = 5000;

// Characters a user may expect a shell to interpret: refused in the blank-separated form, so
// `HELIX_NOTIFY='notify-send "run done"'` is told to use the JSON form instead of running a program
// named `"run`.
const SHELL_CHARACTERS = /["'`$\\|;&<>(){}*?~#!]/;

/**
 * HELIX_NOTIFY's value: a JSON array of strings (`["notify-send", "--app-name", "helix"]`), or a
 * program and arguments separated by blanks (`/usr/local/bin/helix-notify --quiet`). Unset or blank:
 * no notifier. Anything else: `error`, one line saying what to write instead.
 */
export function parseNotifyCommand(text: string | undefined): { command?: NotifyCommand; error?: string } {
  const value = text?.trim() ?? '';
  if (value === '') return {};
  let words: unknown;
  if (value.startsWith('[')) {
    try {
      words = JSON.parse(value);
    } catch {
      return { error: 'HELIX_NOTIFY starts with [ but is not a JSON array of strings' };
    }
    if (!Array.isArray(words) || words.length === 0 || !words.every((w) => typeof w === 'string' && w !== '')) {
      return { error: 'HELIX_NOTIFY must be a JSON array of non-empty strings: the program, then its arguments' };
    }
  } else {
    if (SHELL_CHARACTERS.test(value)) {
      return { error: `HELIX_NOTIFY is never run by a shell: quotes, $, pipes and the like are not interpreted; name the program and its arguments as a JSON array, e.g. ["notify-send", "helix run"]` };
    }
    words = value.split(/\s+/);
  }
  const [file, ...args] = words as string[];
  return { command: { file: file as string, args } };
}

/** What became of one notification: helix reports a failure in one line and goes on. */
export type NotifyOutcome = { ok: true } | { ok: false; why: string };

export interface NotifyOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
}

/**
 * Runs the notifier with `event` as one JSON line on its stdin; resolves when it exits, or when it
 * was killed for running past the timeout. Never rejects. The notifier leads its own process
 * group and session, so a Ctrl-C meant for helix does not reach it and the kill reaches whatever it
 * started; a notifier that exits at once and leaves a job running (`curl … &`) is not waited for.
 */
export function notify(command: NotifyCommand, event: object, options: NotifyOptions = {}): Promise<NotifyOutcome> {
  const timeoutMs = options.timeoutMs ?? NOTIFY_TIMEOUT_MS;
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: NotifyOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(command.file, command.args, { stdio: ['pipe', 'ignore', 'ignore'], detached: true, env: options.env ?? process.env, ...(options.cwd ? { cwd: options.cwd } : {}) });
    } catch (error) {
      resolve({ ok: false, why: `could not start: ${(error as Error).message}` });
      return;
    }
    const timer = setTimeout(() => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // the group is gone already
        }
      }
      settle({ ok: false, why: `did not finish within ${timeoutMs / 1000}s: killed` });
    }, timeoutMs);
    child.on('error', (error: NodeJS.ErrnoException) => {
      settle({ ok: false, why: error.code === 'ENOENT' ? 'not found' : `could not start: ${error.code ?? error.message}` });
    });
    child.on('exit', (code, signal) => {
      if (code === 0) settle({ ok: true });
      else settle({ ok: false, why: signal ? `killed by ${signal}` : `exited ${code}` });
    });
    // a notifier that does not read its stdin (or is gone) closes the pipe: not helix's problem
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(`${JSON.stringify(event)}\n`);
  });
}
