import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { createBead } from '../../src/tracker/index.js';
import { draftOf, errorOf } from './builders.js';
import { bead } from '../helpers/bead.js';

const NOW = new Date('2025-06-01T12:00:00Z');

describe('createBead', () => {
  it('fills the DDx defaults and an id of <prefix>-<8 lowercase hex>', () => {
    const draft = draftOf();
    const created = createBead(draft, { title: 'Write tests' }, 'hx', NOW);
    expect(created.id).toMatch(/^hx-[0-9a-f]{8}$/);
    expect(created).toEqual({
      id: created.id,
      title: 'Write tests',
      status: 'open',
      priority: 2,
      issue_type: 'task',
      schema_version: 1,
      created_at: '2025-06-01T12:00:00.000Z',
      updated_at: '2025-06-01T12:00:00.000Z',
    });
    expect(Object.keys(created)).toEqual(['id', 'title', 'status', 'priority', 'issue_type', 'schema_version', 'created_at', 'updated_at']);
  });

  it('records labels, parent, description, acceptance, spec-id and blocks dependencies', () => {
    const draft = draftOf(bead({ id: 'p' }), bead({ id: 'd' }));
    const created = createBead(
      draft,
      { title: 'x', type: 'bug', priority: '0', labels: ['a', 'b'], parent: 'p', description: 'desc', acceptance: 'acc', deps: ['d', 'd'], specId: 'FEAT-1' },
      'hx',
      NOW,
    );
    expect(created).toMatchObject({ issue_type: 'bug', priority: 0, labels: ['a', 'b'], parent: 'p', description: 'desc', acceptance: 'acc', 'spec-id': 'FEAT-1' });
    expect(created.dependencies).toEqual([{ issue_id: created.id, depends_on_id: 'd', type: 'blocks', created_at: '2025-06-01T12:00:00.000Z' }]);
  });

  it('--set k=v stores other keys, parsing booleans and JSON', () => {
    const created = createBead(draftOf(), { title: 'x', set: ['execution-eligible=false', 'events=[]', 'verify=npm test', 'meta={"a":1}'] }, 'hx');
    expect(created['execution-eligible']).toBe(false);
    expect(created.events).toEqual([]);
    expect(created.verify).toBe('npm test');
    expect(created.meta).toEqual({ a: 1 });
  });

  it.each([
    [{ title: '   ' }, 'bead: title must not be blank'],
    [{ title: 'x', priority: '5' }, 'bead: invalid priority "5": must be an integer 0-4'],
    [{ title: 'x', priority: 'high' }, 'bead: invalid priority "high": must be an integer 0-4'],
    [{ title: 'x', priority: '-1' }, 'bead: invalid priority "-1": must be an integer 0-4'],
    [{ title: 'x', type: 'story' }, 'bead: invalid type "story": must be one of task, epic, bug, chore'],
    [{ title: 'x', set: ['novalue'] }, 'bead: expected key=value, got "novalue"'],
    [{ title: 'x', set: ['id=forced'] }, 'bead: the id cannot be set'],
  ])('rejects %j with a validation error', (input, message) => {
    const draft = draftOf();
    const error = errorOf(() => createBead(draft, input, 'hx'));
    expect(error.exitCode).toBe(EXIT.validation);
    expect(error.message).toBe(message);
    expect(draft.changed).toBe(false);
  });

  it('rejects an unknown parent or dependency as not found', () => {
    expect(errorOf(() => createBead(draftOf(), { title: 'x', parent: 'ghost' }, 'hx')).message).toBe('bead: not found: ghost');
    expect(errorOf(() => createBead(draftOf(), { title: 'x', deps: ['ghost'] }, 'hx')).exitCode).toBe(EXIT.notFound);
  });

  it('never reuses a taken id', () => {
    const draft = draftOf();
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) seen.add(createBead(draft, { title: `b${i}` }, 'hx').id);
    expect(seen.size).toBe(200);
  });
});
