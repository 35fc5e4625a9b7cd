// A night as its event log tells it (docs/events.md): which slot runs which attempt and in what
// phase, every attempt's bar from claim to end with its outcome, the pauses, each bead's row and
// the totals. One fold over the events, shared by the live board (shell/board.ts), `helix status`
// (its slots) and `helix report` (text/report-html.ts, text/trace.ts) — so the three never disagree.
// Pure: times are the events' own; the reader passes "now" where it needs one.
import type { AttemptEndOutcome, BlockerEntry, HelixEvent, Phase, SpendFields } from './run-events.js';

/** One attempt, from its claim to its end (open while `end` is undefined). */
export interface AttemptBar {
  bead: string;
  attempt: number;
  slot: number;
  start: number;
  end?: number;
  outcome?: AttemptEndOutcome;
  reason: string | null;
  phase: Phase;
  /** When the current phase began. */
  phaseSince: number;
  phases: Array<{ phase: Phase; at: number }>;
  tokens: number;
  costUsd: number | null;
  output?: string[];
  log?: { first: number; last: number };
}

/** A stretch the run did not dispatch: a usage or rate limit, or an infrastructure wait. */
export interface Pause {
  kind: 'limit' | 'infrastructure';
  start: number;
  /** When it ended (its resume), or when it was to end; undefined when the run stopped instead. */
  end?: number;
  detail: string;
}

/** A bead's row: its attempts tonight and how the last one ended. */
export interface BeadRow {
  id: string;
  title: string;
  attempts: number;
  outcome?: AttemptEndOutcome;
  reason: string | null;
  output: string[];
  tokens: number;
  costUsd: number;
  seconds: number;
  logs: Array<{ first: number; last: number }>;
  /** Its backoff, when the run waits before the next attempt (ms since the epoch). */
  backoffUntil?: number;
  parkedUntil?: string;
  /** No attempt follows: the last attempt's backoff, a park or a skip. */
  gaveUp: boolean;
  memories: { injected: string[]; helped: string[]; failed: string[]; leftAlone: string[] };
}

export interface Night {
  run: string;
  root: string;
  pid?: number;
  jobs: number;
  startedAt?: number;
  /** Beads open at the start (the m of "bead n of m"). */
  backlog: number;
  attempts: AttemptBar[];
  beads: Map<string, BeadRow>;
  pauses: Pause[];
  tokens: number;
  costUsd: number;
  unknownCostCalls: number;
  limitPauses: number;
  blockers: BlockerEntry[];
  /** `spent`: the whole run's, the check's and the actions' calls included (the builds' alone are `tokens`, `costUsd`). */
  stop?: { at: number; reason: string; exit: number; detail: string; reportHtml: string | null; spent?: SpendFields };
  /** The log predates attempt_end (no `jobs` on run_start): attempts end on their close, backoff or park. */
  legacy: boolean;
  lastEventAt?: number;
}

export function emptyNight(): Night {
  return { run: '', root: '', jobs: 1, backlog: 0, attempts: [], beads: new Map(), pauses: [], tokens: 0, costUsd: 0, unknownCostCalls: 0, limitPauses: 0, blockers: [], legacy: true };
}

/** The night after all of `events`. */
export function nightOf(events: Iterable<HelixEvent>): Night {
  const night = emptyNight();
  for (const event of events) addEvent(night, event);
  return night;
}

