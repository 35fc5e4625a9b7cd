// The supervisor's numbers (docs/contract/design.md §1, docs/contract/cli.md §3, §6): backoff and the settings read from the environment.
import { describe, expect, it } from 'vitest';
import { MAX_ATTEMPTS, backoffOverride, backoffSeconds, defaultSettings } from '../../../src/supervisor/core/policy.js';

describe('backoff', () => {
  it('is 5·2^(n-1) s after the n-th failure, capped at 40: 5, 10, 20, 40 — 75 s over the four attempts', () => {
    const delays = Array.from({ length: MAX_ATTEMPTS }, (_, i) => backoffSeconds(i + 1));
    expect(MAX_ATTEMPTS).toBe(4);
    expect(delays).toEqual([5, 10, 20, 40]);
    expect(delays.reduce((a, b) => a + b, 0)).toBe(75);
    expect(backoffSeconds(5)).toBe(40);
    expect(backoffSeconds(12)).toBe(40);
  });

  it('HELIX_BACKOFF_SLEEP overrides every delay, including 0', () => {
    expect([1, 2, 3, 4].map((n) => backoffSeconds(n, 0))).toEqual([0, 0, 0, 0]);
    expect(backoffSeconds(3, 2)).toBe(2);
  });

  it('reads HELIX_BACKOFF_SLEEP; empty is unset, nonsense is refused (exit 7)', () => {
    expect(backoffOverride({ HELIX_BACKOFF_SLEEP: '0' })).toBe(0);
    expect(backoffOverride({ HELIX_BACKOFF_SLEEP: '1.5' })).toBe(1.5);
    expect(backoffOverride({})).toBeUndefined();
    expect(backoffOverride({ HELIX_BACKOFF_SLEEP: '' })).toBeUndefined();
    for (const bad of ['soon', '-3', '2147484', 'Infinity']) {
      expect(() => backoffOverride({ HELIX_BACKOFF_SLEEP: bad }), bad).toThrow(expect.objectContaining({ kind: 'validation' }));
    }
  });
});

describe('defaultSettings', () => {
  it('has the contract defaults', () => {
    expect(defaultSettings({})).toEqual({
      maxCycles: 0,
      reviewEvery: 15,
      autoAlign: true,
      autoReview: true,
      reviewThreshold: 100,
      backoffOverride: undefined,
      systemicThreshold: 3,
      velocityFactor: 5,
      velocitySeconds: 60,
      maxWaitMs: 21_600_000,
      budget: {},
    });
  });

  it('takes its overrides from the environment', () => {
    const s = defaultSettings({
      HELIX_AUTO_ALIGN: '0',
      HELIX_BACKOFF_SLEEP: '0',
      HELIX_SYSTEMIC_THRESHOLD: '2',
      HELIX_VELOCITY_STOP_FACTOR: '3',
      HELIX_VELOCITY_STOP_SECONDS: '10',
    });
    expect(s).toMatchObject({ autoAlign: false, backoffOverride: 0, systemicThreshold: 2, velocityFactor: 3, velocitySeconds: 10 });
  });
});
