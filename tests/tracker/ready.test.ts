import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { blockedBeads, compareReadyOrder, isExecutionEligible, readyBeads, statusCounts } from '../../src/tracker/index.js';
import { ids } from './builders.js';
import { bead } from '../helpers/bead.js';

const NOW = new Date('2025-06-01T12:00:00Z');

describe('readyBeads', () => {
  it('an open bead with no dependencies is ready', () => {
    const a = bead({ id: 'a' });
    expect(ids(readyBeads([a]))).toEqual(['a']);
  });

  it('in_progress and closed beads are never ready', () => {
    const beads = [bead({ id: 'a', status: 'in_progress' }), bead({ id: 'b', status: 'closed' }), bead({ id: 'c' })];
    expect(ids(readyBeads(beads))).toEqual(['c']);
  });

  it('a bead is ready only when every dependency is closed', () => {
    const beads = [
      bead({ id: 'dep-open' }),
      bead({ id: 'dep-wip', status: 'in_progress' }),
      bead({ id: 'dep-done', status: 'closed' }),
      bead({ id: 'x', deps: ['dep-done'] }),
      bead({ id: 'y', deps: ['dep-done', 'dep-open'] }),
      bead({ id: 'z', deps: ['dep-wip'] }),
    ];
    expect(ids(readyBeads(beads))).toEqual(['dep-open', 'x']);
    expect(ids(blockedBeads(beads))).toEqual(['y', 'z']);
  });

  it('an unknown dependency is never satisfied: the bead is blocked', () => {
    const beads = [bead({ id: 'a', deps: ['missing'] })];
    expect(readyBeads(beads)).toEqual([]);
    expect(ids(blockedBeads(beads))).toEqual(['a']);
  });

  it('plain string dependencies (older files) gate readiness too', () => {
    const beads = [bead({ id: 'a' }), bead({ id: 'b', dependencies: ['a'] })];
    expect(ids(readyBeads(beads))).toEqual(['a']);
    expect(ids(blockedBeads(beads))).toEqual(['b']);
  });

  it('a dependencies value that is not a list (another tool\'s damage) blocks the bead instead of crashing', () => {
    const beads = [
      bead({ id: 'a', dependencies: { b: 1 } as never }),
      bead({ id: 'b', dependencies: 'a' as never }),
      bead({ id: 'c', dependencies: null as never }),
      bead({ id: 'd', dependencies: [null, 7, { depends_on_id: 3 }] as never }),
    ];
    // d's entries have no readable target: DDx reads each as an empty dependency, which blocks
    expect(ids(readyBeads(beads))).toEqual(['c']);
    expect(ids(blockedBeads(beads))).toEqual(['a', 'b', 'd']);
  });

  it.each(['blocks', 'related', 'discovered-from', 'parent-child', 'depends_on', ''])('a %j dependency blocks, as every type does in DDx (DepIDs)', (type) => {
    const b = bead({ id: 'b', dependencies: [{ issue_id: 'b', depends_on_id: 'a', type }] });
    expect(ids(readyBeads([bead({ id: 'a' }), b]))).toEqual(['a']);
    expect(ids(readyBeads([bead({ id: 'a', status: 'closed' }), b]))).toEqual(['b']);
  });

  it('orders by priority first, whatever the creation time or id', () => {
    const beads = [
      bead({ id: 'a', priority: 3, created_at: '2020-01-01T00:00:00Z' }),
      bead({ id: 'b', priority: 0, created_at: '2030-01-01T00:00:00Z' }),
      bead({ id: 'c', priority: 1 }),
    ];
    expect(ids(readyBeads(beads))).toEqual(['b', 'c', 'a']);
  });

  it('breaks a priority tie by created_at, reading fractional seconds', () => {
    const beads = [
      bead({ id: 'a', created_at: '2025-01-01T00:00:00.900Z' }),
      bead({ id: 'b', created_at: '2025-01-01T00:00:00.1234567Z' }),
      bead({ id: 'c', created_at: '2025-01-01T00:00:00.5+00:00' }),
    ];
    expect(ids(readyBeads(beads))).toEqual(['b', 'c', 'a']);
  });

  it('compares created_at as time, not text (time zones)', () => {
    const beads = [
      bead({ id: 'a', created_at: '2025-01-01T01:30:00+02:00' }), // 23:30Z the day before
      bead({ id: 'b', created_at: '2025-01-01T00:00:00Z' }),
    ];
    expect(ids(readyBeads(beads))).toEqual(['a', 'b']);
  });

  it('breaks a priority and created_at tie by id', () => {
    const created_at = '2025-01-01T00:00:00Z';
    const beads = [bead({ id: 'c', created_at }), bead({ id: 'a', created_at }), bead({ id: 'b', created_at })];
    expect(ids(readyBeads(beads))).toEqual(['a', 'b', 'c']);
  });

  it('reads a priority written as a string', () => {
    const beads = [bead({ id: 'a', priority: '3' as unknown as number }), bead({ id: 'b', priority: 1 })];
    expect(ids(readyBeads(beads))).toEqual(['b', 'a']);
  });
});

