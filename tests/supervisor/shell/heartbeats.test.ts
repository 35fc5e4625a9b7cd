// The heartbeats of held claims (shell/heartbeats.ts): every HEARTBEAT_INTERVAL_MS each claim this
// run holds gets fresh heartbeat keys, under the lock; a claim another worker took meanwhile is
// said to be lost and left alone. The interval is driven by vitest's fake timers (no waiting), the
// tracker is a real file.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { claimBead, unclaimBead } from '../../../src/tracker/index.js';
import { HEARTBEAT_INTERVAL_MS } from '../../../src/tracker/liveness.js';
import { startHeartbeats } from '../../../src/supervisor/shell/heartbeats.js';
import { bead } from '../../helpers/bead.js';
import { attemptWorld } from './attempt-world.js';

const A = 'hx-0000000a';
const B = 'hx-0000000b';

describe('heartbeats', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] }));
  afterEach(() => vi.useRealTimers());

  it('each held claim gets fresh heartbeat keys at every interval, and none after stop', () => {
    const w = attemptWorld([bead({ id: A }), bead({ id: B })], 'direct', () => ({}));
    w.ports.claims.claimSelected(bead({ id: A }));
    let clock = new Date('2026-11-28T12:00:00Z');
    const stop = startHeartbeats({ store: w.store, now: () => clock, say: (l) => void w.lines.push(l), claims: w.ports.claims });
    clock = new Date('2026-11-28T12:00:30Z');
    vi.advanceTimersByTime(HEARTBEAT_INTERVAL_MS);
    expect(w.store.read().byId.get(A)).toMatchObject({ 'execute-loop-heartbeat-at': '2026-11-28T12:00:30.000Z', 'work-heartbeat-at': '2026-11-28T12:00:30.000Z' });
    expect(w.store.read().byId.get(B)?.['work-heartbeat-at']).toBeUndefined();
    stop();
    clock = new Date('2026-11-28T12:01:00Z');
    vi.advanceTimersByTime(HEARTBEAT_INTERVAL_MS);
    expect(w.store.read().byId.get(A)?.['work-heartbeat-at']).toBe('2026-11-28T12:00:30.000Z');
    expect(w.lines).toEqual([]);
  });

  it('a claim another worker took meanwhile is said lost and its keys are not touched', () => {
    const w = attemptWorld([bead({ id: A })], 'direct', () => ({}));
    w.ports.claims.claimSelected(bead({ id: A }));
    w.store.mutate((d) => {
      unclaimBead(d, A);
      claimBead(d, A, { pid: 4242 });
    });
    const before = w.store.read().byId.get(A);
    const stop = startHeartbeats({ store: w.store, now: () => new Date('2026-11-28T12:00:30Z'), say: (l) => void w.lines.push(l), claims: w.ports.claims });
    vi.advanceTimersByTime(HEARTBEAT_INTERVAL_MS);
    stop();
    expect(w.store.read().byId.get(A)).toEqual(before);
    expect(w.lines.map((l) => l.text)).toEqual([`helix: claim on ${A} is no longer ours; heartbeat stopped`]);
  });

  it('without a held claim no timer is started', () => {
    const w = attemptWorld([bead({ id: A })], 'direct', () => ({}));
    startHeartbeats({ store: w.store, now: () => new Date(), say: () => undefined, claims: w.ports.claims })();
    expect(vi.getTimerCount()).toBe(0);
  });
});
