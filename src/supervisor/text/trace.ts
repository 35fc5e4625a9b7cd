// `helix report --trace`: a night (core/night.ts) as Chrome trace-event JSON, the format Perfetto,
// chrome://tracing and a browser's performance panel open, so a night can be read in a viewer made
// for long timelines (as Nx, turbo and Bazel write theirs). One thread per slot, named with
// `thread_name` metadata; each attempt a complete event ("ph":"X", microseconds from the night's
// start) named by its outcome — viewers colour slices by name — with its phases as slices inside
// it; the pauses on a lane of their own; the number in flight as a counter. Pure: the shell writes it.
import type { AttemptBar, Night } from '../core/night.js';
import { inFlightSteps } from './report-html.js';

/** One trace event (the Trace Event Format's fields helix writes). */
export interface TraceEvent {
  name: string;
  ph: 'X' | 'M' | 'C';
  pid: number;
  tid?: number;
  ts?: number;
  dur?: number;
  cat?: string;
  args?: Record<string, unknown>;
}

const PID = 1;

/** The trace as JSON text. `now` ends the attempts of a night that has not stopped. */
export function traceJson(night: Night, now: number): string {
  return JSON.stringify(traceOf(night, now));
}

export function traceOf(night: Night, now: number): { traceEvents: TraceEvent[]; displayTimeUnit: 'ms'; otherData: Record<string, unknown> } {
  const start = night.startedAt ?? night.attempts[0]?.start ?? now;
  const end = Math.max(start, night.stop?.at ?? Math.max(now, night.lastEventAt ?? start));
  const us = (at: number) => Math.round((Math.min(Math.max(at, start), end) - start) * 1000);
  const slots = Math.max(night.jobs, ...night.attempts.map((bar) => bar.slot));
  const pauseLane = slots + 1;
  const events: TraceEvent[] = [{ name: 'process_name', ph: 'M', pid: PID, args: { name: `helix ${night.run}` } }];
  for (let slot = 1; slot <= pauseLane; slot++) {
    events.push({ name: 'thread_name', ph: 'M', pid: PID, tid: slot, args: { name: slot === pauseLane ? 'pauses' : `slot ${slot}` } });
    events.push({ name: 'thread_sort_index', ph: 'M', pid: PID, tid: slot, args: { sort_index: slot } });
  }
  for (const bar of night.attempts) events.push(...attemptEvents(night, bar, us, end));
  for (const pause of night.pauses) {
    events.push({ name: pause.kind, cat: 'pause', ph: 'X', pid: PID, tid: pauseLane, ts: us(pause.start), dur: us(pause.end ?? end) - us(pause.start), args: { detail: pause.detail } });
  }
  for (const step of inFlightSteps(night, end)) events.push({ name: 'in flight', ph: 'C', pid: PID, ts: us(step.at), args: { attempts: step.count } });
  const otherData = { run: night.run, root: night.root, started: new Date(start).toISOString(), slots: night.jobs, stop: night.stop?.reason ?? null, tokens: night.tokens, cost_usd: night.costUsd };
  return { traceEvents: events, displayTimeUnit: 'ms', otherData };
}

/** An attempt's slice, named by its outcome, and a slice for each phase inside it. */
function attemptEvents(night: Night, bar: AttemptBar, us: (at: number) => number, nightEnd: number): TraceEvent[] {
  const end = bar.end ?? nightEnd;
  const args = {
    bead: bar.bead,
    title: night.beads.get(bar.bead)?.title ?? '',
    attempt: bar.attempt,
    outcome: bar.outcome ?? 'running',
    reason: bar.reason,
    tokens: bar.tokens,
    cost_usd: bar.costUsd,
    ...(bar.log ? { log: `L${bar.log.first}-L${bar.log.last}` } : {}),
  };
  const events: TraceEvent[] = [{ name: bar.outcome ?? 'running', cat: 'attempt', ph: 'X', pid: PID, tid: bar.slot, ts: us(bar.start), dur: us(end) - us(bar.start), args }];
  bar.phases.forEach((phase, i) => {
    const until = bar.phases[i + 1]?.at ?? end;
    events.push({ name: phase.phase, cat: 'phase', ph: 'X', pid: PID, tid: bar.slot, ts: us(phase.at), dur: us(until) - us(phase.at), args: { bead: bar.bead, attempt: bar.attempt } });
  });
  return events;
}
