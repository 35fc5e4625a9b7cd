// `helix status`'s two views (docs/contract/cli.md §10): the JSON document other tools read, and the
// text a person reads (docs/contract/bash-interface.md §14). shell/status.ts gathers the report.
import type { Bead } from '../../tracker/bead.js';
import type { statusCounts } from '../../tracker/ready.js';
import { plural } from '../../numbers.js';
import { type Night, inFlight, totalsOf } from '../core/night.js';

/** The `helix status --json` document; the first five keys are always present with these types (§14.2). */
export interface StatusReport {
  current_cycle: number;
  running_bead: { id: string; worker: string; harness: string; claim_age_seconds: number; started_at: string | null } | null;
  parked_beads: Array<{ id: string; reason: 'dep-blocked' | 'retry-parked' | 'orphaned-claim' | 'skipped'; next_eligible: string | null; age_seconds: number }>;
  /**
   * helix: each bead in progress and its claimer — `running`, `gone` (dead, or its pid reused), or
   * `elsewhere` (another host: not judged here) — and whether the next run reclaims it.
   */
  claimed_beads: Array<{ id: string; pid: number | null; claimer: 'running' | 'gone' | 'elsewhere'; reclaimable: boolean }>;
  injected_supervisory: Array<{ id: string; type: string; triggering_cycle: number | null; triggering_bead: string | null; created_at: string | null }>;
  /** Never null: the last run's stop reason, `unknown` when there is none. */
  last_stop_reason: string;
  /** helix: the limit the last run stopped on (stop reason `limit`), from its event log; else null. */
  last_limit: { agent: string; kind: string; resets_at: string | null; detail: string } | null;
  /** The counts; helix adds `by_status`, every status the file holds (they add up to `total`). */
  tracker: (ReturnType<typeof statusCounts> & { by_status?: Record<string, number> }) | Record<string, never>;
  /** The run-state object, `{}` when there is none. */
  run: Record<string, unknown>;
  active_run: { pid: number; started: string; log: string | null } | null;
  /**
   * helix: each slot of the active run (one with `--jobs 1`) from its event log — never from
   * run-state, which current DDx writes over during `ddx try`; empty when no run is active.
   */
  slots: StatusSlot[];
  /** helix: the active run's night so far, from its event log; null when no run is active. */
  night: StatusNight | null;
  memory: Record<string, unknown> | null;
  /** The DDx on PATH: version, surface (`agent` = v0.6.x `ddx agent …`, `current` = `ddx try/run/work`) and path. */
  ddx: { version: string | null; surface: string | null; path: string; supported: boolean } | null;
}

/** A slot of the active run: its bead, phase, since when (ISO) and which attempt; a free slot has `bead: null`. */
export interface StatusSlot {
  slot: number;
  bead: string | null;
  title: string | null;
  phase: string;
  since: string | null;
  attempt: number | null;
}

export interface StatusNight {
  run: string;
  started: string | null;
  closed: number;
  failed: number;
  parked: number;
  left: number;
  in_flight: number;
  tokens: number;
  cost_usd: number;
  limit_pauses: number;
}

/** The slots of a night in flight: every slot 1…jobs, its attempt if it has one. */
export function statusSlotsOf(night: Night): StatusSlot[] {
  const bars = new Map(inFlight(night).map((bar) => [bar.slot, bar]));
  const count = Math.max(night.jobs, ...bars.keys());
  return Array.from({ length: count }, (_, i) => {
    const bar = bars.get(i + 1);
    if (!bar) return { slot: i + 1, bead: null, title: null, phase: 'idle', since: null, attempt: null };
    return { slot: bar.slot, bead: bar.bead, title: night.beads.get(bar.bead)?.title || null, phase: bar.phase, since: new Date(bar.phaseSince).toISOString(), attempt: bar.attempt };
  });
}

export function statusNightOf(night: Night, now: number): StatusNight {
  const t = totalsOf(night, now);
  return {
    run: night.run,
    started: night.startedAt === undefined ? null : new Date(night.startedAt).toISOString(),
    closed: t.closed,
    failed: t.failed,
    parked: t.parked,
    left: t.left,
    in_flight: t.inFlight,
    tokens: night.tokens,
    cost_usd: Number(night.costUsd.toFixed(6)),
    limit_pauses: night.limitPauses,
  };
}

