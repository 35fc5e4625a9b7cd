#!/usr/bin/env node
// Retrieval quality of `helix memory recall` on eval/memory-eval.json, per available embedder:
// Recall@1, Recall@5 and MRR of the full hybrid ranking (what users get) and of the plain cosine
// ranking (the embedder alone). `--calibrate` also prints the cosine distributions the
// per-embedder thresholds in src/memory/thresholds.ts were chosen from.
// Usage: npm run build && npm run eval:memory [-- --calibrate] [-- --embedders lexical,use,minilm]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const memory = await import(join(root, 'dist/memory/index.js'));
const data = JSON.parse(readFileSync(join(root, 'eval/memory-eval.json'), 'utf8'));
const args = process.argv.slice(2);
const calibrate = args.includes('--calibrate');
const only = args.includes('--embedders') ? args[args.indexOf('--embedders') + 1].split(',') : undefined;

const choices = only ?? ['lexical', 'use', ...(process.env.HELIX_MODEL_PATH ? ['minilm'] : [])];
const dot = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const f3 = (x) => x.toFixed(3);

function metrics(rankings) {
  let r1 = 0, r5 = 0, mrr = 0;
  for (const { relevant, ranked } of rankings) {
    const hits = (k) => ranked.slice(0, k).filter((n) => relevant.includes(n)).length / relevant.length;
    r1 += ranked.length && relevant.includes(ranked[0]) ? 1 : 0;
    r5 += hits(5);
    const first = ranked.findIndex((n) => relevant.includes(n));
    mrr += first >= 0 ? 1 / (first + 1) : 0;
  }
  const n = rankings.length;
  return { r1: r1 / n, r5: r5 / n, mrr: mrr / n };
}

const rows = [];
for (const choice of choices) {
  const warnings = [];
  const embedder = await memory.selectEmbedder({ ...process.env, HELIX_EMBEDDER: choice }, (m) => warnings.push(m));
  if (warnings.length || (choice !== 'lexical' && embedder.id === memory.LEXICAL_ID)) {
    console.error(`skipping ${choice}: ${warnings.join('; ')}`);
    continue;
  }
  const dir = mkdtempSync(join(tmpdir(), 'helix-eval-'));
  const store = memory.openMemoryStore({ dbPath: join(dir, 'eval.db'), embedder, env: {}, now: () => new Date('2026-01-15T12:00:00Z'), warn: () => {} });
  const nameOf = new Map();
  const t0 = performance.now();
  for (const m of data.memories) {
    const result = await store.store({ trigger: m.trigger, resolution: m.resolution, type: m.type });
    if (result.status !== 'added') console.error(`${choice}: ${m.id} was ${result.status} (${result.reason}) into ${result.name}`);
    nameOf.set(result.name, nameOf.get(result.name) ?? m.id);
  }
  const storeMs = performance.now() - t0;
  const hybrid = [];
  for (const q of data.queries) {
    const found = await store.recall(q.query, { limit: 10 });
    hybrid.push({ relevant: q.relevant, ranked: found.map((f) => nameOf.get(f.name)), kind: q.kind });
  }
  // The embedder alone: cosine of query and memory text, no BM25, no effectiveness/recency.
  const memVectors = await embedder.embed(data.memories.map((m) => memory.memoryText(m.trigger, m.resolution)));
  const queryVectors = await embedder.embed(data.queries.map((q) => q.query));
  const cosineOnly = data.queries.map((q, i) => ({
    relevant: q.relevant,
    kind: q.kind,
    ranked: data.memories.map((m, j) => [m.id, dot(queryVectors[i], memVectors[j])]).sort((a, b) => b[1] - a[1]).map(([id]) => id),
  }));
  for (const [mode, rankings] of [['hybrid (recall)', hybrid], ['cosine only', cosineOnly]]) {
    const all = metrics(rankings);
    const para = metrics(rankings.filter((r) => r.kind === 'paraphrase'));
    const file = metrics(rankings.filter((r) => r.kind === 'file'));
    rows.push([embedder.id, mode, all.r1, all.r5, all.mrr, para.r1, para.mrr, file.r1]);
  }
  console.error(`${embedder.id}: stored ${data.memories.length} in ${storeMs.toFixed(0)} ms`);

  if (calibrate) {
    const different = [];
    for (let i = 0; i < memVectors.length; i++) for (let j = i + 1; j < memVectors.length; j++) different.push(dot(memVectors[i], memVectors[j]));
    const byId = new Map(data.memories.map((m, i) => [m.id, memVectors[i]]));
    const restated = await embedder.embed(data.restatements.map(([, t, r]) => memory.memoryText(t, r)));
    const same = data.restatements.map(([id], i) => dot(restated[i], byId.get(id)));
    const self = dot(memVectors[0], (await embedder.embed([memory.memoryText(data.memories[0].trigger, data.memories[0].resolution)]))[0]);
    const queryToRelevant = data.queries.map((q, i) => dot(queryVectors[i], byId.get(q.relevant[0])));
    const queryToOthers = data.queries.flatMap((q, i) => data.memories.filter((m) => !q.relevant.includes(m.id)).map((m) => dot(queryVectors[i], byId.get(m.id))));
    console.log(`\ncalibration for ${embedder.id}`);
    console.log(`  identical text cosine:               ${f3(self)}`);
    console.log(`  different problems (${different.length} pairs): max ${f3(Math.max(...different))}  p99 ${f3(quantile(different, 0.99))}  p95 ${f3(quantile(different, 0.95))}  median ${f3(quantile(different, 0.5))}`);
    console.log(`  same problem restated (${same.length}):     min ${f3(Math.min(...same))}  median ${f3(quantile(same, 0.5))}  max ${f3(Math.max(...same))}`);
    console.log(`  query → relevant memory:             min ${f3(Math.min(...queryToRelevant))}  median ${f3(quantile(queryToRelevant, 0.5))}`);
    console.log(`  query → other memories:              p99 ${f3(quantile(queryToOthers, 0.99))}  median ${f3(quantile(queryToOthers, 0.5))}  max ${f3(Math.max(...queryToOthers))}`);
    console.log(`  active thresholds: ${JSON.stringify(memory.thresholdsFor(embedder.id))}`);
  }
  store.close();
  rmSync(dir, { recursive: true, force: true });
}

console.log(`\nmemory retrieval eval: ${data.memories.length} memories, ${data.queries.length} queries (${data.queries.filter((q) => q.kind === 'paraphrase').length} paraphrase, ${data.queries.filter((q) => q.kind === 'keyword').length} keyword, ${data.queries.filter((q) => q.kind === 'file').length} file-path)\n`);
console.log('| embedder | ranking | Recall@1 | Recall@5 | MRR | paraphrase R@1 | paraphrase MRR | file-path R@1 |');
console.log('|---|---|---|---|---|---|---|---|');
for (const [id, mode, ...xs] of rows) console.log(`| ${id} | ${mode} | ${xs.map(f3).join(' | ')} |`);
