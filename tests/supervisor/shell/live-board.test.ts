// The live board (shell/live-board.ts) driven through its ports: the run's real event log, a
// terminal that records what is written to it and answers its size as an ioctl would, its clock,
// and its once-a-second redraw on vitest's fake timers. The board draws the slots from the log,
// makes room for each line printed above it, repaints the screen after a resize with the lines
// that fit put back, and is gone after stop. (tests/run/board.test.ts watches it in real tmux.)
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import ansiEscapes from 'ansi-escapes';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventBody } from '../../../src/supervisor/core/run-events.js';
import { EventLog, makeEvent } from '../../../src/supervisor/shell/events.js';
import { LiveBoard } from '../../../src/supervisor/shell/live-board.js';
import { tempDir } from '../../helpers/cli.js';

const T0 = Date.parse('2026-11-28T12:00:00Z');

/** A terminal: what was written to it, in order, and the size it reports. */
class Terminal extends EventEmitter {
  written: string[] = [];
  columns = 80;
  rows = 24;
  constructor(readonly isTTY: boolean) {
    super();
  }
  getWindowSize(): [number, number] {
    return [this.columns, this.rows];
  }
  write(data: string | Buffer): boolean {
    this.written.push(String(data));
    return true;
  }
  get text(): string {
    return this.written.join('');
  }
}

function world(stdoutIsTTY = true) {
  const path = join(tempDir(), 'helix-x.events.ndjson');
  const log = EventLog.open(path);
  const write = (body: EventBody, at = T0) => log.append(makeEvent('helix-x', new Date(at), body));
  write({ type: 'run_start', pid: 1, ready: 1, agent: 'codex', root: '/p', jobs: 1 });
  const stderr = new Terminal(true);
  const stdout = new Terminal(stdoutIsTTY);
  let now = T0;
  const board = new LiveBoard(path, stderr as unknown as NodeJS.WriteStream, stdout as unknown as NodeJS.WriteStream, () => '12:00', () => now);
  return { board, write, stderr, stdout, tick: (ms: number) => { now += ms; vi.advanceTimersByTime(ms); } };
}

describe('the live board', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] }));
  afterEach(() => vi.useRealTimers());

  it('draws each slot from the event log and redraws every second as the times move', () => {
    const w = world();
    w.write({ type: 'claim', bead: 'hx-1', attempt: 1, slot: 1, title: 'the first bead' });
    w.board.start();
    expect(w.stderr.text).toContain(' 1 hx-1');
    expect(w.stderr.text).toContain('the first bead');
    expect(w.stderr.text).toMatch(/0s · 0 closed, 0 failed/);
    w.stderr.written = [];
    w.tick(65_000);
    expect(w.stderr.text).toMatch(/1m05s · 0 closed/);
    w.board.stop();
  });

  it('a line printed above the board is written between clearing it and drawing it again', () => {
    const w = world();
    w.board.start();
    w.stderr.written = [];
    w.board.above('stderr', 'helix: a line that stays\n');
    const at = w.stderr.written.indexOf('helix: a line that stays\n');
    expect(at).toBeGreaterThan(0);
    expect(w.stderr.written.slice(0, at).join('')).toContain(ansiEscapes.eraseLine);
    expect(w.stderr.written.slice(at + 1).join('')).toMatch(/closed, 0 failed/);
  });

  it('an answer on a stdout that is not the terminal is written as it is, the board untouched', () => {
    const w = world(false);
    w.board.start();
    w.stderr.written = [];
    w.board.above('stdout', 'NEXT_ACTION: STOP\n');
    expect(w.stdout.written).toEqual(['NEXT_ACTION: STOP\n']);
    expect(w.stderr.written).toEqual([]);
  });

  it('after a resize it erases the screen and puts back the lines printed above it that fit, then draws under them', () => {
    const w = world();
    w.board.start();
    for (let i = 1; i <= 30; i++) w.board.above('stderr', `line ${i}\n`);
    w.stderr.written = [];
    w.stderr.columns = 100;
    w.stderr.rows = 10;
    w.board.refresh();
    const [repaint] = w.stderr.written;
    // 10 rows: the board's 2 lines and the cursor's last leave room for 7 lines
    expect(repaint).toBe(`${ansiEscapes.cursorUp(10 + 2 * 4)}${ansiEscapes.cursorLeft}${ansiEscapes.eraseDown}${[24, 25, 26, 27, 28, 29, 30].map((i) => `line ${i}\n`).join('')}`);
    expect(w.stderr.written.slice(1).join('')).toMatch(/closed, 0 failed/);
  });

  it('after stop it is cleared, no longer redraws, and lines go straight through', () => {
    const w = world();
    w.board.start();
    w.board.stop();
    w.stderr.written = [];
    w.tick(5000);
    w.board.refresh();
    w.board.above('stderr', 'helix: run complete\n');
    expect(w.stderr.written).toEqual(['helix: run complete\n']);
    expect(w.stderr.listenerCount('resize')).toBe(0);
  });
});