/** The text view (docs/contract/bash-interface.md §14.1). */
export function statusText(report: StatusReport, claimedBeads: Bead[], hasRunState: boolean): string {
  const t = report.tracker as Partial<ReturnType<typeof statusCounts> & { by_status: Record<string, number> }>;
  const lines = ['HELIX Status', '============', '', 'Tracker:', `  Total:   ${t.total ?? 0}`, `  Open:    ${t.open ?? 0}`, `  Closed:  ${t.closed ?? 0}`, `  Ready:   ${t.ready ?? 0}`, `  Blocked: ${t.blocked ?? 0}`];
  // helix: every other status, so the lines add up to Total (DDx adds proposed, blocked, cancelled)
  const other = otherStatuses(t.by_status ?? {});
  if (other) lines.push(`  Other:   ${other}`);
  const active = report.active_run;
  if (active) {
    lines.push('', 'Active Run:', `  PID:      ${active.pid}`);
    if (active.started) lines.push(`  Started:  ${active.started}`);
    lines.push(`  Log:      ${active.log ?? 'unknown'}`);
  }
  // helix: what each slot of the active run does now, and the night so far (its event log)
  if (report.slots.length > 0) lines.push('', 'Slots:', ...report.slots.map(slotLine));
  if (report.night) lines.push(`  Night so far: ${nightLine(report.night)}`);
  if (claimedBeads.length > 0) {
    lines.push('', 'Claimed:');
    const claims = new Map(report.claimed_beads.map((c) => [c.id, c]));
    for (const b of claimedBeads) lines.push(`  ${b.id}  ${b.title}${claimerNote(claims.get(b.id))}`);
  }
  const run = report.run;
  if (hasRunState) {
    const text = (v: unknown) => (v === undefined || v === null || v === '' ? 'unknown' : String(v));
    const count = (v: unknown) => (typeof v === 'number' ? v : 0);
    lines.push(
      '',
      'Last Run:',
      `  Agent:       ${text(run.agent)}`,
      `  Completed:   ${plural(count(run.completed_cycles), 'cycle')}`,
      `  Attempted:   ${plural(count(run.attempted_cycles), 'cycle')}`,
      `  Tokens:      ${count(run.total_tokens)}`,
      // helix: only agents that report a cost add to it (claude does, codex does not)
      ...(typeof run.total_cost_usd === 'number' && run.total_cost_usd > 0 ? [`  Cost:        $${run.total_cost_usd.toFixed(4)}`] : []),
      // helix: the cost above leaves out calls that reported none (codex): said, so no one reads it as the whole spend
      ...unknownCostLine(run.spent),
      `  Stop reason: ${text(run.stop_reason)}${limitPart(report.last_limit)}${run.stop_reason === 'stopped' && typeof run.interrupted_by === 'string' ? ` (${run.interrupted_by})` : ''}`,
      `  Timestamp:   ${text(run.last_run)}`,
    );
    if (typeof run.focused_epic === 'string' && run.focused_epic) lines.push(`  Epic focus:  ${run.focused_epic}`);
  } else {
    lines.push('', 'No run state found. Run `helix run` to generate.');
  }
  // helix: beads parked by a retry cool-down (DDx's or helix's work-retry-after), with their time
  const retry = report.parked_beads.filter((p) => p.reason === 'retry-parked');
  if (retry.length > 0) {
    lines.push('', 'Parked (until; `helix tracker unpark <id>` clears):');
    for (const p of retry) lines.push(`  ${p.id}  ${p.next_eligible ?? 'unknown'}`);
  }
  // helix: which DDx and the memory store's health, after the Bash sections
  if (report.ddx) {
    const d = report.ddx;
    const surface = d.surface === 'agent' ? 'ddx agent execute-bead / ddx agent run' : d.surface === 'current' ? 'ddx try / ddx run' : 'not supported: codex/claude are called directly';
    lines.push('', `DDx: ${d.version ?? 'unknown version'} (${surface}) at ${d.path}`);
  }
  const memory = report.memory;
  if (run.memory_status === 'unavailable') lines.push('', 'Memory: unavailable during the last run (the run went on without it)');
  if (memory) {
    const eff = typeof memory.effectiveness === 'number' ? memory.effectiveness.toFixed(3) : String(memory.effectiveness ?? '-');
    lines.push('', `Memory: ${plural(Number(memory.total_memories ?? 0), 'memory', 'memories')}, ${String(memory.with_feedback ?? 0)} with feedback, effectiveness ${eff}, embedder ${String(memory.embedder ?? '-')}${memory.unavailable ? ` (unavailable: ${String(memory.unavailable)})` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

/** `  2  hx-00000012  review  since 2026-12-03T14:02:11.000Z  attempt 2  write the parser`, or `  3  idle`. */
function slotLine(s: StatusSlot): string {
  if (!s.bead) return `  ${s.slot}  ${s.phase}`;
  return `  ${s.slot}  ${s.bead}  ${s.phase}  since ${s.since ?? 'unknown'}  attempt ${s.attempt ?? '?'}${s.title ? `  ${s.title}` : ''}`;
}

function nightLine(n: StatusNight): string {
  return `${n.closed} closed, ${n.failed} failed, ${n.parked} parked, ${n.left} left · ${n.in_flight} in flight · ${n.tokens} tokens · $${n.cost_usd.toFixed(2)} · ${plural(n.limit_pauses, 'limit pause')}`;
}

/** helix: after a claimed bead whose claimer is gone, what becomes of it. */
function claimerNote(claim: StatusReport['claimed_beads'][number] | undefined): string {
  if (!claim || claim.claimer !== 'gone') return '';
  const who = claim.pid === null ? 'its claimer' : `claimer pid ${claim.pid}`;
  return claim.reclaimable ? `  (${who} is gone: the next run reclaims it)` : `  (${who} is gone)`;
}

/** Statuses beside open and closed, in a fixed order then by name: `2 in progress, 6 proposed, 1 marked blocked, 33 cancelled`. */
function otherStatuses(byStatus: Record<string, number>): string {
  const named: Record<string, string> = { in_progress: 'in progress', proposed: 'proposed', blocked: 'marked blocked', cancelled: 'cancelled' };
  const order = Object.keys(named);
  const rank = (status: string) => (order.includes(status) ? order.indexOf(status) : order.length);
  return Object.entries(byStatus)
    .filter(([status, n]) => status !== 'open' && status !== 'closed' && n > 0)
    .sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b))
    .map(([status, n]) => `${n} ${named[status] ?? status}`)
    .join(', ');
}

/** ` (codex usage limit, resets at <UTC>)` after a limit stop: when the run can be started again. */
function limitPart(limit: StatusReport['last_limit']): string {
  if (!limit) return '';
  return ` (${limit.agent} ${limit.kind} limit, ${limit.resets_at ? `resets at ${limit.resets_at}` : 'no reset time named'})`;
}

function unknownCostLine(spent: unknown): string[] {
  const calls = typeof spent === 'object' && spent !== null ? (spent as Record<string, unknown>).unknown_cost_calls : undefined;
  return typeof calls === 'number' && calls > 0 ? [`  Cost unknown: ${plural(calls, 'agent call')} reported no cost (not in the cost above)`] : [];
}
