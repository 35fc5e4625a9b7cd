// The wait after a usage or rate limit, as a pure decision (src/supervisor/core/limit-wait.ts).
import { describe, expect, it } from 'vitest';
import type { UsageLimit } from '../../../src/agents/index.js';
import { DEFAULT_MAX_WAIT_MS, type LimitStreak, NO_STREAK, RESET_MARGIN_MS, afterWait, limitWait, parseMaxWait } from '../../../src/supervisor/core/limit-wait.js';

const now = Date.parse('2026-11-26T20:00:00Z');
const H = 3_600_000;
const M = 60_000;
const limit = (fields: Partial<UsageLimit> = {}): UsageLimit => ({ agent: 'claude', kind: 'usage', detail: "You've hit your 5-hour limit", ...fields });

describe('limitWait', () => {
  it('a named reset: wait until it, plus a minute', () => {
    expect(limitWait(limit({ resetsAt: now + 2 * H }), NO_STREAK, now, DEFAULT_MAX_WAIT_MS)).toEqual({ action: 'wait', ms: 2 * H + RESET_MARGIN_MS, resumeAt: now + 2 * H + M, basis: 'reset' });
  });

  it('no reset, or one already past: 1, 2, 4, 8, 16 minutes, then every 30 minutes', () => {
    let streak: LimitStreak = NO_STREAK;
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) {
      const decision = limitWait(limit({ kind: 'rate', ...(i === 3 ? { resetsAt: now - M } : {}) }), streak, now, DEFAULT_MAX_WAIT_MS);
      if (decision.action !== 'wait') throw new Error('expected a wait');
      expect(decision.basis).toBe('backoff');
      waits.push(decision.ms / M);
      streak = afterWait(streak, decision.ms);
    }
    expect(waits).toEqual([1, 2, 4, 8, 16, 30, 30, 30]);
  });

  it('stops at once when a named reset is beyond --max-wait (a weekly limit), saying when it resets', () => {
    const decision = limitWait(limit({ resetsAt: Date.parse('2026-11-30T09:00:00Z') }), NO_STREAK, now, DEFAULT_MAX_WAIT_MS);
    expect(decision).toEqual({ action: 'stop', line: "claude usage limit: it resets at 2026-11-30T09:00:00.000Z, beyond --max-wait 6h (You've hit your 5-hour limit)" });
  });

  it('stops when the streak would pass --max-wait; a wait that fits exactly is taken', () => {
    const codex = limit({ agent: 'codex', kind: 'rate', detail: 'exceeded retry limit, last status: 429 Too Many Requests' });
    expect(limitWait(codex, { waits: 6, waitedMs: 5 * H + 31 * M }, now, DEFAULT_MAX_WAIT_MS)).toEqual({
      action: 'stop',
      line: 'codex rate limit: still limited after waiting 5h31m; the next wait would be 30m, 6h1m in all, beyond --max-wait 6h (exceeded retry limit, last status: 429 Too Many Requests)',
    });
    expect(limitWait(codex, { waits: 6, waitedMs: 5 * H + 30 * M }, now, DEFAULT_MAX_WAIT_MS)).toMatchObject({ action: 'wait', ms: 30 * M });
  });

  it('a first limit whose wait is already past --max-wait names the wait it needed (was: "still limited after waiting 0ms")', () => {
    expect(limitWait(limit({ agent: 'claude', kind: 'rate', detail: 'Request rejected (429)' }), NO_STREAK, now, 30_000)).toEqual({
      action: 'stop',
      line: 'claude rate limit: the next wait would be 1m, beyond --max-wait 30s (Request rejected (429))',
    });
  });

  it('--max-wait 0: never wait', () => {
    expect(limitWait(limit({ resetsAt: now + M }), NO_STREAK, now, 0).action).toBe('stop');
    expect(limitWait(limit(), NO_STREAK, now, 0).action).toBe('stop');
  });
});

describe('parseMaxWait', () => {
  it('default 6h; Go syntax; 0 allowed', () => {
    expect(parseMaxWait(undefined)).toBe(6 * H);
    expect(parseMaxWait('90m')).toBe(90 * M);
    expect(parseMaxWait('0')).toBe(0);
    expect(() => parseMaxWait('6 hours')).toThrow('helix: --max-wait must be a duration such as 90s, 45m or 1h30m (time: unknown unit " hours" in duration "6 hours")');
  });
});
