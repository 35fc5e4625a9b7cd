// SOAR-style chunking (seed 000): a successful task's approach becomes a `pattern` memory, or
// strengthens the pattern that already says the same.
import type { MemoryContext } from './store-context.js';
import { round3 } from './scoring.js';
import { rejection, storeMemory } from './store.js';
import { memoryText } from './text.js';

export interface ChunkInput {
  task: string;
  outcome: string;
  approach: string;
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
  const [best] = index.nearest(vector!, 1, 'pattern');
  if (best && best.cosine >= duplicate) {
    const row = ctx.rowsByIds([best.id]).get(best.id);
    if (row) return strengthen(ctx, row.id, row.name, `similarity ${round3(best.cosine)} ≥ ${duplicate}`);
  }
  const stored = await storeMemory(ctx, { trigger, resolution, type: 'pattern', source: 'chunk' });
  if (stored.status === 'rejected') return { status: 'skipped' as const, name: '', reason: stored.reason };
  if (stored.status === 'merged') return strengthen(ctx, ctx.rowByName(stored.name)!.id, stored.name, stored.reason);
  return { status: 'added' as const, name: stored.name, reason: stored.reason };
}

function strengthen(ctx: MemoryContext, id: number, name: string, reason: string) {
  ctx.write(() => ctx.sql('UPDATE memories SET helped = helped + 1, last_used = ? WHERE id = ?').run(ctx.now().toISOString(), id));
  return { status: 'strengthened' as const, name, reason };
}
