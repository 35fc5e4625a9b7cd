#!/usr/bin/env node
// What other ways of combining relevance, effectiveness and recency would do on the hard set
// (eval/memory-hard.json), per embedder: the evidence behind docs/memory.md's "Relevance first".
// The store is built as scripts/eval-memory.mjs builds it (one memory an hour through the
// library); each query's candidates come from the shipped code (dist/memory/recall.js: the same
// fused relevance and absolute match `recall` ranks by), and only the final score is recombined
// here, so the row "shipped" reproduces `npm run eval:memory -- --in-process`.
//
// usage: npm run build && node scripts/eval-memory-variants.mjs [--embedders lexical,use]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const { values: opts } = parseArgs({ options: { embedders: { type: 'string', default: 'lexical,use' } } });
const memory = await import(join(root, 'dist/memory/index.js'));
const { MemoryContext } = await import(join(root, 'dist/memory/store-context.js'));
const { openDatabase } = await import(join(root, 'dist/memory/db.js'));
const { relevances } = await import(join(root, 'dist/memory/recall.js'));
const { effectiveness, recency } = await import(join(root, 'dist/memory/scoring.js'));
const { SCORE_WEIGHTS: W, CANDIDATE_POOL } = memory;
const { metrics, openChosenStore } = await import('./lib/memory-eval.mjs');
const data = JSON.parse(readFileSync(join(root, 'eval/memory-hard.json'), 'utf8'));

/** score(candidate) for each variant; a candidate has rel, match, best (the query's best match), rec, eff. */
const VARIANTS = {
  'shipped: 0.2·recency·match': (c) => W.relevance * c.rel + W.effectiveness * c.eff + W.recency * c.rec * c.match,
  'plain recency (before #25)': (c) => W.relevance * c.rel + W.effectiveness * c.eff + W.recency * c.rec,
  'no recency (relevance alone)': (c) => W.relevance * c.rel + W.effectiveness * c.eff,
  'recency·relevance': (c) => W.relevance * c.rel + W.effectiveness * c.eff + W.recency * c.rec * c.rel,
  'recency·relevance²': (c) => W.relevance * c.rel + W.effectiveness * c.eff + W.recency * c.rec * c.rel ** 2,
  'recency·match / best match': (c) => W.relevance * c.rel + W.effectiveness * c.eff + W.recency * c.rec * (c.best > 0 ? c.match / c.best : 0),
  'recency only at the gate (match ≥ 0.40)': (c) => W.relevance * c.rel + W.effectiveness * c.eff + W.recency * c.rec * (c.match >= 0.4 ? 1 : 0),
  'relevance + 0.3·match, recency·match': (c) => (W.relevance * (c.rel + 0.3 * c.match)) / 1.3 + W.effectiveness * c.eff + W.recency * c.rec * c.match,
  'relevance + 1·match, recency·match': (c) => (W.relevance * (c.rel + c.match)) / 2 + W.effectiveness * c.eff + W.recency * c.rec * c.match,
};

async function candidates(choice) {
  const dir = mkdtempSync(join(tmpdir(), 'helix-variants-'));
  const dbPath = join(dir, 'helix.db');
  const env = { ...process.env, HELIX_EMBEDDER: choice };
  let at = new Date('2026-01-12T09:00:00Z').getTime();
  const { store, embedderId, skipped } = await openChosenStore(memory, choice, { dbPath, env, now: () => new Date(at) });
  if (skipped) {
    rmSync(dir, { recursive: true, force: true });
    return { choice, skipped };
  }
  const idOf = new Map();
  for (const m of data.memories) {
    const r = await store.store({ trigger: m.trigger, resolution: m.resolution, type: m.type, source: 'eval' });
    at += 3_600_000;
    idOf.set(r.name, m.id);
  }
  store.close();
  const now = new Date(at);
  const db = openDatabase(dbPath, now);
  const ctx = new MemoryContext({ db, now: () => now, env, warn: () => {} });
  const queries = [];
  for (const q of data.queries) {
    const { relevance, match } = await relevances(ctx, q.query, CANDIDATE_POOL);
    const rows = ctx.rowsByIds([...relevance.keys()]);
    const best = Math.max(0, ...match.values());
    const list = [...relevance]
      .filter(([, rel]) => rel > 0)
      .map(([id, rel]) => {
        const row = rows.get(id);
        return { name: row.name, id: idOf.get(row.name), rel, match: match.get(id) ?? 0, best, rec: recency(row.last_used, row.created_at, now), eff: effectiveness(row) };
      });
    queries.push({ ...q, candidates: list });
  }
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return { choice, embedderId, queries };
}

const f3 = (x) => x.toFixed(3);
const splits = [['tune', (q) => !q.heldout], ['held-out', (q) => q.heldout], ['all', () => true]];
for (const choice of opts.embedders.split(',')) {
  const result = await candidates(choice);
  if (result.skipped) {
    console.error(`skipping ${choice}: ${result.skipped}`);
    continue;
  }
  console.log(`\n${result.embedderId}: eval/memory-hard.json, ${data.queries.length} queries; MRR / R@5 (paraphrase MRR)\n`);
  console.log(`| score | ${splits.map(([s]) => s).join(' | ')} | paraphrase MRR (all) |`);
  console.log(`|---|${splits.map(() => '---').join('|')}|---|`);
  for (const [label, score] of Object.entries(VARIANTS)) {
    const rankings = result.queries.map((q) => ({
      ...q,
      ranked: [...q.candidates].sort((a, b) => score(b) - score(a) || a.name.localeCompare(b.name)).slice(0, 10).map((c) => c.id),
    }));
    const cells = splits.map(([, pick]) => {
      const m = metrics(rankings.filter(pick));
      return `${f3(m.mrr)} / ${f3(m.r5)}`;
    });
    console.log(`| ${label} | ${cells.join(' | ')} | ${f3(metrics(rankings.filter((q) => q.kind === 'paraphrase')).mrr)} |`);
  }
}
