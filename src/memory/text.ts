// Text handling shared by the lexical embedder, the FTS query builder and duplicate detection.

/** Words too common in agent notes to say anything about a problem. */
export const STOPWORDS = new Set(
  ('a an and are as at be been but by can did do does for from had has have how i if in into is it its ' +
    'me my no not of on or our so than that the their them then there these they this to too use used ' +
    'using was we were what when where which while who why will with you your should would could after ' +
    'before about again all any just only also more most some such very via per').split(' '),
);

/** Lower-case word tokens (letters, digits, and `_` kept together). */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
}

export function contentWords(text: string): string[] {
  return words(text).filter((w) => !STOPWORDS.has(w));
}

/** The text a memory's vector embeds (docs/contract/memory.md §3: `trigger + " " + resolution`). */
export function memoryText(trigger: string, resolution: string): string {
  return `${trigger} ${resolution}`;
}

/** Case, spacing and punctuation-insensitive form used for "identical text" merges. */
export function normaliseText(text: string): string {
  return words(text).join(' ');
}
