import { describe, expect, it } from 'vitest';
import { confidenceTag, effectiveness, recency, score } from '../../src/memory/scoring.js';

describe('scoring arithmetic', () => {
  it('effectiveness is helped/(helped+failed), 0.5 with no feedback', () => {
    expect(effectiveness({ helped: 0, failed: 0 })).toBe(0.5);
    expect(effectiveness({ helped: 3, failed: 1 })).toBe(0.75);
    expect(effectiveness({ helped: 0.5, failed: 1 })).toBeCloseTo(1 / 3);
  });

  it('recency halves every 7 whole days since last use, else since creation', () => {
    const now = new Date('2026-03-15T12:00:00Z');
    expect(recency(null, '2026-03-15T01:00:00Z', now)).toBe(1);
    expect(recency(null, '2026-03-08T12:00:00Z', now)).toBe(0.5);
    expect(recency('2026-03-01T12:00:00Z', '2020-01-01T00:00:00Z', now)).toBe(0.25);
    // 6.9 days is 6 whole days
    expect(recency(null, new Date(now.getTime() - 6.9 * 86_400_000).toISOString(), now)).toBeCloseTo(2 ** (-6 / 7));
  });

  it('relevance 1.0, no feedback, used today scores 0.85', () => {
    expect(score(1, effectiveness({ helped: 0, failed: 0 }), 1)).toBeCloseTo(0.85);
  });

  it('confidence tags round to the nearest percent, [unproven] without feedback', () => {
    expect(confidenceTag(2, 1)).toBe('[67%]');
    expect(confidenceTag(0, 0)).toBe('[unproven]');
    expect(confidenceTag(0, 2)).toBe('[0%]');
  });
});
