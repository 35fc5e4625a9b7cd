// What a text names, beyond its words. The values and files a memory names, so consolidation
// never fuses two memories that say different things in near-identical words (issue #25:
// consolidating at 0.75 fused two distinct failures): a value is a number (a port, a version, a
// size with its unit), a quoted or backticked span, or the right-hand side of a `key = value` /
// `key: value` setting. And the identifiers it names — settings and code symbols — so feedback
// can tell a note about `log_level` from a task about `retry_policy` in the same file (match.ts).
import { filePatterns } from './files.js';
import type { MemoryRow } from './rows.js';

const NUMBER = /(?<![\w.])\d+(?:\.\d+)*(?:[a-z%]{1,3})?(?![\w.])/gi;
const QUOTED = /`([^`]+)`|"([^"]+)"|'([^'\s][^']*)'/g;
// `key = value` anywhere; `key: value` only for keys that look like settings (snake_case, ENV_NAMES),
// not prose ("Jest hangs: the poller …").
const SETTING = /\b([A-Za-z_][\w.-]*)\s*=\s*([^\s,;)]+)|\b([a-z][a-z0-9]*_[\w.]*|[A-Z][A-Z0-9]*_[A-Z0-9_]+)\s*:\s*([^\s,;)]+)/g;

/** The values and files a text names, normalised, as a sorted list. */
export function namedValues(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(NUMBER)) found.add(m[0].toLowerCase());
  for (const m of text.matchAll(QUOTED)) found.add((m[1] ?? m[2] ?? m[3]!).trim().toLowerCase());
  for (const m of text.matchAll(SETTING)) found.add(`${(m[1] ?? m[3])!.toLowerCase()}=${(m[2] ?? m[4])!.toLowerCase()}`);
  for (const file of filePatterns(text)) found.add(`file:${file}`);
  return [...found].sort();
}

/** Whether two memories name the same values and files (and so may be one memory). */
export function sameValues(a: Pick<MemoryRow, 'trigger' | 'resolution'>, b: Pick<MemoryRow, 'trigger' | 'resolution'>): boolean {
  const x = namedValues(`${a.trigger}\n${a.resolution}`);
  const y = namedValues(`${b.trigger}\n${b.resolution}`);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

// snake_case and ENV_NAMES (an inner `_`), camelCase and PascalCase with an inner capital
// (`staleTime`, `SameSite`, `NodeNext`), and error codes (`TS2307`, `ECONNREFUSED`).
const IDENTIFIER = /^(?:[A-Za-z][A-Za-z0-9]*_\w*[A-Za-z0-9]|[A-Za-z][a-z0-9]+[A-Z]\w*|[A-Z]{1,5}\d{2,}|E[A-Z]{4,})$/;

/**
 * The settings and code identifiers a text names, lower-cased: identifier-shaped words outside its
 * file paths, and the keys of its `key = value` settings (`timeout = 30`). Values are not names:
 * `retry_policy = linear-backoff` names retry_policy.
 */
export function namedIdentifiers(text: string): Set<string> {
  let rest = text;
  for (const file of filePatterns(text)) rest = rest.split(file).join(' ');
  const found = new Set<string>();
  for (const word of rest.match(/[A-Za-z_]\w*/g) ?? []) if (IDENTIFIER.test(word)) found.add(word.toLowerCase());
  for (const m of rest.matchAll(SETTING)) found.add((m[1] ?? m[3])!.toLowerCase());
  return found;
}
