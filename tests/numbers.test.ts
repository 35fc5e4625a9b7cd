// The one bounded number parser behind every numeric flag and environment variable.
import { describe, expect, it } from 'vitest';
import { EXIT, HelixError } from '../src/errors.js';
import { MAX_TIMER_SECONDS, numberFromEnv, parseNumber } from '../src/numbers.js';

const whole = { min: 0, max: 100 };
const fraction = { min: 0, max: 1, fraction: true };

const refusal = (fn: () => unknown): HelixError => {
  try {
    fn();
  } catch (error) {
    return error as HelixError;
  }
  throw new Error('expected a refusal');
};

describe('parseNumber', () => {
  it.each([
    ['0', whole, 0],
    ['100', whole, 100],
    [' 42 ', whole, 42],
    ['0.25', fraction, 0.25],
    ['.5', fraction, 0.5],
    ['1', fraction, 1],
    ['-0', whole, 0],
  ])('reads %j', (text, bounds, value) => {
    expect(parseNumber('--n', text, bounds)).toBe(value);
  });

  it.each([
    ['101', whole],
    ['-1', whole],
    ['99999999999999999999', whole],
    ['9223372036854775808', whole],
    ['1.5', whole],
    ['1e2', whole],
    ['0x10', whole],
    ['+5', whole],
    ['Infinity', fraction],
    ['NaN', fraction],
    ['', whole],
    ['   ', whole],
    ['1.01', fraction],
    ['5 apples', whole],
  ])('refuses %j with exit 7 and one line naming the flag and the range', (text, bounds) => {
    const error = refusal(() => parseNumber('--n', text, bounds));
    expect(error).toBeInstanceOf(HelixError);
    expect(error.exitCode).toBe(EXIT.validation);
    expect(error.exitCode).toBe(7);
    expect(error.message).toMatch(/^helix: --n must be a (whole )?number from 0 to (100|1), got ".*"$/);
    expect(error.message).not.toContain('\n');
  });

  it('quotes what it got in a short, printable form', () => {
    expect(refusal(() => parseNumber('--n', '\u001b]52;c;aGk=\u0007', whole)).message).toBe('helix: --n must be a whole number from 0 to 100, got "\\u001b]52;c;aGk=\\u0007"');
    expect(refusal(() => parseNumber('--n', '9'.repeat(400), whole)).message).toBe(`helix: --n must be a whole number from 0 to 100, got "${'9'.repeat(40)}…"`);
  });

  it('speaks in the command\'s voice', () => {
    expect(refusal(() => parseNumber('--pid', 'x', whole, 'bead:')).message).toBe('bead: --pid must be a whole number from 0 to 100, got "x"');
  });

  it('the timer limit is what Node can hold: 2^31-1 ms, in whole seconds', () => {
    expect(MAX_TIMER_SECONDS).toBe(2147483);
  });
});

describe('numberFromEnv', () => {
  it('an unset or empty variable is the default; a set one is parsed and bounded', () => {
    expect(numberFromEnv({}, 'X', whole, 7)).toBe(7);
    expect(numberFromEnv({ X: '' }, 'X', whole, 7)).toBe(7);
    expect(numberFromEnv({ X: '3' }, 'X', whole, 7)).toBe(3);
    expect(refusal(() => numberFromEnv({ X: '-3' }, 'X', whole, 7)).message).toBe('helix: X must be a whole number from 0 to 100, got "-3"');
  });
});
