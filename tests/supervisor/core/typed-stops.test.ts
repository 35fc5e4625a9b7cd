// Failure categories (SYSTEMIC_FAILURE) and the velocity verdict (VELOCITY_COLLAPSE), docs/contract/cli.md §6.7.
import { describe, expect, it } from 'vitest';
import { failureCategory, velocityVerdict } from '../../../src/supervisor/core/typed-stops.js';

describe('failureCategory', () => {
  const cases: Array<[string, string | undefined]> = [
    ["Error: Cannot find module 'left-pad'", 'import'],
    ['ModuleNotFoundError: No module named x', 'import'],
    ['SyntaxError: Unexpected token }', 'syntax'],
    ["src/a.ts(3,1): error TS2322: Type 'string' is not assignable", 'type error'],
    ['agent timed out', 'timeout'],
    ['EACCES: permission denied, open /etc/x', 'permission'],
    ['ENOENT: no such file or directory', 'not found'],
    ['3 tests failed', 'test failure'],
    ['ECONNREFUSED 127.0.0.1:5432', 'connection'],
    ['401 Unauthorized', 'auth'],
    ['this is important work', undefined],
    ['agent exited with code 1', undefined],
  ];
  for (const [detail, category] of cases) {
    it(`${JSON.stringify(detail)} → ${category ?? 'no category'}`, () => {
      expect(failureCategory(detail)).toBe(category);
    });
  }
});

describe('velocityVerdict', () => {
  const cases: Array<[number[], 'ok' | 'warning' | 'collapse']> = [
    [[10, 10], 'ok'],
    [[10, 10, 10], 'ok'],
    [[10, 12, 61], 'collapse'],
    [[10, 12, 50], 'warning'],
    [[2, 2, 59], 'warning'],
    [[20, 20, 31], 'ok'],
    [[10, 10, 21], 'ok'],
    [[100, 10, 12, 61], 'collapse'],
    [[1, 1, 1, 10, 12, 61], 'collapse'],
    [[10, 20, 61, 62], 'warning'],
    [[10, 40, 61, 62], 'ok'],
  ];
  for (const [durations, kind] of cases) {
    it(`[${durations.join(', ')}] s → ${kind}`, () => {
      expect(velocityVerdict(durations, 5, 60).kind).toBe(kind);
    });
  }

  it('describes the slowdown', () => {
    const verdict = velocityVerdict([10, 12, 61], 5, 60);
    expect(verdict).toEqual({ kind: 'collapse', detail: 'last cycle took 61s, 6.1× the 10s of two cycles before' });
  });
});
