// Keeping the store small and honest: decay forgets what was barely used long ago, prune removes
// what keeps failing, consolidate folds near-duplicates into one memory.
import { DECAY_DAYS, DECAY_MIN_USES, PRUNE_MIN_USES, PRUNE_THRESHOLD } from './constants.js';
import type { MemoryContext } from './store-context.js';
import { isoDaysBefore } from './clock.js';
import { HelixError } from '../errors.js';
import type { MemoryRow } from './rows.js';
import { uses } from './rows-math.js';
import { effectiveness, round3 } from './scoring.js';
import { archiveRows } from './archive.js';
import { sameValues } from './values.js';

function checkNumber(name: string, value: number, min = 0): void {
  if (!Number.isFinite(value) || value < min) throw new HelixError('validation', `helix memory: ${name} must be a number ≥ ${min}`);
}

/** Halves helped and failed (the ratio stays) of memories unused for `days` with < `minUses` uses. */
export function decay(ctx: MemoryContext, days = DECAY_DAYS, minUses = DECAY_MIN_USES) {
  checkNumber('--days', days);
  checkNumber('--min-uses', minUses);
  const cutoff = isoDaysBefore(ctx.now(), days);
  const decayed = ctx.write(
    () =>
      ctx
        .sql(
          `UPDATE memories SET helped = helped / 2, failed = failed / 2
           WHERE COALESCE(last_used, created_at) < ? AND helped + failed < ? AND helped + failed > 0`,
        )
        .run(cutoff, minUses).changes,
  );
  return { decayed, threshold_days: days, min_uses: minUses };
}

/** Removes memories with effectiveness strictly below `threshold` and at least `minUses` uses. */
export function prune(ctx: MemoryContext, threshold = PRUNE_THRESHOLD, minUses = PRUNE_MIN_USES) {
  checkNumber('--threshold', threshold);
  checkNumber('--min-uses', minUses);
  const removed = ctx.write(() => {
    const rows = (ctx.sql('SELECT * FROM memories ORDER BY name').all() as MemoryRow[]).filter(
      (r) => uses(r) >= minUses && effectiveness(r) < threshold,
    );
    for (const r of rows) archiveRows(ctx, [r], `pruned: effectiveness ${round3(effectiveness(r))} after ${round3(uses(r))} uses`);
    return rows.map((r) => r.name);
  });
  const remaining = (ctx.sql('SELECT COUNT(*) AS n FROM memories').get() as { n: number }).n;
  return { pruned: removed.length, remaining, removed };
}

/**
 * Merges same-type pairs at or above `threshold` cosine that name the same values and files
 * (values.ts: two failures that differ in the port, the setting's value or the file are two
 * problems, however close their words). The survivor (more uses, then older) takes the loser's
 * helped/failed and its edges; the loser goes to the archive, and the pairs are reported by name.
 */
export async function consolidate(ctx: MemoryContext, threshold?: number) {
  const limit = threshold ?? (await ctx.thresholds()).consolidate;
  checkNumber('--threshold', limit);
  const embedder = await ctx.embedder();
  await ctx.vectors();
  const merged = ctx.write(() => {
    const index = ctx.syncVectors(embedder);
    const rows = ctx.sql('SELECT * FROM memories ORDER BY id').all() as MemoryRow[];
    const gone = new Set<number>();
    const pairs: { kept: string; archived: string }[] = [];
    for (const row of rows) {
      if (gone.has(row.id)) continue;
      const vector = index.vector(row.id);
      if (!vector) continue;
      const near = index.nearest(Float32Array.from(vector), 20, row.type);
      for (const n of near) {
        if (n.id === row.id || gone.has(n.id) || n.cosine < limit) continue;
        const other = ctx.rowsByIds([n.id]).get(n.id);
        const self = ctx.rowsByIds([row.id]).get(row.id);
        if (!other || !self || !sameValues(self, other)) continue;
        const [survivor, loser] = uses(other) > uses(self) ? [other, self] : [self, other];
        absorb(ctx, survivor, loser);
        gone.add(loser.id);
        pairs.push({ kept: survivor.name, archived: loser.name });
        if (loser.id === row.id) break;
      }
    }
    return pairs;
  });
  const remaining = (ctx.sql('SELECT COUNT(*) AS n FROM memories').get() as { n: number }).n;
  return { merged: merged.length, remaining, pairs: merged };
}

function absorb(ctx: MemoryContext, survivor: MemoryRow, loser: MemoryRow): void {
  const lastUsed = [survivor.last_used, loser.last_used].filter((x): x is string => !!x).sort().pop() ?? null;
  ctx
    .sql('UPDATE memories SET helped = helped + ?, failed = failed + ?, last_used = ? WHERE id = ?')
    .run(loser.helped, loser.failed, lastUsed, survivor.id);
  // Re-point the loser's edges; a triple the survivor already has adds its weight instead.
  const edgeRows = ctx.sql('SELECT * FROM edges WHERE from_name = ? OR to_name = ?').all(loser.name, loser.name) as {
    from_name: string;
    to_name: string;
    rel_type: string;
    weight: number;
    created_at: string;
  }[];
  const upsert = ctx.sql(
    `INSERT INTO edges (from_name, to_name, rel_type, weight, created_at) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (from_name, to_name, rel_type) DO UPDATE SET weight = weight + excluded.weight`,
  );
  archiveRows(ctx, [loser], `consolidated into ${survivor.name}`, survivor.name);
  for (const e of edgeRows) {
    const from = e.from_name === loser.name ? survivor.name : e.from_name;
    const to = e.to_name === loser.name ? survivor.name : e.to_name;
    if (from !== to) upsert.run(from, to, e.rel_type, e.weight, e.created_at);
  }
}
