import { describe, expect, it } from 'vitest';
import { fingerprintChanges, fingerprintKey, fingerprintOf } from '../../src/tracker/index.js';
import { bead } from '../helpers/bead.js';

const NOW = new Date('2025-06-01T12:00:00Z');

describe('fingerprintOf', () => {
  it('takes spec-id, parent, superseded-by, replaces, sorted dependency ids and eligibility', () => {
    const b = bead({ id: 'a', 'spec-id': 'S-1', parent: 'p', replaces: 'old', deps: ['z', 'y'] });
    expect(fingerprintOf(b, NOW)).toEqual({
      'spec-id': 'S-1',
      parent: 'p',
      'superseded-by': '',
      replaces: 'old',
      dependencies: ['y', 'z'],
      'execution-eligible': true,
    });
  });

  it('ignores fields outside the fingerprint (title, notes, status, timestamps)', () => {
    const a = bead({ id: 'a', 'spec-id': 'S' });
    const b = { ...a, title: 'changed', notes: 'n', status: 'in_progress', updated_at: '2030-01-01T00:00:00Z' };
    expect(fingerprintKey(fingerprintOf(b, NOW))).toBe(fingerprintKey(fingerprintOf(a, NOW)));
  });

  it.each([
    ['spec-id', { 'spec-id': 'S-2' }],
    ['parent', { parent: 'q' }],
    ['superseded-by', { 'superseded-by': 'x' }],
    ['replaces', { replaces: 'r' }],
    ['dependencies', { dependencies: [{ issue_id: 'a', depends_on_id: 'n', type: 'blocks' }] }],
    ['execution-eligible', { 'execution-eligible': false }],
  ])('a change of %s changes the fingerprint and is named', (field, change) => {
    const before = fingerprintOf(bead({ id: 'a', 'spec-id': 'S-1' }), NOW);
    const after = fingerprintOf(bead({ id: 'a', 'spec-id': 'S-1', ...change }), NOW);
    expect(fingerprintKey(after)).not.toBe(fingerprintKey(before));
    expect(fingerprintChanges(before, after)).toContain(field);
  });
});
