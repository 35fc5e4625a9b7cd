// Code-aware search terms for the BM25 index (FTS5) and its queries. Agent notes mix prose with
// identifiers, error codes and paths, which a plain word tokeniser cuts badly:
//   - a path gives its segments and its file name without the extension
//     (`services/billing/tax_client.go` → services billing tax_client tax client go);
//   - camelCase, PascalCase and snake_case give the whole identifier and its parts
//     (`useInvoices` → useinvoices use invoices; `busy_timeout` → busy_timeout busy timeout);
//   - error codes stay whole (`TS2307`, `E0502`, `ERR_REQUIRE_ESM`, `ECONNREFUSED`), so a query
//     quoting one matches it exactly instead of every note that says "err" or "require".
// The terms are lower case; FTS5's porter stemmer does the rest (tokenize = porter unicode61 with
// `_` as a token character, so whole snake_case identifiers survive).
import { STOPWORDS } from './text.js';

/** Runs of letters, digits and the joiners an identifier or path may contain. */
const RAW = /[\p{L}\p{N}_$./\\-]+/gu;

/** Splits on camelCase humps and letter/digit borders: `parseHTTPResponse2` → parse HTTP Response 2. */
function humps(word: string): string[] {
  return word.match(/\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+/gu) ?? [];
}

/** An error code that should match only itself: TS2307, E0502, DTZ003, ERR_REQUIRE_ESM, ERESOLVE. */
function isErrorCode(word: string): boolean {
  return /^\p{Lu}{1,5}\p{N}{2,}$/u.test(word) || /^\p{Lu}{2,}(?:_\p{Lu}{2,})+$/u.test(word) || /^E\p{Lu}{4,}$/u.test(word);
}

/** The terms of one word (no path separators in it). */
function wordTerms(word: string, out: string[]): void {
  const trimmed = word.replace(/^[_$.-]+|[_$.-]+$/g, '');
  if (trimmed === '') return;
  const whole = trimmed.toLowerCase();
  const parts = trimmed.split(/[_$.-]+/).filter(Boolean);
  out.push(whole.replace(/[$.-]+/g, '_'));
  if (isErrorCode(trimmed) && !trimmed.includes('_')) return;
  const pieces = parts.flatMap((p) => {
    const h = humps(p);
    return h.length > 1 ? h : [p];
  });
  if (pieces.length > 1) for (const p of pieces) out.push(p.toLowerCase());
}

/** Every index term of `text`, in order, repeats kept (BM25 counts them). */
export function searchTerms(text: string): string[] {
  return termGroups(text).flat();
}

/**
 * The terms of `text` word by word: one group per word (a path segment, a file name's stem, an
 * identifier), its whole form first and then its parts (`useInvoices` → useinvoices use invoices),
 * an extension a group of its own.
 */
export function termGroups(text: string): string[][] {
  const out: string[][] = [];
  const word = (w: string) => {
    const terms: string[] = [];
    wordTerms(w, terms);
    if (terms.length > 0) out.push(terms);
  };
  for (const raw of text.match(RAW) ?? []) {
    const token = raw.replace(/^[./\\-]+|[./\\-]+$/g, '');
    if (token === '') continue;
    const segments = token.split(/[/\\]+/).filter(Boolean);
    if (segments.length > 1 || /\.\p{L}[\p{L}\p{N}]{0,7}$/u.test(token)) {
      // A path (or a file name): its segments, then the last one's stem and extension apart.
      for (const segment of segments) {
        const dot = segment.lastIndexOf('.');
        if (dot > 0) {
          word(segment.slice(0, dot));
          out.push([segment.slice(dot + 1).toLowerCase()]);
        } else word(segment);
      }
    } else word(token);
  }
  return out;
}

const MAX_QUERY_TERMS = 48;

/** A term worth searching for: single characters (the `s` of "it's", the `e` of "e.g.") match everything and mean nothing. */
const isContent = (term: string): boolean => term.length > 1 && !STOPWORDS.has(term);

/** The distinct content terms of a query, stop words dropped. */
export function queryTerms(text: string): string[] {
  return [...new Set(searchTerms(text).filter(isContent))].slice(0, MAX_QUERY_TERMS);
}

/**
 * The BM25 query's terms: queryTerms, except that a compound word (`TypeScript`, `busy_timeout`,
 * `ERR_REQUIRE_ESM`) the store knows whole (`known`) is searched whole, without its parts. The index
 * holds a compound as the whole and its parts, so searching all three counted one word of the
 * query three times: "TypeScript" in a question about NodeNext imports gave every memory that
 * merely says "types" and "TypeScript" three matches against the answer's one, and ranked it first
 * (eval/memory-hard.json n04, docs/memory.md). The parts stay in the query when no memory holds
 * the whole: then they are how `staleTime` finds a note that says "stale time".
 */
export function keywordQueryTerms(text: string, known: (whole: string) => boolean): string[] {
  const terms: string[] = [];
  for (const [whole, ...parts] of termGroups(text)) {
    if (parts.length > 0 && isContent(whole!) && known(whole!)) terms.push(whole!);
    else terms.push(whole!, ...parts);
  }
  return [...new Set(terms.filter(isContent))].slice(0, MAX_QUERY_TERMS);
}

/** The text FTS5 indexes for `text`: its terms, space-separated. */
export function indexText(text: string): string {
  return searchTerms(text).join(' ');
}
