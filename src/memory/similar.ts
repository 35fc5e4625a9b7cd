// `similar-recent`: memories of one type created in the last few days whose cosine to a trigger
// reaches a threshold — the question systemic promotion asks before storing a failure.
import { SYSTEMIC_WINDOW_DAYS } from './constants.js';
import type { MemoryContext } from './store-context.js';
import { isoDaysBefore } from './clock.js';
import { checkType } from './recall.js';
import { toMemory, type Memory } from './rows.js';
import { round3 } from './scoring.js';

export interface SimilarOptions {
  threshold?: number;
  days?: number;
  type?: string;
}

export async function similarRecent(ctx: MemoryContext, trigger: string, options: SimilarOptions = {}): Promise<(Memory & { _similarity: number })[]> {
  const type = checkType(options.type ?? 'failure');
  const threshold = options.threshold ?? (await ctx.thresholds()).systemic;
  const since = isoDaysBefore(ctx.now(), options.days ?? SYSTEMIC_WINDOW_DAYS);
  const index = await ctx.vectors();
  const [vector] = await ctx.embed([trigger]);
  const near = index.nearest(vector!, 200, type).filter((n) => n.cosine >= threshold);
  const rows = ctx.rowsByIds(near.map((n) => n.id));
  return near
    .filter((n) => (rows.get(n.id)?.created_at ?? '') >= since)
    .map((n) => ({ ...toMemory(rows.get(n.id)!), _similarity: round3(n.cosine) }));
}
