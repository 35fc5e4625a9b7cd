// SOAR-style chunking (docs/contract/design.md §8): a successful task's approach becomes a `pattern` memory, or
// strengthens the pattern that already says the same. "The same" is the approach's text, not the
// vector: two approaches to one task that differ in the one word that matters ("set retry_policy
// = linear-backoff" vs "= exponential-jitter") embed as near-duplicates, and crediting the old one
// for the new one's success would keep a stale fact alive and lose the new one (the learning
// simulation, scripts/sim-learning.mjs, showed exactly that after its world changed).
import type { MemoryContext } from './store-context.js';
import { round3 } from './scoring.js';
import { rejection, storeMemory } from './store.js';
import { memoryText, normaliseText } from './text.js';

/** Near-duplicate patterns looked at for one that records the same approach. */
const NEAR_PATTERNS = 10;

export interface ChunkInput {
  task: string;
  outcome: string;
  approach: string;
  /**
   * Memories this same success already credited (feedback-verify's `helped`): a pattern among them
   * that records this approach is not strengthened again, so one verified success counts once.
   */
  credited?: string[];
}

export async function chunk(ctx: MemoryContext, input: ChunkInput) {
  if (!/^success/i.test(input.outcome.trim())) return { status: 'skipped' as const, name: '', reason: 'outcome is not a success' };
  const trigger = `Task: ${input.task.trim()}`;
  const resolution = `Approach that worked: ${input.approach.trim()}`;
  const problem = rejection({ trigger, resolution, type: 'pattern' });
  if (problem) return { status: 'skipped' as const, name: '', reason: problem };
  const [vector] = await ctx.embed([memoryText(trigger, resolution)]);
  const index = await ctx.vectors();
  const { duplicate } = await ctx.thresholds();
  const near = index.nearest(vector!, NEAR_PATTERNS, 'pattern').filter((n) => n.cosine >= duplicate);
  const rows = ctx.rowsByIds(near.map((n) => n.id));
  const approach = normaliseText(resolution);
  for (const n of near) {
    const row = rows.get(n.id);
    if (row && normaliseText(row.resolution) === approach) {
      if (input.credited?.includes(row.name)) return alreadyCredited(row.name);
      return strengthen(ctx, row.id, row.name, `similarity ${round3(n.cosine)} ≥ ${duplicate}, same approach`);
    }
  }
  // A different approach is a pattern of its own, however close its text: no near-duplicate merge.
  const stored = await storeMemory(ctx, { trigger, resolution, type: 'pattern', source: 'chunk' }, { mergeNearDuplicates: false });
  if (stored.status === 'rejected') return { status: 'skipped' as const, name: '', reason: stored.reason };
  if (stored.status === 'merged') {
    if (input.credited?.includes(stored.name)) return alreadyCredited(stored.name);
    return strengthen(ctx, ctx.rowByName(stored.name)!.id, stored.name, stored.reason);
  }
  return { status: 'added' as const, name: stored.name, reason: stored.reason };
}

function alreadyCredited(name: string) {
  return { status: 'skipped' as const, name, reason: 'this success already credited it' };
}

function strengthen(ctx: MemoryContext, id: number, name: string, reason: string) {
  ctx.write(() => ctx.sql('UPDATE memories SET helped = helped + 1, last_used = ? WHERE id = ?').run(ctx.now().toISOString(), id));
  return { status: 'strengthened' as const, name, reason };
}
