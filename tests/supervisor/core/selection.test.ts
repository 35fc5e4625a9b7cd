// Which bead the loop works on next (docs/contract/cli.md §6.2): epic focus, governance preference, epics
// handing over to children, promotion of tasks that gained children, batching.
import { describe, expect, it } from 'vitest';
import type { Bead } from '../../../src/tracker/index.js';
import { readyBeads, readyEpics } from '../../../src/tracker/index.js';
import { batchFor, selectNext, tasksToPromote } from '../../../src/supervisor/core/selection.js';
import { bead } from '../../helpers/bead.js';

function select(beads: Bead[], focusedEpic?: string, excluded: string[] = []) {
  return selectNext({ ready: readyBeads(beads, { execution: true }), epics: readyEpics(beads), beads, focusedEpic, excluded: new Set(excluded) });
}

describe('selectNext', () => {
  it('prefers a task carrying a spec-id, acceptance or design over an earlier plain one', () => {
    for (const governance of [{ 'spec-id': 'FEAT-1' }, { acceptance: 'it works' }, { design: 'do it so' }]) {
      const beads = [bead({ id: 'hx-plain' }), bead({ id: 'hx-gov', ...governance })];
      expect(select(beads)).toMatchObject({ kind: 'attempt', bead: { id: 'hx-gov' } });
    }
  });

  it('takes any task before an epic, in ready order (priority first)', () => {
    const beads = [bead({ id: 'hx-epic', issue_type: 'epic', priority: 0 }), bead({ id: 'hx-low', priority: 3 }), bead({ id: 'hx-high', priority: 1 })];
    expect(select(beads)).toMatchObject({ kind: 'attempt', bead: { id: 'hx-high' }, focusedEpic: undefined });
  });

  it('a task whose parent is an epic focuses that epic (as its parent)', () => {
    const beads = [bead({ id: 'hx-epic', issue_type: 'epic' }), bead({ id: 'hx-child', parent: 'hx-epic' })];
    expect(select(beads)).toEqual({ kind: 'attempt', bead: beads[1], focusedEpic: 'hx-epic', focus: 'parent' });
  });

  it('with an epic in focus, takes its first open child even when a governed task waits elsewhere', () => {
    const beads = [
      bead({ id: 'hx-gov', 'spec-id': 'S-1', priority: 0 }),
      bead({ id: 'hx-epic', issue_type: 'epic' }),
      bead({ id: 'hx-c1', parent: 'hx-epic', status: 'closed' }),
      bead({ id: 'hx-c2', parent: 'hx-epic' }),
    ];
    expect(select(beads, 'hx-epic')).toEqual({ kind: 'attempt', bead: expect.objectContaining({ id: 'hx-c2' }), focusedEpic: 'hx-epic', focus: 'child' });
  });

  it('closes the focused epic when all its children are closed', () => {
    const beads = [bead({ id: 'hx-epic', issue_type: 'epic' }), bead({ id: 'hx-c1', parent: 'hx-epic', status: 'closed' }), bead({ id: 'hx-x' })];
    expect(select(beads, 'hx-epic')).toMatchObject({ kind: 'closeEpic', epic: { id: 'hx-epic' } });
  });

  it('an epic with an in_progress child is not closed; the loop looks elsewhere', () => {
    const beads = [
      bead({ id: 'hx-epic', issue_type: 'epic' }),
      bead({ id: 'hx-c1', parent: 'hx-epic', status: 'closed' }),
      bead({ id: 'hx-c2', parent: 'hx-epic', status: 'in_progress' }),
      bead({ id: 'hx-x' }),
    ];
    // focus is released, and the release says how many children are still open (docs/contract/bash-interface.md §2.3)
    expect(select(beads, 'hx-epic')).toMatchObject({ kind: 'attempt', bead: { id: 'hx-x' }, focusedEpic: undefined, released: { epic: 'hx-epic', open: 1 } });
    expect(select(beads.slice(0, 3), 'hx-epic')).toEqual({ kind: 'drained', focusedEpic: undefined, released: { epic: 'hx-epic', open: 1 } });
  });

  it('an unfocused ready epic whose children are all closed is closed; one with no children waits', () => {
    const done = [bead({ id: 'hx-epic', issue_type: 'epic' }), bead({ id: 'hx-c1', parent: 'hx-epic', status: 'closed' })];
    expect(select(done)).toMatchObject({ kind: 'closeEpic', epic: { id: 'hx-epic' } });
    expect(select([bead({ id: 'hx-empty', issue_type: 'epic' })])).toEqual({ kind: 'drained', focusedEpic: undefined });
  });

  it('never selects excluded (skipped or passed-over) beads, nor focuses a skipped epic', () => {
    const beads = [bead({ id: 'hx-a' }), bead({ id: 'hx-b' })];
    expect(select(beads, undefined, ['hx-a'])).toMatchObject({ bead: { id: 'hx-b' } });
    expect(select(beads, undefined, ['hx-a', 'hx-b'])).toEqual({ kind: 'drained', focusedEpic: undefined });
    const epic = [bead({ id: 'hx-epic', issue_type: 'epic' }), bead({ id: 'hx-c', parent: 'hx-epic' })];
    expect(select(epic, undefined, ['hx-epic'])).toEqual({ kind: 'attempt', bead: epic[1], focusedEpic: undefined });
  });

  it('never selects an execution-ineligible bead', () => {
    const beads = [
      bead({ id: 'hx-no', 'execution-eligible': false, 'spec-id': 'S' }),
      bead({ id: 'hx-sup', 'superseded-by': 'hx-new', 'spec-id': 'S' }),
      bead({ id: 'hx-later', 'execute-loop-retry-after': '2999-01-01T00:00:00Z', 'spec-id': 'S' }),
    ];
    expect(select(beads)).toEqual({ kind: 'drained', focusedEpic: undefined });
  });
});

