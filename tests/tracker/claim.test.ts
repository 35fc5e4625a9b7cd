import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { CLAIM_KEYS, claimBead, unclaimBead } from '../../src/tracker/index.js';
import { draftOf, errorOf } from './builders.js';
import { bead } from '../helpers/bead.js';

const NOW = new Date('2025-06-01T12:00:00.250Z');


describe('claimBead', () => {
  it('moves an open bead to in_progress with owner, claimed-at (UTC Z), pid, machine and a token', () => {
    const draft = draftOf(bead({ id: 'a' }));
    const claimed = claimBead(draft, 'a', { pid: 4242, now: NOW, machine: 'box-1' });
    expect(claimed.status).toBe('in_progress');
    expect(claimed.owner).toBe('helix');
    expect(claimed['claimed-at']).toBe('2025-06-01T12:00:00.250Z');
    expect(claimed['claimed-pid']).toBe('4242');
    expect(claimed['claimed-machine']).toBe('box-1');
    expect(claimed['claim-token']).toMatch(/^[0-9a-f]{24}$/);
    expect(claimed.updated_at).toBe('2025-06-01T12:00:00.250Z');
    expect(draft.changed).toBe(true);
  });

  it('records the calling process pid when no pid is given, and a chosen assignee', () => {
    const draft = draftOf(bead({ id: 'a' }));
    const claimed = claimBead(draft, 'a', { assignee: 'worker-7' });
    expect(claimed['claimed-pid']).toBe(String(process.pid));
    expect(claimed.owner).toBe('worker-7');
  });

  it('mirrors owner into an existing legacy assignee key', () => {
    const draft = draftOf(bead({ id: 'a', assignee: 'someone' }));
    expect(claimBead(draft, 'a').assignee).toBe('helix');
  });

  it('writes a fresh token on every claim', () => {
    const d1 = draftOf(bead({ id: 'a' }));
    const d2 = draftOf(bead({ id: 'a' }));
    expect(claimBead(d1, 'a')['claim-token']).not.toBe(claimBead(d2, 'a')['claim-token']);
  });

  it.each(['in_progress', 'closed'])('refuses a bead in status %s with the conflict code, naming the holder', (status) => {
    const draft = draftOf(bead({ id: 'a', status, owner: 'helix', 'claimed-pid': '77' }));
    const error = errorOf(() => claimBead(draft, 'a'));
    expect(error.exitCode).toBe(EXIT.conflict);
    expect(error.message).toBe(`bead: cannot claim a from status ${status} (held by helix, pid 77)`);
    expect(draft.changed).toBe(false);
  });

  it('refuses an unknown id with not found', () => {
    const error = errorOf(() => claimBead(draftOf(bead({ id: 'a' })), 'nope'));
    expect(error.exitCode).toBe(EXIT.notFound);
    expect(error.message).toBe('bead: not found: nope');
  });
});

describe('unclaimBead', () => {
  const claimed = () =>
    bead({ id: 'a', status: 'in_progress', owner: 'helix', 'claimed-at': '2025-01-01T00:00:00Z', 'claimed-pid': '5', 'claimed-machine': 'm', 'claim-token': 'tok' });

  it('removes the claim keys and owner and reopens an in_progress bead', () => {
    const draft = draftOf(claimed());
    const released = unclaimBead(draft, 'a', { now: NOW });
    expect(released.status).toBe('open');
    for (const key of [...CLAIM_KEYS, 'owner']) expect(released).not.toHaveProperty(key);
  });

  it('never reopens a closed bead', () => {
    const draft = draftOf({ ...claimed(), status: 'closed' });
    expect(unclaimBead(draft, 'a').status).toBe('closed');
  });

  it('accepts the matching token and refuses a stale one without changing anything', () => {
    expect(unclaimBead(draftOf(claimed()), 'a', { token: 'tok' }).status).toBe('open');
    const draft = draftOf(claimed());
    const error = errorOf(() => unclaimBead(draft, 'a', { token: 'old' }));
    expect(error.exitCode).toBe(EXIT.staleToken);
    expect(error.message).toContain('stale claim token for a');
    expect(draft.changed).toBe(false);
    expect(draft.get('a')?.status).toBe('in_progress');
  });
});