/** Folds one event into `night` (in place: a night of thousands of attempts is folded event by event). */
export function addEvent(night: Night, event: HelixEvent): void {
  const at = Date.parse(event.t);
  night.lastEventAt = at;
  if (!night.run) night.run = event.run;
  switch (event.type) {
    case 'run_start':
      Object.assign(night, { run: event.run, root: event.root, pid: event.pid, startedAt: at, backlog: event.open ?? event.ready, jobs: event.jobs ?? 1, legacy: event.jobs === undefined });
      return;
    case 'claim':
      return claimed(night, event.bead, event.attempt, event.slot, event.title, at);
    case 'phase': {
      const bar = openBar(night, event.bead);
      if (bar && bar.phase !== event.phase) enterPhase(bar, event.phase, at);
      if (bar && event.tokens !== undefined) bar.tokens = event.tokens;
      return;
    }
    case 'gate': {
      // a passed gate hands the attempt to DDx's land
      const bar = openBar(night, event.bead);
      if (bar && event.verdict === 'pass') enterPhase(bar, 'landing', at);
      return;
    }
    case 'agent_done':
      night.tokens += event.tokens;
      night.costUsd += event.cost_usd ?? 0;
      if (event.cost_usd === null) night.unknownCostCalls++;
      // a log without attempt_end: the attempt's spend is its builds' calls
      if (night.legacy && event.bead) spentLegacy(night, event.bead, event.tokens, event.cost_usd);
      return;
    case 'attempt_end':
      return ended(night, event, at);
    case 'close':
      if (night.legacy) endLegacy(night, event.bead, at, 'landed', null);
      return;
    case 'backoff': {
      const row = night.beads.get(event.bead);
      if (row) Object.assign(row, { backoffUntil: at + event.seconds * 1000, gaveUp: row.gaveUp || event.last === true });
      if (night.legacy) endLegacy(night, event.bead, at, 'failed', event.reason);
      return;
    }
    case 'park': {
      const row = night.beads.get(event.bead);
      if (row) Object.assign(row, { parkedUntil: event.until, gaveUp: true });
      if (night.legacy) endLegacy(night, event.bead, at, 'failed', `parked until ${event.until}`);
      return;
    }
    case 'limit':
      night.limitPauses++;
      night.pauses.push({ kind: 'limit', start: at, ...(event.resume_at ? { end: Date.parse(event.resume_at) } : {}), detail: event.detail });
      if (night.legacy && event.bead) endLegacy(night, event.bead, at, 'limit', event.detail);
      return;
    case 'limit_resume': {
      const pause = [...night.pauses].reverse().find((p) => p.kind === 'limit');
      if (pause) pause.end = at;
      return;
    }
    case 'unavailable':
      if (event.wait_seconds !== null) night.pauses.push({ kind: 'infrastructure', start: at, end: at + event.wait_seconds * 1000, detail: `${event.what}: ${event.detail}` });
      return;
    case 'memory_injected':
      rowOf(night, event.bead).memories.injected = event.names;
      return;
    case 'memory_credited': {
      const memories = rowOf(night, event.bead).memories;
      Object.assign(memories, { helped: event.helped, failed: event.failed, leftAlone: event.left_alone });
      return;
    }
    case 'blockers':
      return blocked(night, event.beads);
    case 'stop':
      night.stop = { at, reason: event.reason, exit: event.exit, detail: event.detail, reportHtml: event.report_html ?? null, spent: event.spent };
      for (const bar of night.attempts) if (bar.end === undefined) endBar(night, bar, at, 'stopped', event.detail);
      // a stopped run's pause ends with it
      for (const pause of night.pauses) if (pause.end === undefined || pause.end > at) pause.end = at;
      return;
    default:
      return;
  }
}

function rowOf(night: Night, id: string, title = ''): BeadRow {
  let row = night.beads.get(id);
  if (!row) {
    row = { id, title, attempts: 0, reason: null, output: [], tokens: 0, costUsd: 0, seconds: 0, logs: [], gaveUp: false, memories: { injected: [], helped: [], failed: [], leftAlone: [] } };
    night.beads.set(id, row);
  }
  if (title && !row.title) row.title = title;
  return row;
}

/** The bead's attempt in flight, if any. */
export function openBar(night: Night, bead: string): AttemptBar | undefined {
  for (let i = night.attempts.length - 1; i >= 0; i--) {
    const bar = night.attempts[i]!;
    if (bar.bead === bead) return bar.end === undefined ? bar : undefined;
  }
  return undefined;
}

/** The attempts in flight now, by slot. */
export function inFlight(night: Night): AttemptBar[] {
  return night.attempts.filter((bar) => bar.end === undefined).sort((a, b) => a.slot - b.slot);
}

