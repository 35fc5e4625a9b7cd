import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { updateBead } from '../../src/tracker/index.js';
import { draftOf, errorOf } from './builders.js';
import { bead } from '../helpers/bead.js';

const NOW = new Date('2025-06-01T12:00:00Z');

describe('updateBead', () => {
  it('changes the named fields in place, keeping key order, and stamps updated_at', () => {
    const draft = draftOf(bead({ id: 'a', 'x-tool': 1 }));
    const before = Object.keys(draft.get('a')!);
    const updated = updateBead(draft, 'a', { title: 'new', status: 'in_progress', priority: 4, labels: ['l'], assignee: 'me', notes: 'n' }, NOW);
    expect(updated).toMatchObject({ title: 'new', status: 'in_progress', priority: 4, labels: ['l'], owner: 'me', notes: 'n', updated_at: '2025-06-01T12:00:00.000Z' });
    expect(Object.keys(updated).slice(0, before.length)).toEqual(before);
  });

  it('--set adds or replaces any key; --unset removes keys', () => {
    const draft = draftOf(bead({ id: 'a', design: 'old', 'superseded-by': 'b' }));
    const updated = updateBead(draft, 'a', { set: ['design=new', 'execution-eligible=false'], unset: ['superseded-by'] });
    expect(updated.design).toBe('new');
    expect(updated['execution-eligible']).toBe(false);
    expect(updated).not.toHaveProperty('superseded-by');
  });

  it.each([[{ status: 'closed' }], [{ set: ['status=closed'] }]])('%j goes through close\'s open-blocker guard: exit 9, nothing changed', (input) => {
    // in_progress: the one status DDx's lifecycle lets `update` move to closed
    const draft = draftOf(bead({ id: 'a', status: 'in_progress', deps: ['b'] }), bead({ id: 'b' }));
    const error = errorOf(() => updateBead(draft, 'a', input));
    expect(error.exitCode).toBe(EXIT.openDependencies);
    expect(error.exitCode).toBe(9);
    expect(error.message).toBe('bead: cannot close a: blocked by open dependencies: b (use --force to override)');
    expect(draft.changed).toBe(false);
    expect(updateBead(draftOf(bead({ id: 'a', status: 'in_progress', deps: ['b'] }), bead({ id: 'b' })), 'a', { ...input, force: true }).status).toBe('closed');
    expect(updateBead(draftOf(bead({ id: 'a', status: 'in_progress', deps: ['b'] }), bead({ id: 'b', status: 'closed' })), 'a', input).status).toBe('closed');
  });

  it.each([
    [{ status: 'done' }, 'bead: invalid status "done": must be one of open, in_progress, closed, blocked, proposed, cancelled'],
    [{ set: ['status=done'] }, 'bead: invalid status "done": must be one of open, in_progress, closed, blocked, proposed, cancelled'],
    [{ status: 'proposed' }, 'bead: a: lifecycle transition open -> proposed rejected: transition_requires_operator: open -> proposed'],
    [{ status: 'blocked' }, 'bead: a: lifecycle transition open -> blocked rejected: transition_requires_external_blocker: open -> blocked'],
    [{ priority: '9' }, 'bead: invalid priority "9": must be an integer 0-4'],
    [{ set: ['priority=x'] }, 'bead: invalid priority "x": must be an integer 0-4'],
    [{ title: '' }, 'bead: title must not be blank'],
    [{ set: ['claim-token=forged'] }, 'bead: claim-token cannot be set'],
    [{ unset: ['title'] }, 'bead: title cannot be unset'],
    [{ unset: ['id'] }, 'bead: id cannot be unset'],
    [{ parent: 'a' }, 'bead: a cannot be its own parent'],
  ])('refuses %j with a validation error and changes nothing', (input, message) => {
    const draft = draftOf(bead({ id: 'a' }));
    const error = errorOf(() => updateBead(draft, 'a', { ...input, notes: 'would be lost' }));
    expect(error.exitCode).toBe(EXIT.validation);
    expect(error.message).toBe(message);
    expect(draft.changed).toBe(false);
    expect(draft.get('a')).not.toHaveProperty('notes');
  });

  it('a dependency cycle introduced with --set dependencies is refused', () => {
    const draft = draftOf(bead({ id: 'a', deps: ['b'] }), bead({ id: 'b' }));
    const error = errorOf(() => updateBead(draft, 'b', { set: ['dependencies=[{"issue_id":"b","depends_on_id":"a","type":"blocks"}]'] }));
    expect(error.exitCode).toBe(EXIT.validation);
    expect(error.message).toBe('bead: dependency cycle: b -> a -> b');
  });

  it('with a stale token is refused', () => {
    const draft = draftOf(bead({ id: 'a', status: 'in_progress', 'claim-token': 'current' }));
    expect(errorOf(() => updateBead(draft, 'a', { notes: 'x', token: 'old' })).exitCode).toBe(EXIT.staleToken);
    expect(updateBead(draft, 'a', { notes: 'x', token: 'current' }).notes).toBe('x');
  });

  it('unknown id is not found', () => {
    expect(errorOf(() => updateBead(draftOf(), 'zz', { notes: 'x' })).exitCode).toBe(EXIT.notFound);
  });
});
