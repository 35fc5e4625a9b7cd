// The deterministic offline embedder: needs nothing but this file. Hashes word unigrams, word
// bigrams and character trigrams of content words into a fixed-size vector (the "hashing trick"),
// with sublinear term weights, then L2-normalises. Identical text → cosine 1.0; texts sharing no
// content words share only stray trigrams and stay far below the auto-link threshold. Paraphrases
// with different words are its blind spot, which BM25 fusion and the semantic tiers cover.
import { contentWords } from '../text.js';
import { type Embedder, normalise } from './embedder.js';

export const LEXICAL_DIM = 384;
export const LEXICAL_ID = `lexical-v1-${LEXICAL_DIM}`;

// Feature weights: whole words carry most meaning, bigrams keep phrase order, trigrams catch
// inflections and identifiers (`TypeError` ~ `typeerrors`).
const WORD_WEIGHT = 1.0;
const BIGRAM_WEIGHT = 0.5;
const TRIGRAM_WEIGHT = 0.25;

/** FNV-1a, 32-bit: fast, deterministic across platforms and Node versions. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const BASE_WEIGHT: Record<string, number> = { w: WORD_WEIGHT, b: BIGRAM_WEIGHT, c: TRIGRAM_WEIGHT };

export function lexicalVector(text: string, dim = LEXICAL_DIM): Float32Array {
  const tokens = contentWords(text);
  const counts = new Map<string, number>();
  const count = (feature: string) => counts.set(feature, (counts.get(feature) ?? 0) + 1);
  tokens.forEach((word, i) => {
    count(`w:${word}`);
    const next = tokens[i + 1];
    if (next !== undefined) count(`b:${word} ${next}`);
    const padded = `<${word}>`;
    for (let j = 0; j + 3 <= padded.length; j++) count(`c:${padded.slice(j, j + 3)}`);
  });
  const vector = new Float32Array(dim);
  for (const [feature, n] of counts) {
    const h = hash(feature);
    // The sign bit spreads collisions around zero instead of piling them up.
    const sign = h & 0x80000000 ? -1 : 1;
    // Sublinear term frequency: a word said five times is not five times the topic.
    vector[h % dim]! += sign * BASE_WEIGHT[feature[0]!]! * (1 + Math.log(n));
  }
  return normalise(vector);
}

export const lexicalEmbedder: Embedder = {
  id: LEXICAL_ID,
  dim: LEXICAL_DIM,
  embed: async (texts) => texts.map((t) => lexicalVector(t)),
};