function claimed(night: Night, bead: string, attempt: number, slot: number | undefined, title: string | undefined, at: number): void {
  const previous = openBar(night, bead);
  if (previous) endBar(night, previous, at, 'stopped', null);
  const row = rowOf(night, bead, title);
  row.attempts++;
  delete row.backoffUntil;
  night.attempts.push({ bead, attempt, slot: slot ?? freeSlot(night), start: at, reason: null, phase: 'claim', phaseSince: at, phases: [{ phase: 'claim', at }], tokens: 0, costUsd: null });
}

/** The lowest slot no attempt in flight holds (logs written before slots were named). */
function freeSlot(night: Night): number {
  const held = new Set(inFlight(night).map((bar) => bar.slot));
  let slot = 1;
  while (held.has(slot)) slot++;
  return slot;
}

function enterPhase(bar: AttemptBar, phase: Phase, at: number): void {
  bar.phase = phase;
  bar.phaseSince = at;
  bar.phases.push({ phase, at });
}

function ended(night: Night, event: Extract<HelixEvent, { type: 'attempt_end' }>, at: number): void {
  const bar = openBar(night, event.bead);
  if (!bar) return;
  bar.tokens = event.tokens;
  bar.costUsd = event.cost_usd;
  if (event.output) bar.output = event.output;
  if (event.log) bar.log = event.log;
  endBar(night, bar, at, event.outcome, event.reason);
}

/** The beads the run skipped: given up; a log without attempt_end has their verification's output only here. */
function blocked(night: Night, entries: BlockerEntry[]): void {
  night.blockers = entries;
  for (const entry of entries) {
    const row = rowOf(night, entry.id, entry.title);
    row.gaveUp = true;
    if (row.output.length === 0) row.output = entry.output;
  }
}

function spentLegacy(night: Night, bead: string, tokens: number, costUsd: number | null): void {
  const bar = openBar(night, bead);
  if (!bar) return;
  bar.tokens += tokens;
  if (costUsd !== null) bar.costUsd = (bar.costUsd ?? 0) + costUsd;
}

function endLegacy(night: Night, bead: string, at: number, outcome: AttemptEndOutcome, reason: string | null): void {
  const bar = openBar(night, bead);
  if (bar) endBar(night, bar, at, outcome, reason);
}

function endBar(night: Night, bar: AttemptBar, at: number, outcome: AttemptEndOutcome, reason: string | null): void {
  Object.assign(bar, { end: at, outcome, reason });
  const row = rowOf(night, bar.bead);
  row.outcome = outcome;
  row.reason = reason;
  if (bar.output) row.output = bar.output;
  if (bar.log) row.logs.push(bar.log);
  row.tokens += bar.tokens;
  row.costUsd += bar.costUsd ?? 0;
  row.seconds += (at - bar.start) / 1000;
}

/** The night's counts of beads: closed, failed (given up), parked, left, in flight. */
export interface NightTotals {
  closed: number;
  failed: number;
  parked: number;
  left: number;
  inFlight: number;
  /** When the rest is likely done (ms since the epoch), from the night's own pace; undefined before a bead is done. */
  eta?: number;
}

export function totalsOf(night: Night, now: number): NightTotals {
  let closed = 0;
  let failed = 0;
  let parked = 0;
  for (const row of night.beads.values()) {
    if (row.outcome === 'landed') closed++;
    else if (row.parkedUntil) parked++;
    else if (row.gaveUp) failed++;
  }
  const flying = inFlight(night).length;
  const left = Math.max(0, Math.max(night.backlog, night.beads.size) - closed - failed - parked);
  const done = closed + failed + parked;
  const elapsed = night.startedAt === undefined ? 0 : now - night.startedAt;
  // the night's own pace: beads done per millisecond so far, waits included
  const eta = done > 0 && elapsed > 0 && left > 0 && !night.stop ? now + (left * elapsed) / done : undefined;
  return { closed, failed, parked, left, inFlight: flying, ...(eta !== undefined ? { eta } : {}) };
}

/** The pause in force at `now` (a limit or an infrastructure wait), if any. */
export function pauseAt(night: Night, now: number): Pause | undefined {
  return night.pauses.find((p) => p.start <= now && (p.end === undefined || p.end > now));
}
