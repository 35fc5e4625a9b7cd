// The arithmetic of the memory eval (scripts/eval-memory.mjs), shared with its test
// (tests/memory/eval-goal.test.ts): ranking metrics, the plain BM25 baseline, and issue #13's goal.
import { filePatterns } from '../../dist/memory/files.js';

export const KINDS = ['paraphrase', 'lexical', 'file', 'near-duplicate'];

/** R@1: the first result is relevant. R@5: share of the relevant found in the top 5 (of at most 5). MRR@10. */
export function metrics(rankings) {
  let r1 = 0, r5 = 0, mrr = 0;
  for (const { relevant, ranked } of rankings) {
    r1 += relevant.includes(ranked[0]) ? 1 : 0;
    r5 += ranked.slice(0, 5).filter((id) => relevant.includes(id)).length / Math.min(5, relevant.length);
    const first = ranked.slice(0, 10).findIndex((id) => relevant.includes(id));
    mrr += first >= 0 ? 1 / (first + 1) : 0;
  }
  const n = rankings.length || 1;
  return { n: rankings.length, r1: r1 / n, r5: r5 / n, mrr: mrr / n };
}

/** Overall and per-kind metrics of a list of ranked queries. */
export function summary(rankings) {
  return { all: metrics(rankings), ...Object.fromEntries(KINDS.map((k) => [k, metrics(rankings.filter((q) => q.kind === k))])) };
}

/**
 * A plain BM25 (k1 1.2, b 0.75) over trigger + resolution + the files the memory names; tokens
 * are lower-case letter/digit runs, no stemming, no stop words. Returns query → top-10 ids.
 */
export function bm25Baseline(memories, k1 = 1.2, b = 0.75) {
  const tokens = (text) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const docs = memories.map((m) => tokens(`${m.trigger} ${m.resolution} ${filePatterns(`${m.trigger}\n${m.resolution}`).join(' ')}`));
  const avgdl = docs.reduce((s, d) => s + d.length, 0) / docs.length;
  const df = new Map();
  for (const d of docs) for (const t of new Set(d)) df.set(t, (df.get(t) ?? 0) + 1);
  const tf = docs.map((d) => d.reduce((m, t) => m.set(t, (m.get(t) ?? 0) + 1), new Map()));
  const idf = (t) => Math.log(1 + (docs.length - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5));
  return (query) => {
    const terms = [...new Set(tokens(query))];
    const scored = memories.map((m, i) => {
      let s = 0;
      for (const t of terms) {
        const f = tf[i].get(t);
        if (f) s += idf(t) * ((f * (k1 + 1)) / (f + k1 * (1 - b + (b * docs[i].length) / avgdl)));
      }
      return [m.id, s];
    });
    return scored.filter(([, s]) => s > 0).sort((x, y) => y[1] - x[1]).slice(0, 10).map(([id]) => id);
  };
}

/** Issue #13's goal: R@5 ≥ 0.90, MRR ≥ 0.80, and on every kind at least the baseline's R@1, R@5 and MRR. */
export const GOAL = { r5: 0.9, mrr: 0.8 };

/** Why `system` misses the goal against `baseline` (both from summary()); [] when it meets it. */
export function goalFailures(system, baseline) {
  const eps = 1e-9;
  const out = [];
  if (system.all.r5 < GOAL.r5 - eps) out.push(`Recall@5 ${system.all.r5.toFixed(3)} < ${GOAL.r5}`);
  if (system.all.mrr < GOAL.mrr - eps) out.push(`MRR ${system.all.mrr.toFixed(3)} < ${GOAL.mrr}`);
  for (const kind of KINDS) {
    for (const m of ['r1', 'r5', 'mrr']) {
      if (system[kind][m] < baseline[kind][m] - eps) out.push(`${kind} ${m} ${system[kind][m].toFixed(3)} < BM25 ${baseline[kind][m].toFixed(3)}`);
    }
  }
  return out;
}

/**
 * A store with the chosen embedder (`HELIX_EMBEDDER` in options.env), or why it cannot be had here:
 * its package is missing (a warning), or it fell back to lexical. The folder is the caller's.
 */
export async function openChosenStore(memory, choice, options) {
  const warnings = [];
  const store = memory.openMemoryStore({ ...options, warn: (m) => warnings.push(m) });
  const embedderId = await store.embedderId();
  if (warnings.length || (choice !== 'lexical' && embedderId.startsWith('lexical'))) {
    store.close();
    return { skipped: warnings.join('; ') || 'fell back to lexical' };
  }
  return { store, embedderId };
}
