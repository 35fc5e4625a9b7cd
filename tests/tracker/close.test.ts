import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { appendNote, closeBead, reopenBead } from '../../src/tracker/index.js';
import { draftOf, errorOf } from './builders.js';
import { bead } from '../helpers/bead.js';

const NOW = new Date('2025-06-01T12:00:00Z');


describe('closeBead', () => {
  it('closes, stamps closed_at and records session and commit, dropping the claim', () => {
    const draft = draftOf(bead({ id: 'a', status: 'in_progress', owner: 'helix', 'claim-token': 't', 'claimed-pid': '1' }));
    const closed = closeBead(draft, 'a', { session: 's-1', commit: 'abc123', now: NOW });
    expect(closed.status).toBe('closed');
    expect(closed.closed_at).toBe('2025-06-01T12:00:00.000Z');
    expect(closed.session_id).toBe('s-1');
    expect(closed.closing_commit_sha).toBe('abc123');
    expect(closed).not.toHaveProperty('claim-token');
    expect(closed).not.toHaveProperty('claimed-pid');
  });

  it('refuses while a blocks dependency is open, naming it, with its own exit code', () => {
    const draft = draftOf(bead({ id: 'dep' }), bead({ id: 'done', status: 'closed' }), bead({ id: 'a', deps: ['done', 'dep'] }));
    const error = errorOf(() => closeBead(draft, 'a'));
    expect(error.exitCode).toBe(EXIT.openDependencies);
    expect(error.message).toBe('bead: cannot close a: blocked by open dependencies: dep (use --force to override)');
    expect(draft.changed).toBe(false);
  });

  it('treats an unknown dependency as open', () => {
    const error = errorOf(() => closeBead(draftOf(bead({ id: 'a', deps: ['ghost'] })), 'a'));
    expect(error.exitCode).toBe(EXIT.openDependencies);
  });

  it('--force closes despite open dependencies', () => {
    const draft = draftOf(bead({ id: 'dep' }), bead({ id: 'a', deps: ['dep'] }));
    expect(closeBead(draft, 'a', { force: true }).status).toBe('closed');
  });

  it('a related dependency holds the close too (DDx rejectIfUnclosedBlockingDeps checks every type)', () => {
    const draft = draftOf(bead({ id: 'x' }), bead({ id: 'a', dependencies: [{ issue_id: 'a', depends_on_id: 'x', type: 'related' }] }));
    expect(errorOf(() => closeBead(draft, 'a')).exitCode).toBe(EXIT.openDependencies);
    expect(draft.changed).toBe(false);
  });

  it('with a stale token refuses before anything else and changes nothing', () => {
    const draft = draftOf(bead({ id: 'a', status: 'in_progress', 'claim-token': 'new' }));
    const error = errorOf(() => closeBead(draft, 'a', { token: 'old' }));
    expect(error.exitCode).toBe(EXIT.staleToken);
    expect(draft.changed).toBe(false);
    expect(closeBead(draft, 'a', { token: 'new' }).status).toBe('closed');
  });

  it('with a token refuses a bead that carries no token at all', () => {
    const error = errorOf(() => closeBead(draftOf(bead({ id: 'a' })), 'a', { token: 'mine' }));
    expect(error.exitCode).toBe(EXIT.staleToken);
  });
});

describe('reopenBead', () => {
  it('reopens a closed bead, clears closed_at and notes the reason once', () => {
    const draft = draftOf(bead({ id: 'a', status: 'closed', closed_at: '2025-01-02T00:00:00Z', notes: 'first' }));
    const reopened = reopenBead(draft, 'a', { reason: 'verification failed', now: NOW });
    expect(reopened.status).toBe('open');
    expect(reopened).not.toHaveProperty('closed_at');
    expect(reopened.notes).toBe('first\nREOPENED [2025-06-01T12:00:00.000Z]: verification failed');
  });

  it('appendNote does not repeat a line that is already there', () => {
    expect(appendNote('x\ny', 'y')).toBe('x\ny');
    expect(appendNote(undefined, 'y')).toBe('y');
  });
});
