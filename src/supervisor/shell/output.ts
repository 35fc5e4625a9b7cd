// Where helix's lines go (docs/contract/bash-interface.md §0.2, §0.3). Three modes: normal, --quiet (hides only
// agent-call noise) and --summary (narrative lines go to the session log only; short summary
// lines take their place). Everything printed is also appended to the session log
// `<root>/.helix-logs/helix-YYYYMMDD-HHMMSS.log`; agent output is appended there as framed blocks
// whose line range the summary-form completion line reports as `log L<a>–L<b>`. Agent answers go
// to stdout.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { printable } from '../../terminal-text.js';
import { createUniquely } from '../../unique-path.js';
import type { LineLevel } from '../text/lines.js';

export type OutputMode = 'normal' | 'quiet' | 'summary';
export type { LineLevel } from '../text/lines.js';

export function clockTime(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}`;
}

export function fileStamp(now: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}-${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
}

/** Whether a line of `level` is printed on stderr in `mode` (the table of §0.2). */
export function onStderr(level: LineLevel, mode: OutputMode): boolean {
  switch (level) {
    case 'always':
      return true;
    case 'narrative':
    case 'terminal':
      return mode !== 'summary';
    case 'noise':
      return mode === 'normal';
    case 'summary':
      return mode === 'summary';
  }
}

/**
 * Under the live board (docs/watching.md) stderr keeps only what stays on the screen above it: the
 * `--summary` lines — but for the progress the board itself shows as it happens (a `live` line: an
 * attempt's start, its agent's completion) —, so each bead's end, every failure with its reason,
 * limits and the run's end, and what is said in every mode. The session log keeps all of it.
 */
export function aboveBoard(level: LineLevel): boolean {
  return level === 'always' || level === 'summary';
}

/** Whether it goes to the session log: every line, except the form of a pair the mode does not use. */
export function inLog(level: LineLevel, mode: OutputMode): boolean {
  if (level === 'summary') return mode === 'summary';
  if (level === 'terminal') return mode !== 'summary';
  return true;
}

/** The log lines a block occupies: the log's line count just before it and just after it (§0.3). */
export interface LogRange {
  first: number;
  last: number;
}

/**
 * How a one-shot command ended, for src/cli to print and exit with: its exit code and the lines
 * it leaves for the terminal (a dry run's command line; a refusal before any session output).
 */
export interface CommandResult {
  exitCode: number;
  stdout?: string[];
  stderr?: string[];
}

/** What the supervisor writes through: the session log, or nothing at all for dry runs. */
export interface RunOutput {
  readonly mode: OutputMode;
  /** Absolute path of the session log ('-' when there is none). */
  readonly logName: string;
  /** `live`: progress the live board shows as it happens; under the board, the session log only. */
  line(level: LineLevel, text: string, live?: boolean): void;
  /** Shown in every mode. */
  always(text: string): void;
  /** Progress: stderr in normal and --quiet, the log only with --summary. */
  narrative(text: string): void;
  /** Agent-call noise: stderr in normal mode only. */
  noise(text: string): void;
  /** Appends a block of agent output (already framed) to the log and returns the range it took. */
  logBlock(lines: string): LogRange;
  /** An agent's answer on stdout. */
  answer(text: string): void;
}

/** Output for dry runs: prints nothing and writes no log. */
export const SILENT_OUTPUT: RunOutput = {
  mode: 'quiet',
  logName: '-',
  line: () => undefined,
  always: () => undefined,
  narrative: () => undefined,
  noise: () => undefined,
  logBlock: () => ({ first: 0, last: 0 }),
  answer: () => undefined,
};

export class SessionOutput implements RunOutput {
  readonly logPath: string;
  readonly mode: OutputMode;
  private lines = 0;
  private readonly stderr: (text: string) => void;
  private readonly stdout: (text: string) => void;

  /** The live board is on: stderr gets only the lines that stay above it (aboveBoard). */
  underBoard = false;

  constructor(
    root: string,
    mode: OutputMode,
    now: Date = new Date(),
    stderr: (text: string) => void = (t) => process.stderr.write(t),
    stdout: (text: string) => void = (t) => process.stdout.write(t),
  ) {
    this.mode = mode;
    const dir = join(root, '.helix-logs');
    mkdirSync(dir, { recursive: true });
    // Its own file even when another run or command started in the same second (-2, -3, …):
    // the line ranges it reports count only its own lines.
    this.logPath = createUniquely(join(dir, `helix-${fileStamp(now)}`), '.log', (path) => writeFileSync(path, '', { flag: 'wx' }));
    // bead titles and agent text are shown, never obeyed by the terminal
    this.stderr = (text) => stderr(printable(text));
    this.stdout = (text) => stdout(printable(text));
  }

  /** Lines that print the log path print it absolute (§0.3). */
  get logName(): string {
    return this.logPath;
  }

  private toLog(raw: string): void {
    if (!raw) return;
    // People read the log in a terminal (`tail -f`, `sed -n 'a,bp'`): the same rule as stderr.
    const text = printable(raw);
    appendFileSync(this.logPath, text);
    this.lines += text.split('\n').length - 1;
  }

  line(level: LineLevel, text: string, live = false): void {
    if (inLog(level, this.mode)) this.toLog(`${text}\n`);
    if (this.underBoard ? aboveBoard(level) && !live : onStderr(level, this.mode)) this.stderr(`${text}\n`);
  }

  always(text: string): void {
    this.line('always', text);
  }

  narrative(text: string): void {
    this.line('narrative', text);
  }

  noise(text: string): void {
    this.line('noise', text);
  }

  logBlock(lines: string): LogRange {
    const first = this.lines;
    this.toLog(lines.endsWith('\n') || !lines ? lines : `${lines}\n`);
    return { first, last: this.lines };
  }

  answer(text: string): void {
    if (!text) return;
    this.stdout(text.endsWith('\n') ? text : `${text}\n`);
  }
}
