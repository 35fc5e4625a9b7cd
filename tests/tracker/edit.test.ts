// `tracker update` as one library call (editBead) and `tracker list`'s filter (listBeads): the
// work the CLI only parses flags for.
import { describe, expect, it } from 'vitest';
import { editBead, listBeads } from '../../src/tracker/index.js';
import { draftOf, errorOf } from './builders.js';
import { bead } from '../helpers/bead.js';

describe('editBead', () => {
  it('claims with the caller’s pid and an assignee, after checking the token', () => {
    const draft = draftOf(bead({ id: 'a' }));
    const claimed = editBead(draft, 'a', { claim: true, assignee: 'worker-7' }, { claimant: 4242 });
    expect(claimed).toMatchObject({ status: 'in_progress', owner: 'worker-7', 'claimed-pid': '4242' });
  });

  it('releases first, then changes fields, in one write', () => {
    const draft = draftOf(bead({ id: 'a' }));
    const token = String(editBead(draft, 'a', { claim: true }, { claimant: 1 })['claim-token']);
    const edited = editBead(draft, 'a', { unclaim: true, token, title: 'renamed' }, { claimant: 1 });
    expect(edited).toMatchObject({ status: 'open', title: 'renamed' });
    expect(edited).not.toHaveProperty('claim-token');
  });

  it('a blocked status keeps the external reason; a wrong token changes nothing', () => {
    const draft = draftOf(bead({ id: 'a' }));
    expect(editBead(draft, 'a', { status: 'blocked', externalBlockerReason: 'waiting on vendor' }, { claimant: 1 })).toMatchObject({ status: 'blocked' });
    const claimed = draftOf(bead({ id: 'b' }));
    editBead(claimed, 'b', { claim: true }, { claimant: 1 });
    expect(errorOf(() => editBead(claimed, 'b', { title: 'x', token: 'not-the-token' }, { claimant: 1 }))).toBeDefined();
    expect(claimed.require('b').title).not.toBe('x');
  });
});

describe('listBeads', () => {
  const beads = [
    bead({ id: 'c', status: 'open', labels: ['x'] }),
    bead({ id: 'a', status: 'closed', labels: ['x'] }),
    bead({ id: 'b', status: 'open', 'spec-id': 'S-1' }),
  ];

  it('filters by status, label and exact field values, in id order', () => {
    expect(listBeads(beads, {}).map((b) => b.id)).toEqual(['a', 'b', 'c']);
    expect(listBeads(beads, { status: 'open' }).map((b) => b.id)).toEqual(['b', 'c']);
    expect(listBeads(beads, { label: 'x' }).map((b) => b.id)).toEqual(['a', 'c']);
    expect(listBeads(beads, { where: ['spec-id=S-1'] }).map((b) => b.id)).toEqual(['b']);
  });
});
