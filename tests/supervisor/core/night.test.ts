// A night folded from its event log (core/night.ts): the slots now, each attempt's bar, the pauses,
// the beads' rows and the totals — what the board, `helix status` and `helix report` all read.
import { describe, expect, it } from 'vitest';
import { inFlight, nightOf, pauseAt, totalsOf } from '../../../src/supervisor/core/night.js';
import type { EventBody, HelixEvent } from '../../../src/supervisor/core/run-events.js';

const t0 = Date.parse('2026-12-01T22:00:00Z');
/** Events at t0 + seconds, in order. */
const log = (...items: Array<[number, EventBody]>): HelixEvent[] => items.map(([s, body]) => ({ v: 1, t: new Date(t0 + s * 1000).toISOString(), run: 'helix-1', ...body }) as HelixEvent);
const start = (jobs?: number): EventBody => ({ type: 'run_start', pid: 42, ready: 3, open: 4, agent: 'claude', root: '/p', ...(jobs ? { jobs } : {}) });
const end = (bead: string, attempt: number, outcome: 'landed' | 'verification_failed' | 'failed', seconds: number, reason: string | null = null): EventBody => ({ type: 'attempt_end', bead, attempt, outcome, reason, seconds, tokens: 100, cost_usd: 0.01 });

describe('the slots of a night', () => {
  it('each attempt holds its slot from its claim to its end, in the phase its last event named', () => {
    const night = nightOf(
      log(
        [0, start(2)],
        [1, { type: 'claim', bead: 'a', attempt: 1, slot: 1, title: 'alpha' }],
        [2, { type: 'claim', bead: 'b', attempt: 1, slot: 2, title: 'beta' }],
        [3, { type: 'phase', bead: 'a', phase: 'build', tokens: 50 }],
        [5, { type: 'phase', bead: 'a', phase: 'gate' }],
        [9, { type: 'gate', bead: 'a', verdict: 'pass', seconds: 4, detail: 'ok' }],
        [10, { type: 'phase', bead: 'b', phase: 'verify' }],
      ),
    );
    expect(inFlight(night).map((bar) => [bar.slot, bar.bead, bar.phase, bar.phaseSince - t0])).toEqual([
      [1, 'a', 'landing', 9000],
      [2, 'b', 'verify', 10000],
    ]);
    expect(inFlight(night)[0]!.tokens).toBe(50);
    expect(night.beads.get('a')!.title).toBe('alpha');
  });

  it('an ended attempt frees its slot and gives its bead the outcome, reason and spend', () => {
    const night = nightOf(log([0, start(2)], [1, { type: 'claim', bead: 'a', attempt: 1, slot: 1 }], [31, end('a', 1, 'verification_failed', 30, 'npm test exited 1')]));
    expect(inFlight(night)).toEqual([]);
    expect(night.attempts[0]).toMatchObject({ outcome: 'verification_failed', reason: 'npm test exited 1', end: t0 + 31000 });
    expect(night.beads.get('a')).toMatchObject({ attempts: 1, outcome: 'verification_failed', tokens: 100, seconds: 30 });
  });

  it('a stop ends every attempt still in flight as stopped, and the pause it stopped in', () => {
    const night = nightOf(
      log(
        [0, start(2)],
        [1, { type: 'claim', bead: 'a', attempt: 1, slot: 1 }],
        [2, { type: 'limit', agent: 'claude', kind: 'usage', bead: 'a', resets_at: null, resume_at: new Date(t0 + 3600_000).toISOString(), detail: '5-hour limit' }],
        [60, { type: 'stop', reason: 'stopped', exit: 143, detail: 'helix: interrupted by SIGTERM', spent: { cost_usd: 0, tokens: 0, unknown_cost_calls: 0 } }],
      ),
    );
    expect(night.attempts[0]).toMatchObject({ outcome: 'stopped', end: t0 + 60000 });
    expect(night.pauses).toEqual([{ kind: 'limit', start: t0 + 2000, end: t0 + 60000, detail: '5-hour limit' }]);
  });

  it("a limit pauses the night until its resume; an infrastructure wait until its end", () => {
    const night = nightOf(
      log(
        [0, start(1)],
        [10, { type: 'limit', agent: 'claude', kind: 'rate', bead: null, resets_at: null, resume_at: new Date(t0 + 70_000).toISOString(), detail: '429' }],
        [65, { type: 'limit_resume', agent: 'claude', waited_seconds: 55 }],
        [100, { type: 'unavailable', cause: 'infrastructure', what: 'DDx', detail: 'index.lock exists', wait_seconds: 30 }],
      ),
    );
    expect(night.pauses.map((p) => [p.kind, (p.start - t0) / 1000, (p.end! - t0) / 1000])).toEqual([
      ['limit', 10, 65],
      ['infrastructure', 100, 130],
    ]);
    expect(pauseAt(night, t0 + 20_000)?.kind).toBe('limit');
    expect(pauseAt(night, t0 + 66_000)).toBeUndefined();
    expect(night.limitPauses).toBe(1);
  });
});

