// The live board on a terminal (docs/watching.md): a region at the bottom of stderr redrawn in
// place — one row per slot and a totals line (text/board.ts) — from the run's own event log, read
// as it grows (the gate's events come from another process, DDx's child). Lines the run prints,
// and the agents' answers on stdout, go above it and stay. It redraws every second (elapsed times
// move during a build of many minutes) and when the terminal is resized; log-update rewrites only
// the rows that changed and cuts the region to the terminal's height.
import ansiEscapes from 'ansi-escapes';
import { createLogUpdate } from 'log-update';
import stringWidth from 'string-width';
import { type Night, addEvent, emptyNight } from '../core/night.js';
import { boardRows } from '../text/board.js';
import { EventFollower } from './events.js';

/** How often the board redraws when nothing happens (its elapsed times move). */
const TICK_MS = 1000;

type Stream = NodeJS.WriteStream;

export class LiveBoard {
  private readonly follower: EventFollower;
  private readonly night: Night = emptyNight();
  private readonly region: ReturnType<typeof createLogUpdate>;
  private timer: NodeJS.Timeout | undefined;
  /** The rows on the screen now, for a resize to know how many lines they have become. */
  private shown: string[] = [];
  private readonly resized = () => this.redrawResized();

  constructor(
    eventLog: string,
    private readonly stderr: Stream,
    private readonly stdout: Stream,
    private readonly clock: (ms: number) => string,
    private readonly now: () => number = Date.now,
  ) {
    this.follower = new EventFollower(eventLog);
    // the cursor stays visible: a helix killed with SIGKILL must not leave the terminal without one
    this.region = createLogUpdate(rawWriter(stderr), { showCursor: true });
  }

  start(): void {
    this.timer = setInterval(() => this.refresh(), TICK_MS);
    this.timer.unref();
    this.stderr.on('resize', this.resized);
    this.refresh();
  }

  /** Reads the events written since the last look and redraws. */
  refresh(): void {
    for (const event of this.follower.read()) addEvent(this.night, event);
    if (!this.timer) return;
    const size = { columns: this.stderr.columns || 80, rows: this.stderr.rows || 24 };
    this.shown = boardRows(this.night, this.now(), size, this.clock, stringWidth);
    this.region(this.shown.join('\n'));
  }

  /**
   * After a resize: a terminal that reflows its lines (tmux, VTE, iTerm2, kitty, Windows Terminal)
   * has made each row that is now too wide into several lines, more than log-update erases — so
   * the board erases what its rows have become, from the first down, and draws itself anew.
   */
  private redrawResized(): void {
    if (!this.timer || this.shown.length === 0) return this.refresh();
    const columns = Math.max(1, this.stderr.columns || 80);
    const lines = this.shown.reduce((sum, row) => sum + Math.max(1, Math.ceil(stringWidth(row) / columns)), 0);
    this.stderr.write(Buffer.from(ansiEscapes.cursorUp(lines) + ansiEscapes.cursorLeft + ansiEscapes.eraseDown, 'utf8'));
    this.region.done();
    this.refresh();
  }

  /** Prints `text` above the board; it stays there as the board moves on. */
  above(stream: 'stderr' | 'stdout', text: string): void {
    const target = stream === 'stderr' ? this.stderr : this.stdout;
    // an answer redirected to a file does not pass through the terminal: nothing to make room for
    if (!this.timer || (stream === 'stdout' && !this.stdout.isTTY)) {
      target.write(text);
      return;
    }
    this.region.clear();
    target.write(text);
    this.refresh();
  }

  /** Clears the region and stops redrawing: what the run prints last follows the lines above. */
  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.stderr.off('resize', this.resized);
    this.region.clear();
    this.region.done();
  }
}

/**
 * The stream as log-update sees it, its cursor movements passing as bytes: helix's streams show
 * every control character of a string as text (src/cli/terminal.ts), and the board's rows are
 * made printable before they get here (text/board.ts).
 */
function rawWriter(stream: Stream): Stream {
  return {
    get columns() {
      return stream.columns;
    },
    get rows() {
      return stream.rows;
    },
    isTTY: stream.isTTY,
    write: (text: string) => stream.write(Buffer.from(text, 'utf8')),
  } as unknown as Stream;
}
