// The live board's rows (text/board.ts): what each slot shows, the totals, and the fit — never
// wider than the terminal, never more rows than it has, a bead's title never obeyed by it.
import { describe, expect, it } from 'vitest';
import { nightOf } from '../../../src/supervisor/core/night.js';
import type { EventBody, HelixEvent } from '../../../src/supervisor/core/run-events.js';
import stringWidth from 'string-width';
import { boardRows as rowsOf, cut as cutIn, tokensText } from '../../../src/supervisor/text/board.js';

// the terminal's measure, as the shell hands it in
const boardRows = (...args: [Parameters<typeof rowsOf>[0], number, { columns: number; rows: number }, (ms: number) => string]) => rowsOf(...args, stringWidth);
const cut = (text: string, width: number) => cutIn(text, width, stringWidth);

const t0 = Date.parse('2026-12-01T22:00:00Z');
const log = (...items: Array<[number, EventBody]>): HelixEvent[] => items.map(([s, body]) => ({ v: 1, t: new Date(t0 + s * 1000).toISOString(), run: 'r', ...body }) as HelixEvent);
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 16);
const start = (jobs: number): EventBody => ({ type: 'run_start', pid: 1, ready: 4, open: 4, agent: 'claude', root: '/p', jobs });

describe('the board', () => {
  it('a row per slot — bead, phase, elapsed, tokens, title — and the totals last', () => {
    const night = nightOf(log([0, start(2)], [10, { type: 'claim', bead: 'hx-1', attempt: 2, slot: 1, title: 'write the parser' }], [20, { type: 'phase', bead: 'hx-1', phase: 'review', tokens: 12_400 }]));
    expect(boardRows(night, t0 + 143_000, { columns: 100, rows: 24 }, clock)).toEqual([
      ' 1 hx-1 #2        review    2m13s  12.4k  write the parser',
      ' 2 idle',
      '2m23s · 0 closed, 0 failed, 0 parked, 4 left · 1 in flight · 0 tokens · $0.00 · 0 limit pauses',
    ]);
  });

  it('a free slot says what it waits for: a limit until when, a bead backing off, or nothing', () => {
    const limited = nightOf(log([0, start(1)], [5, { type: 'limit', agent: 'claude', kind: 'usage', bead: null, resets_at: null, resume_at: new Date(t0 + 3_600_000).toISOString(), detail: 'limit' }]));
    expect(boardRows(limited, t0 + 60_000, { columns: 80, rows: 24 }, clock)[0]).toBe(' 1 waiting for a limit until 23:00');
    const backing = nightOf(log([0, start(2)], [1, { type: 'claim', bead: 'hx-1', attempt: 1, slot: 1 }], [2, { type: 'attempt_end', bead: 'hx-1', attempt: 1, outcome: 'failed', reason: 'x', seconds: 1, tokens: 0, cost_usd: null }], [2, { type: 'backoff', bead: 'hx-1', attempt: 2, seconds: 30, reason: 'x' }]));
    expect(boardRows(backing, t0 + 12_000, { columns: 80, rows: 24 }, clock).slice(0, 2)).toEqual([' 1 backoff hx-1 20s more', ' 2 idle']);
  });

  it('never wider than the terminal: every row cut, `…` where it was', () => {
    const night = nightOf(log([0, start(1)], [0, { type: 'claim', bead: 'hx-1', attempt: 1, slot: 1, title: 'a title far too long for forty columns of terminal' }]));
    for (const row of boardRows(night, t0, { columns: 40, rows: 10 }, clock)) expect(row.length).toBeLessThanOrEqual(39);
    expect(boardRows(night, t0, { columns: 40, rows: 10 }, clock)[0]).toMatch(/…$/);
  });

  it('never more rows than the terminal has: the slots that do not fit are counted', () => {
    const night = nightOf(log([0, start(16)]));
    const rows = boardRows(night, t0, { columns: 80, rows: 10 }, clock);
    expect(rows).toHaveLength(9);
    expect(rows[7]).toBe('  … 9 more slots');
    expect(boardRows(night, t0, { columns: 80, rows: 2 }, clock)).toHaveLength(1);
  });

  it("shows a bead's title, never obeys it: control characters are printed as \\uXXXX", () => {
    const night = nightOf(log([0, start(1)], [0, { type: 'claim', bead: 'hx-1', attempt: 1, slot: 1, title: 'evil \u001b]52;c;aGk=\u0007 title' }]));
    const row = boardRows(night, t0, { columns: 120, rows: 10 }, clock)[0]!;
    expect(row).not.toContain('\u001b');
    expect(row).toContain('\\u001b]52');
  });

  it('cuts wide characters by the cells they take', () => {
    expect(cut('漢字漢字漢字', 7)).toBe('漢字漢…');
    expect(cut('short', 7)).toBe('short');
  });

  it.each([
    [950, '950'],
    [12_400, '12.4k'],
    [250_000, '250k'],
    [3_100_000, '3.1M'],
  ])('tokens %d read as %s', (n, text) => expect(tokensText(n)).toBe(text));
});
