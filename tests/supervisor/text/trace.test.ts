// `helix report --trace` (text/trace.ts): the night as Chrome trace-event JSON, parsed back as a
// viewer reads it — a named thread per slot and one for the pauses, a complete event per attempt
// named by its outcome with its bead, attempt, reason and spend in args, its phases inside it.
import { describe, expect, it } from 'vitest';
import { type TraceEvent, traceJson } from '../../../src/supervisor/text/trace.js';
import { T0, sampleEvents, sampleNight } from './report-night.js';

const trace = () => JSON.parse(traceJson(sampleNight(), T0 + 483_000)) as { traceEvents: TraceEvent[]; displayTimeUnit: string; otherData: Record<string, unknown> };

describe('the night as a trace', () => {
  it('names a lane for each slot and one for the pauses', () => {
    const names = trace().traceEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => [e.tid, e.args!.name]);
    expect(names).toEqual([
      [1, 'slot 1'],
      [2, 'slot 2'],
      [3, 'pauses'],
    ]);
  });

  it('has one complete event per attempt, in its slot, named by its outcome, in microseconds from the start', () => {
    const attempts = trace().traceEvents.filter((e) => e.cat === 'attempt');
    expect(attempts).toHaveLength(sampleEvents().filter((e) => e.type === 'claim').length);
    expect(attempts.every((e) => e.ph === 'X')).toBe(true);
    expect(attempts.map((e) => [e.name, e.tid, e.ts, e.dur])).toEqual([
      ['landed', 1, 1_000_000, 59_000_000],
      ['verification_failed', 2, 2_000_000, 88_000_000],
      ['limit', 1, 91_000_000, 9_000_000],
      ['landed', 2, 401_000_000, 79_000_000],
      ['failed', 1, 402_000_000, 18_000_000],
    ]);
    expect(attempts[1]!.args).toMatchObject({ bead: 'hx-b', attempt: 1, outcome: 'verification_failed', reason: '"><img src=x onerror=alert(2)>', tokens: 1000, cost_usd: 0.01, log: 'L21-L30' });
  });

  it("puts each attempt's phases inside it, and the pauses on their lane", () => {
    const events = trace().traceEvents;
    const landed = events.find((e) => e.cat === 'attempt' && e.args!.bead === 'hx-a')!;
    const phases = events.filter((e) => e.cat === 'phase' && e.args!.bead === 'hx-a');
    expect(phases.map((e) => [e.name, e.ts, e.dur])).toEqual([
      ['claim', 1_000_000, 4_000_000],
      ['build', 5_000_000, 35_000_000],
      ['verify', 40_000_000, 20_000_000],
    ]);
    for (const phase of phases) expect(phase.ts! >= landed.ts! && phase.ts! + phase.dur! <= landed.ts! + landed.dur!).toBe(true);
    expect(events.filter((e) => e.cat === 'pause').map((e) => [e.name, e.tid, e.ts, e.dur])).toEqual([
      ['limit', 3, 100_000_000, 300_000_000],
      ['infrastructure', 3, 420_000_000, 30_000_000],
    ]);
  });

  it('counts the attempts in flight, and says which run it is', () => {
    const { traceEvents, otherData } = trace();
    expect(Math.max(...traceEvents.filter((e) => e.ph === 'C').map((e) => e.args!.attempts as number))).toBe(2);
    expect(otherData).toMatchObject({ run: 'helix-20261201-220000', root: '/home/me/project', slots: 2, stop: 'completed' });
  });
});
