// The values and files a memory names, so consolidation never fuses two memories that say
// different things in near-identical words (issue #25: consolidating at 0.75 fused two distinct
// failures). A value is a number (a port, a version, a size with its unit), a quoted or
// backticked span, or the right-hand side of a `key = value` / `key: value` setting.
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
