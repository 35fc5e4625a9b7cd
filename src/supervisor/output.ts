// Where the run's words go (contract §9). Everything goes to the session log
// `.helix-logs/helix-YYYYMMDD-HHMMSS.log`; stderr gets every line in normal mode and only the
// summary lines with --summary (or none of the verbose ones with --quiet). Agent output is
// appended to the log and its line range reported as `log L<a>–L<b>`.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { printable } from '../terminal-text.js';
import { createUniquely } from '../unique-path.js';

export type OutputMode = 'normal' | 'quiet' | 'summary';

export function clockTime(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}`;
}

export function fileStamp(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}-${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
}

/** What the supervisor writes through: the session log, or nothing at all for dry runs. */
/** One agent call's block in the log (its whole transcript) and its live lines on the terminal. */
export interface AgentOutputSink {
  /** Appends raw agent output to the log; echoes it to stderr in normal mode when `echo` was asked. */
  append: (text: string) => void;
  /** A live-progress line: stderr in normal mode only (the raw events it comes from are in the log). */
  echo: (line: string) => void;
  /** The block's line range in the log (finishes an unfinished last line). */
  range: () => { first: number; last: number };
}

export interface RunOutput {
  readonly mode: OutputMode;
  readonly logName: string;
  summary(line: string): void;
  verbose(line: string): void;
  /** `echo: false` keeps raw output (a JSON event stream) off the terminal. Default true. */
  agentOutputSink(options?: { echo?: boolean }): AgentOutputSink;
}

/** Output for dry runs: prints nothing and writes no log. */
export const SILENT_OUTPUT: RunOutput = {
  mode: 'quiet',
  logName: '-',
  summary: () => undefined,
  verbose: () => undefined,
  agentOutputSink: () => ({ append: () => undefined, echo: () => undefined, range: () => ({ first: 0, last: 0 }) }),
};

export class SessionOutput implements RunOutput {
  readonly logPath: string;
  readonly mode: OutputMode;
  private readonly root: string;
  private lines = 0;
  private partial = false;
  private readonly write: (text: string) => void;

  constructor(root: string, mode: OutputMode, now: Date = new Date(), stderr: (text: string) => void = (t) => process.stderr.write(t)) {
    this.root = root;
    this.mode = mode;
    const dir = join(root, '.helix-logs');
    mkdirSync(dir, { recursive: true });
    // Its own file even when another run or command started in the same second (-2, -3, …):
    // the line ranges it reports count only its own lines.
    this.logPath = createUniquely(join(dir, `helix-${fileStamp(now)}`), '.log', (path) => writeFileSync(path, '', { flag: 'wx' }));
    this.write = (text) => stderr(printable(text));
  }

  /** The log path as printed: relative to the project root. */
  get logName(): string {
    return relative(this.root, this.logPath);
  }

  private toLog(raw: string): void {
    if (!raw) return;
    // People read the log in a terminal (`tail -f`, `sed -n 'a,bp'`): the same rule as stderr.
    const text = printable(raw);
    appendFileSync(this.logPath, text);
    // `lines` counts finished lines; an unfinished one is finished before the next block starts.
    this.lines += text.split('\n').length - 1;
    this.partial = !text.endsWith('\n');
  }

  /** A line every mode shows (cycle progress, stops, run complete, blockers). */
  summary(line: string): void {
    this.toLog(`${line}\n`);
    this.write(`${line}\n`);
  }

  /** Detail: stderr in normal mode, the log only with --summary / --quiet. */
  verbose(line: string): void {
    this.toLog(`${line}\n`);
    if (this.mode === 'normal') this.write(`${line}\n`);
  }

  /** Starts a block of agent output; returns the functions that append to it. */
  agentOutputSink(options: { echo?: boolean } = {}): AgentOutputSink {
    const echoRaw = options.echo !== false;
    if (this.partial) this.toLog('\n');
    const first = this.lines + 1;
    return {
      append: (text: string) => {
        this.toLog(text);
        if (this.mode === 'normal' && echoRaw) this.write(text);
      },
      echo: (line: string) => {
        if (this.mode === 'normal') this.write(`${line}\n`);
      },
      range: () => {
        if (this.partial) this.toLog('\n');
        return { first, last: Math.max(first, this.lines) };
      },
    };
  }
}
