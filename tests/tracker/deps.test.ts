import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { addDependency, allCycles, dependencyRows, dependencyTree, findCycle, removeDependency } from '../../src/tracker/index.js';
import { draftOf, errorOf } from './builders.js';
import { bead } from '../helpers/bead.js';

describe('dependencies', () => {
  it('add records a blocks dependency; adding it again changes nothing', () => {
    const draft = draftOf(bead({ id: 'a' }), bead({ id: 'b' }));
    addDependency(draft, 'a', 'b');
    expect(draft.get('a')!.dependencies).toEqual([expect.objectContaining({ issue_id: 'a', depends_on_id: 'b', type: 'blocks' })]);
    addDependency(draft, 'a', 'b');
    expect(draft.get('a')!.dependencies).toHaveLength(1);
  });

  it('refuses a self-dependency', () => {
    const error = errorOf(() => addDependency(draftOf(bead({ id: 'a' })), 'a', 'a'));
    expect(error.exitCode).toBe(EXIT.validation);
    expect(error.message).toBe('bead: a cannot depend on itself');
  });

  it('refuses a dependency that closes a cycle, naming the cycle', () => {
    const draft = draftOf(bead({ id: 'a', deps: ['b'] }), bead({ id: 'b', deps: ['c'] }), bead({ id: 'c' }));
    const error = errorOf(() => addDependency(draft, 'c', 'a'));
    expect(error.exitCode).toBe(EXIT.validation);
    expect(error.message).toBe('bead: dependency cycle: c -> a -> b -> c');
  });

  it('refuses to edit a dependencies value that is not a list rather than replace it', () => {
    const draft = draftOf(bead({ id: 'a', dependencies: { x: 1 } as never }), bead({ id: 'b' }));
    for (const edit of [() => addDependency(draft, 'a', 'b'), () => removeDependency(draft, 'a', 'b')]) {
      const error = errorOf(edit);
      expect(error.exitCode).toBe(EXIT.validation);
      expect(error.message).toBe('bead: a has a dependencies value that is not a list; fix it with --set dependencies=[...]');
    }
    expect(draft.changed).toBe(false);
    expect(allCycles(draft.beads)).toEqual([]);
  });

  it('refuses a dependency on an unknown bead', () => {
    expect(errorOf(() => addDependency(draftOf(bead({ id: 'a' })), 'a', 'ghost')).exitCode).toBe(EXIT.notFound);
  });

  it('remove drops the edge; removing a missing edge is not found', () => {
    const draft = draftOf(bead({ id: 'a', deps: ['b', 'c'] }), bead({ id: 'b' }), bead({ id: 'c' }));
    removeDependency(draft, 'a', 'b');
    expect(draft.get('a')!.dependencies!.map((d) => (typeof d === 'string' ? d : d.depends_on_id))).toEqual(['c']);
    expect(errorOf(() => removeDependency(draft, 'a', 'b')).exitCode).toBe(EXIT.notFound);
  });

  it('findCycle and allCycles report each cycle once', () => {
    const beads = [bead({ id: 'a', deps: ['b'] }), bead({ id: 'b', deps: ['a'] }), bead({ id: 'c', deps: ['a'] })];
    expect(findCycle(beads, 'c')).toEqual(['a', 'b', 'a']);
    expect(allCycles(beads)).toHaveLength(1);
    expect(allCycles([bead({ id: 'x', deps: ['y'] }), bead({ id: 'y' })])).toEqual([]);
  });

  it('allCycles reports every cyclic group, including ones reached only from later beads', () => {
    const beads = [
      bead({ id: 'x', deps: ['a'] }),
      bead({ id: 'a', deps: ['b'] }),
      bead({ id: 'b', deps: ['a'] }),
      bead({ id: 'p', deps: ['q'] }),
      bead({ id: 'q', deps: ['r'] }),
      bead({ id: 'r', deps: ['p'] }),
    ];
    expect(allCycles(beads)).toEqual([
      ['a', 'b', 'a'],
      ['p', 'q', 'r', 'p'],
    ]);
  });

  it('a dependency chain 50,000 long neither overflows the stack nor hides the cycle at its end', () => {
    const n = 50_000;
    const beads = Array.from({ length: n }, (_, i) => bead({ id: `c${i}`, deps: [i + 1 < n ? `c${i + 1}` : 'c0'] }));
    expect(findCycle(beads, 'c0')).toHaveLength(n + 1);
    expect(allCycles(beads)).toHaveLength(1);
  });

  it('tree expands a shared dependency once and marks later mentions (see above)', () => {
    const beads = [
      bead({ id: 'top', title: 'T', deps: ['l', 'r'] }),
      bead({ id: 'l', title: 'L', deps: ['base'] }),
      bead({ id: 'r', title: 'R', deps: ['base'] }),
      bead({ id: 'base', title: 'B', deps: ['leaf'] }),
      bead({ id: 'leaf', title: 'F' }),
    ];
    expect(dependencyTree(beads, 'top')).toBe(
      ['top [open] T', '  └─ l [open] L', '    └─ base [open] B', '      └─ leaf [open] F', '  └─ r [open] R', '    └─ base [open] B (see above)'].join('\n'),
    );
  });

  it('rows carry depth, an unknown dependency as null status, and the repeat mark; a 5,000-deep chain is walked without recursion', () => {
    const beads = [bead({ id: 'top', title: 'T', deps: ['l', 'r', 'gone'] }), bead({ id: 'l', title: 'L', deps: ['base'] }), bead({ id: 'r', title: 'R', deps: ['base'] }), bead({ id: 'base', title: 'B', deps: ['leaf'] }), bead({ id: 'leaf', title: 'F' })];
    expect(dependencyRows(beads, 'top').map((row) => [row.id, row.depth, row.status, row.repeat ?? false])).toEqual([
      ['top', 0, 'open', false],
      ['l', 1, 'open', false],
      ['base', 2, 'open', false],
      ['leaf', 3, 'open', false],
      ['r', 1, 'open', false],
      ['base', 2, 'open', true],
      ['gone', 1, null, false],
    ]);
    const chain = Array.from({ length: 5000 }, (_, i) => bead({ id: `c${i}`, deps: i ? [`c${i - 1}`] : [] }));
    const rows = dependencyRows(chain, 'c4999');
    expect(rows).toHaveLength(5000);
    expect(rows.at(-1)).toMatchObject({ id: 'c0', depth: 4999 });
  });

  it('tree output stays linear on stacked diamonds (it used to double per level)', () => {
    const beads = [bead({ id: 'd0' })];
    for (let level = 1; level <= 40; level++) {
      beads.push(bead({ id: `l${level}`, deps: [`d${level - 1}`] }), bead({ id: `r${level}`, deps: [`d${level - 1}`] }));
      beads.push(bead({ id: `d${level}`, deps: [`l${level}`, `r${level}`] }));
    }
    expect(dependencyTree(beads, 'd40').split('\n').length).toBeLessThan(200);
  });

  it('tree shows what a bead depends on, with statuses and unknown ids', () => {
    const beads = [bead({ id: 'a', title: 'A', deps: ['b', 'ghost'] }), bead({ id: 'b', title: 'B', status: 'closed' })];
    expect(dependencyTree(beads, 'a')).toBe('a [open] A\n  └─ b [closed] B\n  └─ ghost [unknown]');
  });

  it('tree terminates on a cycle', () => {
    const beads = [bead({ id: 'a', title: 'A', deps: ['b'] }), bead({ id: 'b', title: 'B', deps: ['a'] })];
    expect(dependencyTree(beads, 'a').split('\n')).toHaveLength(3);
  });
});