describe('a log written before slots and attempt ends (no jobs on run_start)', () => {
  it('draws each attempt from its claim to its close, backoff or park, in the one lane', () => {
    const night = nightOf(
      log(
        [0, start()],
        [1, { type: 'claim', bead: 'a', attempt: 1 }],
        [20, { type: 'close', bead: 'a', how: 'closed' }],
        [21, { type: 'claim', bead: 'b', attempt: 1 }],
        [40, { type: 'backoff', bead: 'b', attempt: 2, seconds: 5, reason: 'tests failed' }],
      ),
    );
    expect(night.legacy).toBe(true);
    expect(night.attempts.map((bar) => [bar.bead, bar.slot, bar.outcome, bar.reason])).toEqual([
      ['a', 1, 'landed', null],
      ['b', 1, 'failed', 'tests failed'],
    ]);
  });
});

describe('what a report of an older log still has', () => {
  it("gives each attempt its builds' spend (agent_done) and a skipped bead the output its blockers entry kept", () => {
    const night = nightOf(
      log(
        [0, start()],
        [1, { type: 'claim', bead: 'b', attempt: 1 }],
        [9, { type: 'agent_done', bead: 'b', action: 'build', agent: 'claude', rc: 0, seconds: 8, tokens: 300, cost_usd: 0.02 }],
        [10, { type: 'backoff', bead: 'b', attempt: 2, seconds: 5, reason: 'tests failed', last: true }],
        [11, { type: 'blockers', beads: [{ id: 'b', title: 'beta', reason: 'failed 4 times', last_failure: 'tests failed', output: ['not ok 2'] }], report: null }],
      ),
    );
    expect(night.attempts[0]).toMatchObject({ tokens: 300, costUsd: 0.02 });
    expect(night.beads.get('b')).toMatchObject({ title: 'beta', tokens: 300, costUsd: 0.02, output: ['not ok 2'], gaveUp: true });
  });

  it('takes the spend of a log with attempt_end from attempt_end alone', () => {
    const night = nightOf(
      log(
        [0, start(1)],
        [1, { type: 'claim', bead: 'a', attempt: 1, slot: 1 }],
        [9, { type: 'agent_done', bead: 'a', action: 'build', agent: 'claude', rc: 0, seconds: 8, tokens: 300, cost_usd: 0.02 }],
        [10, end('a', 1, 'landed', 9)],
      ),
    );
    expect(night.attempts[0]).toMatchObject({ tokens: 100, costUsd: 0.01 });
    expect(night.tokens).toBe(300);
  });
});

describe("the night's totals", () => {
  it('counts closed, given-up and parked beads, what is left and in flight, and an ETA at the night\'s own pace', () => {
    const night = nightOf(
      log(
        [0, start(2)],
        [0, { type: 'claim', bead: 'a', attempt: 1, slot: 1 }],
        [0, { type: 'claim', bead: 'b', attempt: 1, slot: 2 }],
        [100, end('a', 1, 'landed', 100)],
        [100, end('b', 1, 'failed', 100, 'no change')],
        [100, { type: 'backoff', bead: 'b', attempt: 5, seconds: 0, reason: 'no change', last: true }],
        [101, { type: 'claim', bead: 'c', attempt: 1, slot: 1 }],
      ),
    );
    const totals = totalsOf(night, t0 + 200_000);
    expect(totals).toMatchObject({ closed: 1, failed: 1, parked: 0, left: 2, inFlight: 1 });
    // two beads done in 200 s: the two left take about 200 s more
    expect(totals.eta).toBe(t0 + 400_000);
  });

  it('has no ETA before a bead is done, nor once the night stopped', () => {
    const night = nightOf(log([0, start(2)], [0, { type: 'claim', bead: 'a', attempt: 1, slot: 1 }]));
    expect(totalsOf(night, t0 + 60_000).eta).toBeUndefined();
  });
});
