// Which beads may start now (core/scheduler.ts): slots, file overlap, pauses, the queue's order.
import { describe, expect, it } from 'vitest';
import { ANY_FILES, filesOf, fleetOrder, overlaps, whichMayStart } from '../../../src/supervisor/core/scheduler.js';
import { bead } from '../../helpers/bead.js';

const b = (id: string, description: string, extra: Record<string, unknown> = {}) => bead({ id, title: id, description, ...extra });
const ids = (list: Array<{ id: string }>) => list.map((x) => x.id);

describe('the files a bead names', () => {
  it.each([
    ['Fix the parser in src/parse.ts and its test.', { paths: ['src/parse.ts'], globs: [] }],
    ['Update README.md and docs/usage.md.', { paths: ['README.md', 'docs/usage.md'], globs: [] }],
    ['Make it faster.', ANY_FILES],
    ['See https://example.com/a/b and version 1.2.3; edit `lib/x/` (a URL and a version are not paths)', { paths: ['lib/x'], globs: [] }],
  ])('%s', (description, files) => {
    expect(filesOf(b('hx-1', description))).toEqual(files);
  });

  it('spec-id paths, relevant_files and touches: labels count', () => {
    expect(filesOf(b('hx-1', 'Do it.', { 'spec-id': 'docs/spec/auth.md', relevant_files: ['src/auth.ts'], labels: ['touches:src/auth/**', 'area:auth'] }))).toEqual({
      paths: ['docs/spec/auth.md', 'src/auth.ts'],
      globs: ['src/auth/**'],
    });
  });
});

describe('overlap', () => {
  const f = (paths: string[], globs: string[] = []) => ({ paths, globs });
  it.each([
    [f(['src/a.ts']), f(['src/a.ts']), true],
    [f(['src/a.ts']), f(['src/b.ts']), false],
    [f(['src']), f(['src/b.ts']), true],
    [f([], ['src/**']), f(['src/deep/b.ts']), true],
    [f([], ['src/*.ts']), f(['src/deep/b.ts']), false],
    [f([], ['docs/**']), f([], ['src/**']), false],
    [ANY_FILES, f(['anything.md']), true],
  ])('%j × %j → %s', (a, c, expected) => {
    expect(overlaps(a, c)).toBe(expected);
    expect(overlaps(c, a)).toBe(expected);
  });
});

describe('which beads may start now', () => {
  const queue = [b('hx-a', 'edit src/a.ts'), b('hx-b', 'edit src/a.ts again'), b('hx-c', 'edit src/c.ts'), b('hx-d', 'edit src/d.ts')];
  const none = new Set<string>();

  it('as many as there are free slots, in queue order, never two on one file', () => {
    expect(ids(whichMayStart({ ready: queue, inFlight: [], slots: 4, excluded: none, paused: false }))).toEqual(['hx-a', 'hx-c', 'hx-d']);
    expect(ids(whichMayStart({ ready: queue, inFlight: [], slots: 2, excluded: none, paused: false }))).toEqual(['hx-a', 'hx-c']);
  });

  it('a bead in flight holds its files; a full house starts nothing; a pause starts nothing', () => {
    const inFlight = [{ id: 'hx-a', files: filesOf(queue[0]!) }];
    expect(ids(whichMayStart({ ready: queue, inFlight, slots: 3, excluded: none, paused: false }))).toEqual(['hx-c', 'hx-d']);
    expect(whichMayStart({ ready: queue, inFlight, slots: 1, excluded: none, paused: false })).toEqual([]);
    expect(whichMayStart({ ready: queue, inFlight: [], slots: 4, excluded: none, paused: true })).toEqual([]);
  });

  it('a bead naming no files runs alone, and one waiting keeps its place: nothing behind it jumps it', () => {
    const vague = b('hx-v', 'Make it faster.');
    expect(ids(whichMayStart({ ready: [vague, ...queue], inFlight: [], slots: 4, excluded: none, paused: false }))).toEqual(['hx-v']);
    expect(whichMayStart({ ready: [vague, ...queue], inFlight: [{ id: 'hx-x', files: filesOf(queue[3]!) }], slots: 4, excluded: none, paused: false })).toEqual([]);
  });

  it('excluded beads (skipped, backing off) and beads already in flight are not started', () => {
    expect(ids(whichMayStart({ ready: queue, inFlight: [], slots: 4, excluded: new Set(['hx-a']), paused: false }))).toEqual(['hx-b', 'hx-c', 'hx-d']);
  });
});

