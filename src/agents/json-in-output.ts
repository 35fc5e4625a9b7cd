// Finds a JSON document inside agent output that may carry advisory lines before it (DDx prints
// warnings and progress ahead of its `--json` result, docs/contract/cli.md §8). Pure text scanning.

export type JsonSearch =
  | { kind: 'none' }
  | { kind: 'found'; value: unknown }
  | { kind: 'garbage'; reason: string; excerpt: string };

// A line that opens a JSON document: `{`, or `[` followed by what a JSON array can start with.
// `[ddx] warning …` style advisory prefixes do not count.
const JSON_START = /^[ \t]*(\{|\[(?=[ \t]*($|[{["\]\d-]|true|false|null)))/;

const OBJECT_START = /^[ \t]*(\{|\[[ \t]*(\{|$))/;

/**
 * Scans the lines in order; the first line that opens a JSON document and parses wins. When some
 * line that opens an object (`{`, `[{`, or a lone `[`) fails to parse and nothing later parses, the
 * result is 'garbage' (something that looks like a result but is not); otherwise 'none'.
 */
export function findJsonDocument(output: string): JsonSearch {
  let firstFailure: { reason: string; excerpt: string } | undefined;
  let offset = 0;
  for (const line of output.split('\n')) {
    const start = JSON_START.exec(line);
    if (start) {
      const from = offset + (start[0].length - 1);
      const end = balancedEnd(output, from);
      const slice = output.slice(from, end);
      try {
        const value: unknown = JSON.parse(slice);
        // `[1] step two` parses as [1] but is prose: a document ends its line.
        if (restOfLine(output, end).trim() === '') return { kind: 'found', value };
      } catch (error) {
        // `[1/3] preparing` is a progress prefix, not a broken result; `{…` or `[{…` is a result.
        if (OBJECT_START.test(line)) {
          firstFailure ??= { reason: `unparseable JSON: ${(error as Error).message}`, excerpt: excerptOf(slice) };
        }
      }
    }
    offset += line.length + 1;
  }
  return firstFailure ? { kind: 'garbage', ...firstFailure } : { kind: 'none' };
}

function restOfLine(text: string, from: number): string {
  const newline = text.indexOf('\n', from);
  return text.slice(from, newline === -1 ? text.length : newline);
}

/** Index just past the bracket that closes the one at `from` (string-aware), or the text's end. */
function balancedEnd(text: string, from: number): number {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') depth++;
    else if (ch === '}' || ch === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}

export function excerptOf(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