describe('readyBeads --execution', () => {
  it('excludes execution-eligible: false (boolean or string) but keeps true and absent', () => {
    const beads = [
      bead({ id: 'a', 'execution-eligible': false }),
      bead({ id: 'b', 'execution-eligible': 'false' }),
      bead({ id: 'c', 'execution-eligible': true }),
      bead({ id: 'd' }),
    ];
    expect(ids(readyBeads(beads, { execution: true, now: NOW }))).toEqual(['c', 'd']);
    expect(ids(readyBeads(beads, { now: NOW }))).toEqual(['a', 'b', 'c', 'd']);
  });

  it('excludes a non-empty superseded-by, keeps an empty one', () => {
    const beads = [bead({ id: 'a', 'superseded-by': 'x-1' }), bead({ id: 'b', 'superseded-by': '' }), bead({ id: 'c', 'superseded-by': '  ' })];
    expect(ids(readyBeads(beads, { execution: true, now: NOW }))).toEqual(['b', 'c']);
  });

  it('excludes a future execute-loop-retry-after, keeps a past one', () => {
    const beads = [
      bead({ id: 'future', 'execute-loop-retry-after': '2025-06-01T12:00:00.5Z' }),
      bead({ id: 'past', 'execute-loop-retry-after': '2025-06-01T11:59:59.999Z' }),
    ];
    expect(ids(readyBeads(beads, { execution: true, now: NOW }))).toEqual(['past']);
    expect(isExecutionEligible(beads[0]!, new Date('2025-06-01T12:00:01Z'))).toBe(true);
  });
});

describe('compareReadyOrder', () => {
  it('puts a bead without created_at after dated ones of the same priority', () => {
    const dated = bead({ id: 'z' });
    const undated = bead({ id: 'a', created_at: undefined });
    expect(compareReadyOrder(dated, undated)).toBeLessThan(0);
  });
});

describe('statusCounts', () => {
  it('counts totals, statuses, ready and blocked', () => {
    const beads = [
      bead({ id: 'a' }),
      bead({ id: 'b', deps: ['a'] }),
      bead({ id: 'c', status: 'in_progress' }),
      bead({ id: 'd', status: 'closed' }),
      bead({ id: 'e', deps: ['d'] }),
    ];
    expect(statusCounts(beads)).toEqual({ total: 5, open: 3, in_progress: 1, closed: 1, ready: 2, blocked: 1 });
  });
});

describe('property: readiness invariants', () => {
  const ID = fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'ghost');
  const beadArb = fc.record({
    id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'),
    status: fc.constantFrom('open', 'in_progress', 'closed'),
    priority: fc.integer({ min: 0, max: 4 }),
    created_at: fc.integer({ min: 0, max: 5 }).map((s) => `2025-01-01T00:00:0${s}.${s}Z`),
    deps: fc.array(ID, { maxLength: 3 }),
    'execution-eligible': fc.boolean(),
  });
  const files = fc.uniqueArray(beadArb, { selector: (b) => b.id, maxLength: 6 }).map((specs) => specs.map((s) => bead(s)));

  it('ready ∩ blocked = ∅, ready ⊆ open, ready ∪ blocked = open, execution ⊆ ready, order is sorted', () => {
    fc.assert(
      fc.property(files, (beads) => {
        const ready = ids(readyBeads(beads, { now: NOW }));
        const blocked = ids(blockedBeads(beads));
        const open = beads.filter((b) => b.status === 'open').map((b) => b.id);
        expect(ready.filter((id) => blocked.includes(id))).toEqual([]);
        expect(ready.every((id) => open.includes(id))).toBe(true);
        expect([...ready, ...blocked].sort()).toEqual([...open].sort());
        const execution = ids(readyBeads(beads, { execution: true, now: NOW }));
        expect(execution.every((id) => ready.includes(id))).toBe(true);
        const ordered = readyBeads(beads, { now: NOW });
        for (let i = 1; i < ordered.length; i++) expect(compareReadyOrder(ordered[i - 1]!, ordered[i]!)).toBeLessThan(0);
      }),
      { numRuns: 300 },
    );
  });
});
