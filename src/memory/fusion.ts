// Fusion of the ranked lists recall draws on (BM25, the files a query names, the embedder's nearest
// neighbours). Each list gives a memory a share in [0, 1]: its score relative to the list's best
// when the list's scores are comparable within a query (BM25: two look-alike memories with nearly
// the same score stay nearly equal, so effectiveness can still order them), else by rank
// (reciprocal rank, first place 1), so a list whose scores run high (USE-lite cosines of 0.8 for
// unrelated text) cannot crowd out the others. A list that found nothing does not count.
// Pure functions: no I/O.

export interface RankedList {
  /** How much first place on this list is worth next to first place on the others. */
  weight: number;
  /** Memory ids, best first; ids that share a place share a rank (see `ranks`). */
  ids: number[];
  /** Optional equal-rank groups: ids with the same key get the rank of the first of them. */
  ties?: number[];
  /** Optional scores (higher is better), parallel to `ids`: shares are score / best score. */
  scores?: number[];
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
 * Each id's share of a list in [0, 1]. By rank: (k + 1)/(k + rank). With scores:
 * (score / best score)^exponent, and at least `floor`: FTS5 gives a term found in half the store or
 * more an idf of ~0, so in a small store a memory sharing only such words would otherwise score ~0.
 */
export function shares(list: RankedList, k: number, exponent = 1, floor = 0): Map<number, number> {
  const out = new Map<number, number>();
  if (list.scores) {
    const best = Math.max(...list.scores);
    list.ids.forEach((id, i) => out.set(id, Math.max(floor, best > 0 ? (Math.max(0, list.scores![i]!) / best) ** exponent : 0)));
  } else {
    for (const [id, rank] of ranks(list)) out.set(id, (k + 1) / (k + rank));
  }
  return out;
}

/**
 * Relevance in [0, 1]: Σ weight·share over the lists that found the memory, divided by the weights
 * of every list that found anything. First everywhere is 1; first on a list worth half of the
 * total is 0.5.
 */
export function fuse(lists: RankedList[], k: number, exponent = 1, floor = 0): Map<number, number> {
  const active = lists.filter((l) => l.ids.length > 0 && l.weight > 0);
  const total = active.reduce((sum, l) => sum + l.weight, 0);
  const out = new Map<number, number>();
  for (const list of active) {
    for (const [id, share] of shares(list, k, exponent, floor)) out.set(id, (out.get(id) ?? 0) + list.weight * share);
  }
  for (const [id, sum] of out) out.set(id, Math.min(1, sum / total));
  return out;
}
