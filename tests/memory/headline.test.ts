// Issue #39: near-duplicate beads differ in their titles' detail while their bodies repeat the same
// acceptance text. A bead's headline (the first line of a query of several lines) is compared with
// each candidate's trigger (match.ts headlineShares) and decides HEADLINE_IN_RELEVANCE of the
// relevance: the lesson whose title names the bead's detail comes first, though a look-alike echoes
// more of the bead's body. Fails with HEADLINE_IN_RELEVANCE = 0 (src/memory/constants.ts).
import { describe, expect, it } from 'vitest';
import { added, testStore } from './test-store.js';

const ACCEPTANCE = 'All review passes complete; findings filed as beads; AGENTS.md updated if needed.';

describe('the bead headline among near-duplicates', () => {
  it('puts the lesson naming the title’s detail above the look-alike echoing the body', async () => {
    const { store, clock } = testStore();
    const sync = await added(store, 'review: last-commit 1a2b3c4 tracker sync', `Tracker sync now rewrites the JSONL file atomically. ${ACCEPTANCE}`);
    clock.advanceDays(1);
    const runbook = await added(store, 'review: last-commit 5d6e7f8 runbook artifact restore', `Review passes: every review pass listed, findings filed as beads with their evidence, AGENTS.md updated if needed, docs checked. ${ACCEPTANCE}`);
    for (const [i, topic] of ['release notes wording', 'installer path checks', 'skill packaging layout', 'plugin manifest fields'].entries()) {
      clock.advanceDays(1);
      await added(store, `review: commit ${i}f0e9d8c ${topic}`, `Reviewed the ${topic}. ${ACCEPTANCE}`);
    }
    clock.advanceDays(1);
    const bead = [
      'review: last-commit 9c8b7a6 tracker sync',
      'Review the last commit: every review pass listed, findings filed as beads with their evidence, docs checked.',
      ACCEPTANCE,
    ].join('\n');
    const ranked = await store.recall(bead, { limit: 3 });
    expect(ranked.map((m) => m.name)[0]).toBe(sync);
    expect(ranked.map((m) => m.name)).toContain(runbook);
  });

});
