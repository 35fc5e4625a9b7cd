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
/** Lines printed above the board that a redraw after a resize can put back (more than any screen shows). */
const KEPT_LINES = 200;

type Stream = NodeJS.WriteStream;

interface Size {
  columns: number;
  rows: number;
}

export class LiveBoard {
  private readonly follower: EventFollower;
  private readonly night: Night = emptyNight();
  private readonly region: ReturnType<typeof createLogUpdate>;
  private timer: NodeJS.Timeout | undefined;
  /** The rows on the screen now, and the size they were drawn for. */
  private shown: string[] = [];
  private size: Size;
  /** The last lines printed above the board, to put back on the screen after a resize. */
  private recent: string[] = [];
  private readonly resized = () => this.refresh();

  constructor(
    eventLog: string,
    private readonly stderr: Stream,
    private readonly stdout: Stream,
    private readonly clock: (ms: number) => string,
    private readonly now: () => number = Date.now,
  ) {
    this.follower = new EventFollower(eventLog);
    this.size = measure(stderr);
    // the cursor stays visible: a helix killed with SIGKILL must not leave the terminal without one
    this.region = createLogUpdate(sizedWriter(stderr, () => this.size), { showCursor: true });
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
    this.followResize();
    this.shown = boardRows(this.night, this.now(), this.size, this.clock, stringWidth);
    this.region(this.shown.join('\n'));
  }

  /** Prints `text` above the board; it stays there as the board moves on. */
  above(stream: 'stderr' | 'stdout', text: string): void {
    const target = stream === 'stderr' ? this.stderr : this.stdout;
    // an answer redirected to a file does not pass through the terminal: nothing to make room for
    if (!this.timer || (stream === 'stdout' && !this.stdout.isTTY)) {
      target.write(text);
      return;
    }
    this.followResize();
    this.region.clear();
    target.write(text);
    this.recent = [...this.recent, ...text.replace(/\n$/, '').split('\n')].slice(-KEPT_LINES);
    this.refresh();
  }

  /** Clears the region and stops redrawing: what the run prints last follows the lines above. */
  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.stderr.off('resize', this.resized);
    this.followResize();
    this.region.clear();
    this.region.done();
  }

  /**
   * Before every write, the terminal's size as it is now (asked of the terminal, not waited for from
   * SIGWINCH, which a busy process hears late). When it changed, a terminal that reflows its lines
   * (tmux, VTE, iTerm2, kitty, Windows Terminal) has made each old row into several lines, and a
   * redraw whose bytes were on their way during the reflow landed half in the old geometry — no
   * count of lines to erase is right then. So the board repaints the whole screen: it erases it
   * (the cursor cannot go above its top, so `rows` up is the top), puts back the last lines it
   * printed above itself that fit, and draws itself under them.
   */
  private followResize(): void {
    const now = measure(this.stderr);
    if (now.columns === this.size.columns && now.rows === this.size.rows) return;
    this.size = now;
    const room = Math.max(0, now.rows - 1 - boardHeight(this.shown.length, now.rows));
    const kept: string[] = [];
    for (let i = this.recent.length - 1, used = 0; i >= 0; i--) {
      used += Math.max(1, Math.ceil(stringWidth(this.recent[i]!) / now.columns));
      if (used > room) break;
      kept.unshift(this.recent[i]!);
    }
    const erase = ansiEscapes.cursorUp(now.rows + this.shown.length * 4) + ansiEscapes.cursorLeft + ansiEscapes.eraseDown;
    this.stderr.write(Buffer.from(erase + kept.map((line) => `${line}\n`).join(''), 'utf8'));
    this.shown = [];
    this.region.done();
  }
}

/** The lines the board takes on a terminal of `rows` (text/board.ts never draws more than `rows - 1`). */
const boardHeight = (shown: number, rows: number) => Math.min(Math.max(shown, 2), Math.max(1, rows - 1));

/** The terminal's size now (an ioctl), or what the stream last knew. */
function measure(stream: Stream): Size {
  try {
    const [columns, rows] = stream.getWindowSize();
    if (columns > 0 && rows > 0) return { columns, rows };
  } catch {
    // not a terminal after all
  }
  return { columns: stream.columns || 80, rows: stream.rows || 24 };
}

/**
 * The stream as log-update sees it: the size the board measured last, and its cursor movements
 * passing as bytes — helix's streams show every control character of a string as text
 * (src/cli/terminal.ts); the board's rows are made printable before they get here (text/board.ts).
 */
function sizedWriter(stream: Stream, size: () => Size): Stream {
  return {
    get columns() {
      return size().columns;
    },
    get rows() {
      return size().rows;
    },
    isTTY: stream.isTTY,
    write: (text: string) => stream.write(Buffer.from(text, 'utf8')),
  } as unknown as Stream;
}
