// src/tracker/sha1.ts names DDx's lease folder without loading node:crypto: it must give
// node:crypto's digest for every text, across the 55/56/64-byte padding edges and in UTF-8.
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha1Hex } from '../../src/tracker/sha1.js';

const reference = (text: string) => createHash('sha1').update(text).digest('hex');

describe('sha1Hex', () => {
  it('matches node:crypto on the padding edges and on non-ASCII paths', () => {
    for (let length = 0; length <= 130; length++) expect(sha1Hex('a'.repeat(length))).toBe(reference('a'.repeat(length)));
    for (const text of ['/tmp/projekt-ü', '/home/😀/repo', '/srv/名前/x', 'abc']) expect(sha1Hex(text)).toBe(reference(text));
    expect(sha1Hex('abc')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
  });

  it('matches node:crypto on any text', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => sha1Hex(text) === reference(text)), { numRuns: 500 });
  });
});
