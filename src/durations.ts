// Go-style durations (`90s`, `1h30m`, `1.5h`, `250ms`), read exactly as Go's time.ParseDuration
// reads them — DDx parses its duration flags (--max-duration of `ddx work`, --rate-limit-max-wait)
// with it, and a flag helix shares with DDx must mean the same thing. Units: ns, us (µs, μs), ms,
// s, m, h; no days; a bare number other than 0 has no unit and is refused; the whole value must fit
// Go's int64 nanoseconds (about 292 years). tests/durations.test.ts checks every case against a
// table Go itself produced (tests/fixtures/go-golden).
import { HelixError } from './errors.js';

const NS_PER_UNIT: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  'µs': 1_000n, // U+00B5 micro sign
  'μs': 1_000n, // U+03BC Greek mu
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const MAX_NS = (1n << 63n) - 1n;

export type GoDuration = { ok: true; ns: bigint } | { ok: false; error: string };

/** Go's time.ParseDuration: the value in nanoseconds, or Go's own error message. */
export function parseGoDuration(text: string): GoDuration {
  const invalid = (): GoDuration => ({ ok: false, error: `time: invalid duration ${goQuote(text)}` });
  let s = text;
  let negative = false;
  if (s[0] === '-' || s[0] === '+') {
    negative = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return { ok: true, ns: 0n };
  if (s === '') return invalid();
  let total = 0n;
  while (s !== '') {
    if (!/^[0-9.]/.test(s)) return invalid();
    const whole = /^[0-9]*/.exec(s)?.[0] ?? '';
    s = s.slice(whole.length);
    // Go refuses a whole part over 2^63 ("bad [0-9]*")
    if (whole !== '' && BigInt(whole) > 1n << 63n) return invalid();
    let fraction = '';
    let hasFraction = false;
    if (s[0] === '.') {
      fraction = /^\.([0-9]*)/.exec(s)?.[1] ?? '';
      hasFraction = fraction !== '';
      s = s.slice(1 + fraction.length);
    }
    if (whole === '' && !hasFraction) return invalid();
    const unit = /^[^0-9.]*/.exec(s)?.[0] ?? '';
    if (unit === '') return { ok: false, error: `time: missing unit in duration ${goQuote(text)}` };
    s = s.slice(unit.length);
    const scale = NS_PER_UNIT[unit];
    if (scale === undefined) return { ok: false, error: `time: unknown unit ${goQuote(unit)} in duration ${goQuote(text)}` };
    let value = BigInt(whole || '0');
    if (value > (1n << 63n) / scale) return invalid();
    value *= scale;
    if (hasFraction) {
      // Go: float64(f) * (float64(unit) / scale), truncated, with f holding at most the digits that fit
      const { digits, divisor } = leadingFraction(fraction);
      value += BigInt(Math.trunc(Number(digits) * (Number(scale) / divisor)));
      if (value > 1n << 63n) return invalid();
    }
    total += value;
    if (total > 1n << 63n) return invalid();
  }
  if (negative) return { ok: true, ns: -total };
  if (total > MAX_NS) return invalid();
  return { ok: true, ns: total };
}

/** Go's leadingFraction: digits accumulate until one more would overflow int64; the rest only scale. */
function leadingFraction(fraction: string): { digits: bigint; divisor: number } {
  let digits = 0n;
  let divisor = 1;
  let overflow = false;
  for (const c of fraction) {
    if (overflow) continue;
    if (digits > MAX_NS / 10n) {
      overflow = true;
      continue;
    }
    const next = digits * 10n + BigInt(c);
    if (next > 1n << 63n) {
      overflow = true;
      continue;
    }
    digits = next;
    divisor *= 10;
  }
  return { digits, divisor };
}

/** Go's quote() in package time: double quotes, `"` and `\` escaped, other than printable ASCII as \xNN bytes. */
function goQuote(text: string): string {
  let quoted = '';
  for (const c of text) {
    if (c < ' ' || c >= '\x80') for (const byte of Buffer.from(c, 'utf8')) quoted += `\\x${byte.toString(16).padStart(2, '0')}`;
    else quoted += c === '"' || c === '\\' ? `\\${c}` : c;
  }
  return `"${quoted}"`;
}

/**
 * A duration flag or variable (`--max-duration`, `--max-wait`) in milliseconds: Go's syntax, not
 * negative. Anything else is one line and exit 7, naming the flag and quoting Go's own reason.
 */
export function parseDurationFlag(name: string, text: string, prefix = 'helix:'): number {
  const parsed = parseGoDuration(text.trim());
  if (!parsed.ok) throw new HelixError('validation', `${prefix} ${name} must be a duration such as 90s, 45m or 1h30m (${parsed.error})`);
  if (parsed.ns < 0n) throw new HelixError('validation', `${prefix} ${name} must not be negative, got ${goQuote(text.trim())}`);
  return Number(parsed.ns) / 1e6;
}

/** A duration for a line: `1h30m`, `45m`, `90s`, `250ms` — the largest units, as a person reads it. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  let seconds = Math.round(ms / 1000);
  const hours = Math.floor(seconds / 3600);
  seconds -= hours * 3600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  return `${hours ? `${hours}h` : ''}${minutes ? `${minutes}m` : ''}${seconds || (!hours && !minutes) ? `${seconds}s` : ''}`;
}
