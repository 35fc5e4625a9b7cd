// Several builds in flight (core/fleet.ts): what the machine decides at a queue read and at each
// slot's end with --jobs N — waits become backoffs and pauses, stops wait for the slots.
import { describe, expect, it } from 'vitest';
import { type MachineState, initialState, step } from '../../../src/supervisor/core/machine.js';
import { bead } from '../../helpers/bead.js';
import { settings } from './scripted-run.js';

const at = Date.parse('2026-11-28T12:00:00Z');
const beads = ['a', 'b', 'c'].map((x) => bead({ id: `hx-0000000${x}`, title: x, description: `edit src/${x}.ts` }));
const fleet = settings({ jobs: 2, backoffOverride: undefined, autoReview: false });
const queue = (state: MachineState, ready = beads, when = at) => step(state, { type: 'queue', ready, beads: ready, at: when }, fleet);

describe('--jobs 2', () => {
  it('a queue read starts as many beads as there are slots, each its own cycle', () => {
    const s = queue(initialState());
    expect(s.effects).toEqual([
      { type: 'startAttempt', bead: beads[0], cycle: 1, readyCount: 3 },
      { type: 'startAttempt', bead: beads[1], cycle: 2, readyCount: 3 },
    ]);
    expect(s.state.fleet.inFlight.map((f) => f.id)).toEqual(['hx-0000000a', 'hx-0000000b']);
    // full: the next read starts nothing and waits for a slot's end
    expect(queue(s.state).effects).toEqual([]);
  });

  it("a failed attempt backs its bead off without sleeping the run: the freed slot takes the next bead", () => {
    const started = queue(initialState()).state;
    const failed = step(started, { type: 'attempted', bead: beads[0]!, outcome: { kind: 'failed', failure: 'no-completion', detail: 'verification failed' }, durationSec: 1, tokens: 0, at, cycle: 1 }, fleet);
    expect(failed.effects.map((e) => e.type)).not.toContain('sleep');
    expect(failed.state.fleet.notBefore['hx-0000000a']).toBe(at + 5000);
    const next = queue(failed.state);
    expect(next.effects).toEqual([{ type: 'startAttempt', bead: beads[2], cycle: 3, readyCount: 2 }]);
  });

  it('nothing in flight and only backing-off beads left: the run sleeps until the first may go', () => {
    const s = queue({ ...initialState(), fleet: { inFlight: [], started: 3, notBefore: { 'hx-0000000a': at + 4000 } } }, [beads[0]!]);
    expect(s.effects).toEqual([{ type: 'sleep', seconds: 4 }, { type: 'readQueue' }]);
  });

  it('a limit pauses dispatch; the other slot goes on and nothing new starts until the pause ends', () => {
    const started = queue(initialState()).state;
    const limited = step(started, { type: 'limited', bead: beads[0]!, limit: { agent: 'claude', kind: 'rate', detail: '429' }, at }, fleet);
    expect(limited.state.fleet.pausedUntil).toBe(at + 60_000);
    expect(limited.effects.map((e) => e.type)).not.toContain('sleep');
    expect(queue(limited.state).effects).toEqual([]);
    // the resume is said when dispatch resumes, not at the pause
    expect(limited.effects.filter((e) => e.type === 'say').map((e) => e.type === 'say' && e.text).join('\n')).not.toMatch(/resuming/);
    const resumed = queue(limited.state, beads, at + 61_000).effects;
    expect(resumed.slice(0, 3).map((e) => (e.type === 'say' ? e.text : e.type === 'record' ? e.event.type : e.type))).toEqual(['resuming after waiting 60s for the claude limit', 'limit_resume', 'startAttempt']);
  });

  it('a stop waits for the slots in flight, then stops', () => {
    const started = queue(initialState()).state;
    const capped = { ...fleet, maxCycles: 1 };
    const done = step(started, { type: 'attempted', bead: beads[0]!, outcome: { kind: 'completed', salvaged: false }, durationSec: 1, tokens: 0, at, cycle: 1 }, capped);
    expect(done.state.stop).toBeUndefined();
    expect(done.effects.map((e) => e.type)).not.toContain('stop');
    const last = step(done.state, { type: 'attempted', bead: beads[1]!, outcome: { kind: 'completed', salvaged: false }, durationSec: 1, tokens: 0, at, cycle: 2 }, capped);
    const read = step(last.state, { type: 'queue', ready: [beads[2]!], beads, at }, capped);
    expect(read.state.stop).toEqual({ exitCode: 0, reason: 'completed' });
  });
});