describe('tasksToPromote', () => {
  it('names open tasks with more than one child', () => {
    const beads = [
      bead({ id: 'hx-two', labels: ['area:x'] }),
      bead({ id: 'hx-c1', parent: 'hx-two' }),
      bead({ id: 'hx-c2', parent: 'hx-two' }),
      bead({ id: 'hx-one' }),
      bead({ id: 'hx-c3', parent: 'hx-one' }),
      bead({ id: 'hx-epic', issue_type: 'epic' }),
      bead({ id: 'hx-c4', parent: 'hx-epic' }),
      bead({ id: 'hx-c5', parent: 'hx-epic' }),
    ];
    expect(tasksToPromote(beads).map((b) => b.id)).toEqual(['hx-two']);
  });
});

describe('batchFor', () => {
  it('batches up to 3 by parent, else spec-id, else a shared area label; never epics or excluded', () => {
    const primary = bead({ id: 'hx-p', parent: 'hx-epic', 'spec-id': 'S', labels: ['area:ui'] });
    const sibling1 = bead({ id: 'hx-s1', parent: 'hx-epic' });
    const sibling2 = bead({ id: 'hx-s2', parent: 'hx-epic' });
    const sibling3 = bead({ id: 'hx-s3', parent: 'hx-epic' });
    const sameSpec = bead({ id: 'hx-spec', 'spec-id': 'S' });
    const sameArea = bead({ id: 'hx-area', labels: ['area:ui'] });
    const epic = bead({ id: 'hx-e2', issue_type: 'epic', labels: ['area:ui'] });
    const ids = (beads: Bead[]) => beads.map((b) => b.id);
    expect(ids(batchFor(primary, [primary, sibling1, sibling2, sibling3, sameSpec], new Set()))).toEqual(['hx-p', 'hx-s1', 'hx-s2']);
    expect(ids(batchFor(primary, [primary, sibling1, sibling2], new Set(['hx-s1'])))).toEqual(['hx-p', 'hx-s2']);
    expect(ids(batchFor(primary, [primary, sameSpec, sameArea], new Set()))).toEqual(['hx-p', 'hx-spec']);
    expect(ids(batchFor(primary, [primary, sameArea, epic], new Set()))).toEqual(['hx-p', 'hx-area']);
    expect(ids(batchFor(bead({ id: 'hx-lone' }), [sameArea], new Set()))).toEqual(['hx-lone']);
  });
});
