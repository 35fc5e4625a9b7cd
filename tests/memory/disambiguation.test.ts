// Issue #39: near-duplicate lessons told apart by the detail the bead names, on a slice of a real
// tracker, so it runs without ../shared/data: the disambiguation eval's 36 tune items found on
// HELIX's tracker (../shared/data/helix-beads-1553a431.jsonl) and the 103 beads they need, written
// by `npm run eval:memory -- --real --write-slice FILE`. The ranking is the eval's own
// (scripts/eval-memory-disambiguation.mjs): a store of the slice's lessons growing in time order,
// each later bead ranked through `recall` as the run reads it. With the match's share of relevance
// switched off (MATCH_IN_RELEVANCE = 0 in src/memory/constants.ts) R@1 is 32/36 = 0.889 and MRR
// 0.915 here; with it 33/36 = 0.917 and 0.941. The headline's share (HEADLINE_IN_RELEVANCE) moves
// this slice's MRR only (0.941 → 0.950: its store is small); tests/memory/headline.test.ts holds it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain ESM module shared with scripts/eval-memory-real.mjs (no types)
import { figures, fromSlice, rankItems } from '../../scripts/eval-memory-disambiguation.mjs';
import * as memory from '../../src/memory/index.js';
import * as port from '../../src/supervisor/shell/memory-port.js';

const set = fromSlice(JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures/disambiguation-slice.json'), 'utf8')));

describe('near-duplicates told apart by a detail (real tracker slice)', () => {
  it('puts the lesson naming the bead’s detail first', async () => {
    expect(set.items).toHaveLength(36);
    const { items } = await rankItems({ memory, port }, 'lexical', set);
    const f = figures(items);
    expect(f.r1).toBeGreaterThanOrEqual(0.9);
    expect(f.mrr).toBeGreaterThanOrEqual(0.93);
  }, 60_000);
});
