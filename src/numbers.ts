// One parser for every number a person hands helix, from a flag or an environment variable:
// plain decimal digits — a fraction or a sign only where the value may have one; no exponents, hex,
// `Infinity` or blanks — within bounds its consumer can honour. Anything else is one clear line and
// exit 7 (validation), thrown before the command has done anything.
import { HelixError } from './errors.js';

export interface NumberBounds {
  min: number;
  /** Inclusive; Infinity for a value the caller caps itself (HELIX_AGENT_TIMEOUT). */
  max: number;
  /** A fraction is allowed (thresholds, factors, sleeps). Default: whole numbers only. */
  fraction?: boolean;
}

/** The longest timer Node can set is 2^31-1 ms; a longer one fires at once. In seconds: 24.8 days. */
export const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

// A minus sign is read so that `-5` is told it is out of range rather than unreadable.
const WHOLE = /^-?\d+$/;
const DECIMAL = /^-?(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * The value of `text`, or HelixError('validation') naming `name` (a flag or variable) and the
 * accepted range, after `prefix` (`helix:`, `helix memory:`, `bead:` — the command's own voice).
 */
export function parseNumber(name: string, text: string, bounds: NumberBounds, prefix = 'helix:'): number {
  const trimmed = text.trim();
  const value = (bounds.fraction ? DECIMAL : WHOLE).test(trimmed) ? Number(trimmed) : Number.NaN;
  if (Number.isNaN(value) || value < bounds.min || value > bounds.max) throw new HelixError('validation', `${prefix} ${rangeMessage(name, text, bounds)}`);
  return value === 0 ? 0 : value; // -0 reads as 0
}

/** Like parseNumber, for a variable that may be unset or empty: then `fallback`. */
export function numberFromEnv(env: NodeJS.ProcessEnv, name: string, bounds: NumberBounds, fallback: number): number {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? fallback : parseNumber(name, raw, bounds);
}

function rangeMessage(name: string, text: string, bounds: NumberBounds): string {
  const kind = bounds.fraction ? 'a number' : 'a whole number';
  const range = bounds.max === Number.POSITIVE_INFINITY ? `of at least ${bounds.min}` : `from ${bounds.min} to ${bounds.max}`;
  return `${name} must be ${kind} ${range}, got ${quoted(text)}`;
}

/** The offending text, short and printable: it may be anything a shell let through. */
export function quoted(text: string): string {
  const shown = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return JSON.stringify(shown);
}

/** A count with its noun in the number it needs: `1 memory`, `3 memories`, `0 issues`. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
