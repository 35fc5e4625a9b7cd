// Issue #39: a long bead holds most words of many short lesson titles by chance, and the memory's
// side of the match read that as the bead describing the lesson's situation. On a slice of DDx's
// real tracker (../shared/data/ddx-beads-ae663ca012.jsonl: the 15 lessons closed before its middle
// bead and the first 12 later beads that no lesson fits, by scripts/eval-memory-silence.mjs's rule;
// written by `npm run eval:memory -- --real --write-silence-slice FILE`), the beads go through the
// run's memory port. With the cover counted beyond chance (match.ts: chanceCoverage) the port puts
// 17 memories into these 12 beads; with chanceCoverage returning 0 it puts 27.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain ESM helper shared with the eval scripts (no types)
import { evaluateSet } from '../../scripts/lib/gate-eval.mjs';
import * as hooks from '../../src/installer/hook-memory.js';
import * as memory from '../../src/memory/index.js';
import * as port from '../../src/supervisor/shell/memory-port.js';

interface Slice { T: string; memories: unknown[]; beads: { id: string }[] }
const slice = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures/silence-slice.json'), 'utf8')) as Slice;

describe('beads nothing fits, on a real tracker slice', () => {
  it('a long bead does not pass a lesson for covering its title by chance', async () => {
    const beads = slice.beads.map((bead) => ({ id: bead.id, kind: 'bead', relevant: [], bead: { ...bead, status: 'open' } }));
    const r = await evaluateSet({ memory, hooks, port }, 'lexical', { memories: slice.memories, beads, edits: [], strict: false, now: Date.parse(slice.T), rounds: 0 });
    expect(r.bf.nothing).toBe(12);
    expect(r.bf.injected).toBeLessThanOrEqual(20);
  }, 60_000);
});
