// Typed stops the supervisor decides itself (docs/contract/cli.md §6.7, docs/contract/design.md §10), not an agent:
// SYSTEMIC_FAILURE when distinct beads keep failing for the same reason, VELOCITY_COLLAPSE when
// cycles suddenly take far longer than they did.

/** Failure categories, first match wins; word boundaries so "important" is not "import". */
const CATEGORIES: Array<[string, RegExp]> = [
  ['import', /\b(import(error)?|module ?not ?found(error)?|cannot find module|unresolved import)\b/i],
  ['syntax', /\bsyntax ?error\b|\bunexpected token\b/i],
  ['type error', /\btype ?error\b|\bTS\d{4}\b|\bis not assignable\b/i],
  ['timeout', /\btime[d]? ?out\b|\btimeout\b|\bdeadline exceeded\b/i],
  ['permission', /\bpermission denied\b|\bEACCES\b|\bEPERM\b|\bnot permitted\b/i],
  ['not found', /\bnot found\b|\bENOENT\b|\bno such file\b/i],
  ['scope', /\bout of scope\b|\bscope\b|\bdelta\b/i],
  ['fixture', /\bfixtures?\b/i],
  ['test failure', /\btests? (failed|failure|failing)\b|\bfailing tests?\b|\bassertion(error)?\b|\bexpected .* (to|but)\b/i],
  ['database', /\bdatabase\b|\bsqlite\b|\bpostgres(ql)?\b|\bmysql\b|\bSQL\b/i],
  ['connection', /\bconnection (refused|reset|closed)\b|\bECONNREFUSED\b|\bECONNRESET\b|\bnetwork\b/i],
  ['auth', /\bauth(entication|orization)?\b|\bunauthori[sz]ed\b|\bforbidden\b|\binvalid (api )?key\b/i],
];

export function failureCategory(detail: string): string | undefined {
  for (const [name, pattern] of CATEGORIES) if (pattern.test(detail)) return name;
  return undefined;
}

export type VelocityVerdict = { kind: 'ok' } | { kind: 'warning' | 'collapse'; detail: string };

/** Warning at 2× and 30 s: a slowdown worth a line, not yet a stop. */
const WARNING_FACTOR = 2;
const WARNING_SECONDS = 30;

/**
 * Of the last three completed cycles, the latest took over `factor`× the first and over `seconds`
 * → collapse; over 2× and 30 s → warning.
 */
export function velocityVerdict(durationsSec: number[], factor: number, seconds: number): VelocityVerdict {
  if (durationsSec.length < 3) return { kind: 'ok' };
  const lastThree = durationsSec.slice(-3);
  const first = lastThree[0] ?? 0;
  const latest = lastThree[2] ?? 0;
  const detail = `last cycle took ${Math.round(latest)}s, ${first > 0 ? (latest / first).toFixed(1) : '∞'}× the ${Math.round(first)}s of two cycles before`;
  if (latest > factor * first && latest > seconds) return { kind: 'collapse', detail };
  if (latest > WARNING_FACTOR * first && latest > WARNING_SECONDS) return { kind: 'warning', detail };
  return { kind: 'ok' };
}
