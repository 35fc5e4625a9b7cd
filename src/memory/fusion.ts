// Reciprocal-rank fusion of the ranked lists recall draws on (BM25, the files a query names, the
// embedder's nearest neighbours): a memory's relevance is what its ranks earn, not its raw score,
// so a list whose scores run high (USE-lite cosines of 0.8 for unrelated text) cannot crowd out
// the others, and a list that found nothing for a query does not count against anyone.
// Pure functions: no I/O.

export interface RankedList {
  /** How much first place on this list is worth next to first place on the others. */
  weight: number;
  /** Memory ids, best first; ids that share a place share a rank (see `ranks`). */
  ids: number[];
  /** Optional equal-rank groups: ids with the same key get the rank of the first of them. */
  ties?: number[];
}

/** 1-based competition ranks of a list: tied ids share the best rank of their group. */
export function ranks(list: RankedList): Map<number, number> {
  const out = new Map<number, number>();
  list.ids.forEach((id, i) => {
    if (out.has(id)) return;
    const tiedWithPrevious = i > 0 && list.ties !== undefined && list.ties[i] === list.ties[i - 1];
    out.set(id, tiedWithPrevious ? out.get(list.ids[i - 1]!)! : i + 1);
  });
  return out;
}

/**
 * Relevance in [0, 1]: Σ weight/(k + rank) over the lists that rank the memory, divided by what
 * first place on every list that found anything would earn. First everywhere is 1; first on a
 * list worth half of the total is 0.5.
 */
export function fuse(lists: RankedList[], k: number): Map<number, number> {
  const active = lists.filter((l) => l.ids.length > 0 && l.weight > 0);
  const best = active.reduce((sum, l) => sum + l.weight / (k + 1), 0);
  const out = new Map<number, number>();
  for (const list of active) {
    for (const [id, rank] of ranks(list)) out.set(id, (out.get(id) ?? 0) + list.weight / (k + rank));
  }
  for (const [id, sum] of out) out.set(id, Math.min(1, sum / best));
  return out;
}
