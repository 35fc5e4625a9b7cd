// The claims one run holds (shell/claims.ts) through their ports: taken after a re-read, released
// with the run's own token only, reopened when the agent closed a bead whose verification never ran.
import { describe, expect, it } from 'vitest';
import { claimBead, unclaimBead } from '../../../src/tracker/index.js';
import { bead } from '../../helpers/bead.js';
import { attemptWorld } from './attempt-world.js';

const A = 'hx-0000000a';

describe('the claims a run holds', () => {
  it('a bead no longer ready at the re-read is passed over, not claimed', () => {
    const w = attemptWorld([bead({ id: A, title: 'a' })], 'direct', () => ({}));
    w.store.mutate((d) => claimBead(d, A, { pid: 4242 }));
    expect(w.ports.claims.claimSelected(bead({ id: A, title: 'a' }))).toEqual({ passedOver: 'no longer open and ready' });
  });

  it('release leaves a claim another worker took meanwhile alone', () => {
    const w = attemptWorld([bead({ id: A, title: 'a' })], 'direct', () => ({}));
    expect('bead' in w.ports.claims.claimSelected(bead({ id: A, title: 'a' }))).toBe(true);
    w.store.mutate((d) => {
      unclaimBead(d, A);
      claimBead(d, A, { pid: 4242 });
    });
    expect(w.ports.claims.release(A)).toBe(false);
    expect(w.store.read().byId.get(A)).toMatchObject({ status: 'in_progress', 'claimed-pid': '4242' });
  });

  it('releaseAll reopens a held bead the agent closed: completed means closed and verified', () => {
    const w = attemptWorld([bead({ id: A, title: 'a' })], 'direct', () => ({}));
    w.ports.claims.claimSelected(bead({ id: A, title: 'a' }));
    w.store.mutate((d) => d.change(A, (b) => { b.status = 'closed'; }));
    expect(w.ports.claims.releaseAll()).toEqual([A]);
    expect(w.store.read().byId.get(A)).toMatchObject({ status: 'open' });
    expect(String(w.store.read().byId.get(A)?.notes)).toContain('interrupted before verification finished');
  });

  it('a release with a note records why the attempt failed, for the next prompt', () => {
    const w = attemptWorld([bead({ id: A, title: 'a' })], 'direct', () => ({}));
    w.ports.claims.claimSelected(bead({ id: A, title: 'a' }));
    w.ports.claims.apply({ op: 'release', id: A, note: 'verification failed: npm test exited 1' });
    expect(String(w.store.read().byId.get(A)?.notes)).toMatch(/ATTEMPT FAILED \[[^\]]+\]: verification failed: npm test exited 1/);
    expect(w.store.read().byId.get(A)?.owner).toBeUndefined();
  });
});
