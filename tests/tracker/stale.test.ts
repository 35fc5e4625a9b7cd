import { describe, expect, it } from 'vitest';
import { orphanThresholdSec, staleClaimOf, staleClaims } from '../../src/tracker/index.js';
import { bead } from '../helpers/bead.js';

const NOW = new Date('2025-06-01T12:00:00Z');
const facts = (overrides = {}) => ({ now: NOW, thresholdSec: 7200, isAlive: () => false, machine: 'here', ...overrides });
const claim = (overrides = {}) =>
  bead({ id: 'a', status: 'in_progress', owner: 'helix', 'claimed-at': '2025-06-01T09:00:00Z', 'claimed-pid': '999', 'claimed-machine': 'here', ...overrides });

describe('the stale-claim rule', () => {
  it('a helix claim whose pid is dead and which is older than the threshold is stale', () => {
    expect(staleClaimOf(claim(), facts())).toEqual({ id: 'a', ageSec: 10800, pid: 999, why: 'dead' });
  });

  it('reads claimed-pid given as a number', () => {
    expect(staleClaimOf(claim({ 'claimed-pid': 999 }), facts())?.pid).toBe(999);
  });

  it('a live pid is never stale, however old', () => {
    expect(staleClaimOf(claim({ 'claimed-at': '2020-01-01T00:00:00Z' }), facts({ isAlive: (pid: number) => pid === 999 }))).toBeUndefined();
  });

  it('a claim younger than the threshold is not stale', () => {
    expect(staleClaimOf(claim({ 'claimed-at': '2025-06-01T10:00:01Z' }), facts())).toBeUndefined();
    expect(staleClaimOf(claim({ 'claimed-at': '2025-06-01T10:00:00Z' }), facts())?.ageSec).toBe(7200);
  });

  it('a claim recorded on another machine is never stale here', () => {
    expect(staleClaimOf(claim({ 'claimed-machine': 'elsewhere' }), facts())).toBeUndefined();
  });

  it('falls back to updated_at when claimed-at is missing', () => {
    expect(staleClaimOf(claim({ 'claimed-at': undefined, updated_at: '2025-06-01T11:00:00Z' }), facts())).toBeUndefined();
    expect(staleClaimOf(claim({ 'claimed-at': undefined, updated_at: '2025-06-01T08:00:00Z' }), facts())?.ageSec).toBe(14400);
  });

  it('only in_progress beads claimed by helix (owner or label) count', () => {
    expect(staleClaimOf(claim({ status: 'open' }), facts())).toBeUndefined();
    expect(staleClaimOf(claim({ owner: 'alice' }), facts())).toBeUndefined();
    expect(staleClaimOf(claim({ owner: 'alice', labels: ['helix'] }), facts())).toBeDefined();
  });

  it('uses the real pid check by default: this process is alive', () => {
    const mine = claim({ 'claimed-pid': String(process.pid), 'claimed-machine': undefined });
    expect(staleClaims([mine], { now: NOW, thresholdSec: 0 })).toEqual([]);
  });

  it('HELIX_ORPHAN_THRESHOLD overrides the 7200 s default', () => {
    expect(orphanThresholdSec({})).toBe(7200);
    expect(orphanThresholdSec({ HELIX_ORPHAN_THRESHOLD: '60' })).toBe(60);
    expect(orphanThresholdSec({ HELIX_ORPHAN_THRESHOLD: '' })).toBe(7200);
    for (const bad of ['soon', '-1', '1.5', '99999999999999999999']) {
      expect(() => orphanThresholdSec({ HELIX_ORPHAN_THRESHOLD: bad }), bad).toThrow(expect.objectContaining({ kind: 'validation' }));
    }
  });
});