describe('the order several slots take the beads that may start (issue 38 item 3)', () => {
  const b = (id: string, fields: Record<string, unknown> = {}) => bead({ id, title: id, description: `edit src/${id}.ts`, ...fields });
  const none = () => 0;
  const ids = (beads: Array<{ id: string }>) => beads.map((x) => x.id);

  it('priority first, as the queue has it', () => {
    const ready = [b('hx-p2', { priority: 2, verify: 'npm test' }), b('hx-p0', { priority: 0 })];
    expect(ids(fleetOrder(ready, ready, none))).toEqual(['hx-p0', 'hx-p2']);
  });

  it('then the bead that will be repeated: failed tonight, failed the attempt before, or refutable by its own verify command', () => {
    const ready = [b('hx-plain'), b('hx-verify', { verify: 'npm test' }), b('hx-failed'), b('hx-parked', { 'work-last-status': 'execution_failed' })];
    expect(ids(fleetOrder(ready, ready, (id) => (id === 'hx-failed' ? 1 : 0)))).toEqual(['hx-failed', 'hx-parked', 'hx-verify', 'hx-plain']);
  });

  it('then the work it unblocks: the longest chain of open beads waiting on it', () => {
    const dep = (id: string, on: string) => ({ dependencies: [{ issue_id: id, depends_on_id: on, type: 'blocks' }] });
    const all = [b('hx-alone'), b('hx-head2'), b('hx-a', dep('hx-a', 'hx-head2')), b('hx-head3'), b('hx-x', dep('hx-x', 'hx-head3')), b('hx-y', dep('hx-y', 'hx-x')), b('hx-done', { status: 'closed' }), b('hx-z', dep('hx-z', 'hx-done'))];
    const ready = [all[0]!, all[1]!, all[3]!, all[7]!];
    expect(ids(fleetOrder(ready, all, none))).toEqual(['hx-head3', 'hx-head2', 'hx-alone', 'hx-z']);
  });

  it('counts the open beads that name its file as held up too: they can never run beside it', () => {
    const onFile = (id: string, file: string) => b(id, { description: `edit ${file}` });
    const all = [b('hx-alone'), onFile('hx-pair1', 'src/pair.ts'), b('hx-vague', { description: 'Make it faster.' }), onFile('hx-trio1', 'src/trio.ts'), onFile('hx-pair2', 'src/pair.ts'), onFile('hx-trio2', 'src/trio.ts'), onFile('hx-trio3', 'src/trio.ts')];
    const ready = [all[0]!, all[1]!, all[2]!, all[3]!];
    // hx-vague names no file: it runs alone wherever it comes, and counts for none
    expect(ids(fleetOrder(ready, all, none))).toEqual(['hx-trio1', 'hx-pair1', 'hx-alone', 'hx-vague']);
  });

  it('keeps the queue order among equals, and survives a dependency cycle in a hand-edited file', () => {
    const dep = (id: string, on: string) => ({ dependencies: [{ issue_id: id, depends_on_id: on, type: 'blocks' }] });
    const all = [b('hx-1', dep('hx-1', 'hx-2')), b('hx-2', dep('hx-2', 'hx-1')), b('hx-3'), b('hx-4')];
    expect(ids(fleetOrder([all[2]!, all[3]!], all, none))).toEqual(['hx-3', 'hx-4']);
  });
});
