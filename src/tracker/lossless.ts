// Writing a changed bead without losing what JSON numbers cannot hold. JSON.parse reads every
// number as a double: 12345678901234567890 comes back as 12345678901234567000, 1e400 as Infinity
// (written as null), 1.10 as 1.1. DDx does the same (Go decodes unknown keys into `any`). helix
// does better: each top-level value of a changed bead that helix did not change is written back as
// the very text it had in the file; only the values it changed (and new keys) are serialised.

/** The raw JSON text of each top-level member of a one-line JSON object, by key; undefined if it is not one. */
export function rawMembers(line: string): Map<string, string> | undefined {
  const members = new Map<string, string>();
  let i = skipSpace(line, 0);
  if (line[i] !== '{') return undefined;
  i = skipSpace(line, i + 1);
  if (line[i] === '}') return members;
  for (;;) {
    if (line[i] !== '"') return undefined;
    const keyEnd = stringEnd(line, i);
    if (keyEnd < 0) return undefined;
    const key = JSON.parse(line.slice(i, keyEnd)) as string;
    i = skipSpace(line, keyEnd);
    if (line[i] !== ':') return undefined;
    const start = skipSpace(line, i + 1);
    const end = valueEnd(line, start);
    if (end < 0) return undefined;
    members.set(key, line.slice(start, end));
    i = skipSpace(line, end);
    if (line[i] === '}') return members;
    if (line[i] !== ',') return undefined;
    i = skipSpace(line, i + 1);
  }
}

/**
 * The bead as one JSON line: keys in the bead's order, each value helix left as it was read
 * written as its original text in `originalLine`, the others by JSON.stringify.
 */
export function stringifyKeeping(bead: Record<string, unknown>, originalLine: string | undefined): string {
  const original = originalLine === undefined ? undefined : rawMembers(originalLine.trim().replace(/^\uFEFF/, ''));
  if (!original) return JSON.stringify(bead);
  const parts: string[] = [];
  for (const [key, value] of Object.entries(bead)) {
    const serialised = JSON.stringify(value);
    if (serialised === undefined) continue; // undefined and functions are left out, as JSON.stringify does
    const raw = original.get(key);
    parts.push(`${JSON.stringify(key)}:${raw !== undefined && unchanged(serialised, raw) ? raw : serialised}`);
  }
  return `{${parts.join(',')}}`;
}

/** Whether the value serialised as `serialised` is what `raw` reads as. */
function unchanged(serialised: string, raw: string): boolean {
  if (serialised === raw) return true;
  try {
    return JSON.stringify(JSON.parse(raw)) === serialised;
  } catch {
    return false;
  }
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\r' || text[i] === '\n')) i++;
  return i;
}

/** Index just past the string starting at `i` (a `"`), or -1. */
function stringEnd(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j];
    if (c === '\\') j++;
    else if (c === '"') return j + 1;
  }
  return -1;
}

/** Index just past the JSON value starting at `i`, or -1. Nested values are skipped without recursion. */
function valueEnd(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return stringEnd(text, i);
  if (c !== '{' && c !== '[') {
    let j = i;
    while (j < text.length && !/[\s,}\]]/.test(text[j]!)) j++;
    return j > i ? j : -1;
  }
  let depth = 0;
  for (let j = i; j < text.length; j++) {
    const d = text[j];
    if (d === '"') {
      j = stringEnd(text, j) - 1;
      if (j < 0) return -1;
    } else if (d === '{' || d === '[') depth++;
    else if (d === '}' || d === ']') {
      depth--;
      if (depth === 0) return j + 1;
    }
  }
  return -1;
}
