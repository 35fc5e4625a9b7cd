// Go-style durations read as Go reads them (src/durations.ts). The table is Go's own answer:
// tests/fixtures/go-golden.json, printed by `cd tests/fixtures/go-golden && go run . > ../go-golden.json`
// (go1.26.8: time.ParseDuration for each input, its nanoseconds or its error message).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDuration, parseDurationFlag, parseGoDuration } from '../src/durations.js';
import { HelixError } from '../src/errors.js';

const golden = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'go-golden.json'), 'utf8')) as {
  parseDuration: Array<{ in: string; ns?: string; err?: string }>;
};

describe('parseGoDuration: time.ParseDuration, case by case', () => {
  it.each(golden.parseDuration.map((c) => [c.in, c] as const))('%j', (input, c) => {
    const parsed = parseGoDuration(input);
    if (c.err !== undefined) expect(parsed).toEqual({ ok: false, error: c.err });
    else expect(parsed).toEqual({ ok: true, ns: BigInt(c.ns ?? 'missing') });
  });
});

describe('parseDurationFlag', () => {
  it('milliseconds of a valid, non-negative duration', () => {
    expect(parseDurationFlag('--max-duration', '1h30m')).toBe(5_400_000);
    expect(parseDurationFlag('--max-wait', ' 250ms ')).toBe(250);
    expect(parseDurationFlag('--max-wait', '0')).toBe(0);
  });

  it.each([
    ['1d', 'helix: --max-duration must be a duration such as 90s, 45m or 1h30m (time: unknown unit "d" in duration "1d")'],
    ['90', 'helix: --max-duration must be a duration such as 90s, 45m or 1h30m (time: missing unit in duration "90")'],
    ['-5m', 'helix: --max-duration must not be negative, got "-5m"'],
  ])('%s: one line, exit 7', (text, message) => {
    let error: unknown;
    try {
      parseDurationFlag('--max-duration', text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(HelixError);
    expect((error as HelixError).exitCode).toBe(7);
    expect((error as HelixError).message).toBe(message);
  });
});

describe('formatDuration', () => {
  it.each([
    [250, '250ms'],
    [1000, '1s'],
    [90_000, '1m30s'],
    [3_600_000, '1h'],
    [5_400_000, '1h30m'],
    [6 * 3_600_000 + 5000, '6h5s'],
  ])('%d ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
