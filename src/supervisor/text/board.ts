// The live board's rows (docs/watching.md): one row per slot — slot, bead, phase, elapsed, tokens
// so far, the title cut to what is left of the width — and a totals line. Pure: the night comes
// folded (core/night.ts), the terminal's size and the local clock are handed in, and every row
// is cut to the width so the terminal never wraps one.
import { printable } from '../../terminal-text.js';
import { type AttemptBar, type Night, inFlight, pauseAt, totalsOf } from '../core/night.js';

export interface BoardSize {
  columns: number;
  rows: number;
}

/** The cells a text takes on the terminal (wide characters two): string-width, handed in by the shell. */
export type CellWidth = (text: string) => number;

/** Local wall-clock time of a moment (`14:05`), from the shell's clock. */
export type ClockText = (ms: number) => string;

/** The board: at most `rows - 1` lines (the cursor keeps the last), none wider than `columns - 1`. */
export function boardRows(night: Night, now: number, size: BoardSize, clock: ClockText, cells: CellWidth): string[] {
  const width = Math.max(1, size.columns - 1);
  const room = Math.max(1, size.rows - 1);
  const slots = slotRows(night, now, clock);
  const slotRoom = room - 1;
  const shown = slots.length <= slotRoom ? slots : [...slots.slice(0, slotRoom - 1), `  … ${slots.length - (slotRoom - 1)} more slots`];
  // a title is the bead's text: shown, never obeyed by the terminal
  return [...shown.slice(0, slotRoom), totalsRow(night, now, clock)].map((row) => cut(printable(row), width, cells));
}

function slotRows(night: Night, now: number, clock: ClockText): string[] {
  const bySlot = new Map(inFlight(night).map((bar) => [bar.slot, bar]));
  const count = Math.max(night.jobs, ...bySlot.keys());
  // the beads backing off, soonest first: each free slot shows the next one it waits for
  const waiting = backingOff(night, now);
  const rows: string[] = [];
  for (let slot = 1; slot <= count; slot++) {
    const bar = bySlot.get(slot);
    rows.push(bar ? busyRow(night, bar, now) : `${slotLabel(slot)} ${idleText(night, now, clock, waiting.shift())}`);
  }
  return rows;
}

function backingOff(night: Night, now: number): Array<{ id: string; until: number }> {
  const open = new Set(inFlight(night).map((bar) => bar.bead));
  return [...night.beads.values()]
    .filter((row) => row.backoffUntil !== undefined && row.backoffUntil > now && !row.gaveUp && !open.has(row.id))
    .map((row) => ({ id: row.id, until: row.backoffUntil! }))
    .sort((a, b) => a.until - b.until);
}

function busyRow(night: Night, bar: AttemptBar, now: number): string {
  const title = night.beads.get(bar.bead)?.title ?? '';
  const attempt = bar.attempt > 1 ? ` #${bar.attempt}` : '';
  return `${slotLabel(bar.slot)} ${`${bar.bead}${attempt}`.padEnd(14)} ${bar.phase.padEnd(8)} ${elapsed(now - bar.start).padStart(6)} ${tokensText(bar.tokens).padStart(6)}  ${title}`;
}

/** What a free slot waits for: a limit or infrastructure pause, a bead's backoff, or nothing. */
function idleText(night: Night, now: number, clock: ClockText, backoff: { id: string; until: number } | undefined): string {
  const pause = pauseAt(night, now);
  if (pause) return pause.end === undefined ? `waiting: ${pause.kind}` : `waiting for ${pause.kind === 'limit' ? 'a limit' : 'infrastructure'} until ${clock(pause.end)}`;
  if (backoff) return `backoff ${backoff.id} ${elapsed(backoff.until - now)} more`;
  return night.stop ? 'done' : 'idle';
}

function totalsRow(night: Night, now: number, clock: ClockText): string {
  const t = totalsOf(night, now);
  const since = night.startedAt === undefined ? '' : `${elapsed(now - night.startedAt)} · `;
  const cost = night.costUsd > 0 || night.unknownCostCalls === 0 ? ` · $${night.costUsd.toFixed(2)}` : '';
  const eta = t.eta !== undefined ? ` · ETA ${clock(t.eta)}` : '';
  return `${since}${t.closed} closed, ${t.failed} failed, ${t.parked} parked, ${t.left} left · ${t.inFlight} in flight${eta} · ${tokensText(night.tokens)} tokens${cost} · ${night.limitPauses} limit pause${night.limitPauses === 1 ? '' : 's'}`;
}

const slotLabel = (slot: number) => String(slot).padStart(2);

/** `45s`, `2m13s`, `1h04m`. */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  return m > 0 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}

/** `950`, `12.4k`, `3.1M`. */
export function tokensText(tokens: number): string {
  if (tokens < 1000) return String(tokens);
  if (tokens < 1_000_000) return `${(tokens / 1000).toFixed(tokens < 100_000 ? 1 : 0)}k`;
  return `${(tokens / 1_000_000).toFixed(1)}M`;
}

/** `text` cut to `width` terminal cells (wide characters count two), `…` marking a cut. */
export function cut(text: string, width: number, cells: CellWidth): string {
  if (cells(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const char of text) {
    const w = cells(char);
    if (used + w > width - 1) break;
    out += char;
    used += w;
  }
  return `${out}…`;
}
