#!/usr/bin/env node
// Retrieval quality of helix memory on the hard set eval/memory-hard.json (issue #13), per
// embedder, against a plain BM25 baseline computed here (k1 1.2, b 0.75 over trigger + resolution
// + the files the memory names; tokens are lower-case letter/digit runs, no stemming, no stop words).
//
// For each embedder: a real store is built in a temp folder through the library API (the memories
// are stored one by one over a week of clock time, as agents would), then every query goes through
// the CLI, one whole `helix memory recall QUERY --limit 10` process each (--in-process: through
// store.recall instead, same code, faster while iterating). File queries are also sent through
// the real `helix hook pre-tool-use` (default embedder only: the hook pins it).
// Prints per-kind R@1 / R@5 / MRR@10, for the tuning queries and the held-out ones separately, and
// the store's false merges / false systemic promotions (every memory in the set is a distinct
// problem) next to its true ones (near-identical duplicates, restatements of one failure).
//
// usage: npm run build && npm run eval:memory [-- --embedders lexical,use,minilm] [-- --in-process]
//        [-- --split tune|heldout|all] [-- --json FILE] [-- --curves] [-- --queries]
//        [-- --env KEY=VALUE]   (extra environment for the store and the recall processes)
//        [-- --assert]   exit 1 unless the default embedder meets #13's goal on all queries
//        [-- --real …]   the relevance gate on the real trackers in ../shared/data instead
//                        (scripts/eval-memory-real.mjs, issue #33)
if (process.argv.includes('--real')) {
  await import('./eval-memory-real.mjs');
  process.exit(0);
}
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const root = new URL('..', import.meta.url).pathname;
const { values: opts } = parseArgs({
  options: {
    embedders: { type: 'string' },
    'in-process': { type: 'boolean', default: false },
    split: { type: 'string', default: 'all' },
    json: { type: 'string' },
    curves: { type: 'boolean', default: false },
    queries: { type: 'boolean', default: false },
    assert: { type: 'boolean', default: false },
    env: { type: 'string', multiple: true, default: [] },
    set: { type: 'string', default: join(root, 'eval/memory-hard.json') },
  },
});
const memory = await import(join(root, 'dist/memory/index.js'));
const { KINDS, bm25Baseline, goalFailures, metrics, openChosenStore, summary } = await import('./lib/memory-eval.mjs');
const data = JSON.parse(readFileSync(opts.set, 'utf8'));
const extraEnv = Object.fromEntries(opts.env.map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
const START = new Date('2026-01-12T09:00:00Z');
const HOUR = 3_600_000;
const f3 = (x) => x.toFixed(3);
const inSplit = (q, split) => split === 'all' || (split === 'heldout') === Boolean(q.heldout) || (split === 'tune' && !q.heldout);

// ---- helix ------------------------------------------------------------------------------------
function helixProcess(args, env, input) {
  const r = spawnSync(process.execPath, [join(root, 'bin/helix'), ...args], { encoding: 'utf8', env, input });
  if (r.status !== 0) throw new Error(`helix ${args.slice(0, 2).join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

async function evaluate(choice) {
  const dir = mkdtempSync(join(tmpdir(), 'helix-eval-'));
  const dbPath = join(dir, '.helix', 'helix.db');
  const env = { ...process.env, HELIX_EMBEDDER: choice, HELIX_DB_PATH: dbPath, ...extraEnv };
  let at = START.getTime();
  const { store, embedderId, skipped } = await openChosenStore(memory, choice, { dbPath, env, now: () => new Date(at) });
  if (skipped) {
    rmSync(dir, { recursive: true, force: true });
    return { choice, skipped };
  }
  // Build: one memory an hour, so the whole set lands inside one 7-day systemic window.
  const idOf = new Map();
  const outcomes = { falseMerges: [], falsePromotions: [] };
  const t0 = performance.now();
  for (const m of data.memories) {
    const r = await store.store({ trigger: m.trigger, resolution: m.resolution, type: m.type, source: 'eval' });
    at += HOUR;
    if (r.status === 'merged') outcomes.falseMerges.push(`${m.id} → ${idOf.get(r.name) ?? r.name}`);
    else if (r.status !== 'added') throw new Error(`${m.id}: ${r.status} ${r.reason}`);
    else {
      idOf.set(r.name, m.id);
      if (store.get(r.name).type !== m.type) outcomes.falsePromotions.push(m.id);
    }
  }
  const storeMs = performance.now() - t0;
  store.close();

  // Queries, through the CLI (or in-process).
  const names = new Map([...idOf].map(([name, id]) => [name, id]));
  const reader = opts['in-process'] ? memory.openMemoryStore({ dbPath, env, now: () => new Date(at), warn: () => {} }) : undefined;
  const queryEnv = { ...env, HELIX_NOW: new Date(at).toISOString() };
  const rankings = [];
  const q0 = performance.now();
  for (const q of data.queries) {
    const found = reader
      ? await reader.recall(q.query, { limit: 10 })
      : JSON.parse(helixProcess(['memory', 'recall', q.query, '--limit', '10'], queryEnv));
    rankings.push({ ...q, ranked: found.map((f) => names.get(f.name) ?? f.name) });
  }
  const queryMs = (performance.now() - q0) / data.queries.length;
  reader?.close();

  // File queries through the pre-tool-use hook, as Claude Code sends them.
  let hook;
  if (choice === 'lexical' && !opts['in-process']) {
    const project = join(dir);
    hook = [];
    for (const q of data.queries.filter((x) => x.kind === 'file')) {
      const payload = JSON.stringify({ tool_name: 'Edit', tool_input: { file_path: join(project, q.query) }, cwd: project });
      const out = helixProcess(['hook', 'pre-tool-use'], { ...queryEnv, HELIX_DB_PATH: '' }, payload);
      const context = out ? JSON.parse(out).hookSpecificOutput.additionalContext : '';
      const ranked = [...context.matchAll(/^- \[[^\]]+\] (\S+?)(?: \(|:)/gm)].map((m) => names.get(m[1]) ?? m[1]);
      hook.push({ ...q, ranked });
    }
  }

  // Merge and promotion checks that should fire: each on a copy of the built store.
  const truth = await trueMergesAndPromotions(dbPath, env, at, idOf);
  rmSync(dir, { recursive: true, force: true });
  return { choice, embedderId, rankings, hook, outcomes, truth, storeMs, queryMs };
}

/** Near-identical duplicates should merge into their original; the 2nd restatement should promote. */
async function trueMergesAndPromotions(dbPath, env, at, idOf) {
  const merged = [];
  const promoted = [];
  const copy = (tag) => {
    const dir = mkdtempSync(join(tmpdir(), `helix-eval-${tag}-`));
    mkdirSync(join(dir, '.helix'));
    const path = join(dir, '.helix', 'helix.db');
    const db = memory.openMemoryStore({ dbPath, env, warn: () => {} });
    db.close();
    writeFileSync(path, readFileSync(dbPath));
    return { dir, store: memory.openMemoryStore({ dbPath: path, env, now: () => new Date(at), warn: () => {} }) };
  };
  {
    const { dir, store } = copy('dup');
    const typeOf = new Map(data.memories.map((m) => [m.id, m.type]));
    for (const d of data.duplicates) {
      const r = await store.store({ trigger: d.trigger, resolution: d.resolution, type: typeOf.get(d.of), source: 'eval' });
      merged.push({ of: d.of, ok: r.status === 'merged' && idOf.get(r.name) === d.of, got: r.status === 'merged' ? idOf.get(r.name) : r.status });
    }
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const groups = new Map();
  for (const r of data.restatements) groups.set(r.of, [...(groups.get(r.of) ?? []), r]);
  for (const [of, restated] of groups) {
    const { dir, store } = copy('sys');
    const results = [];
    for (const r of restated) results.push(await store.store({ trigger: r.trigger, resolution: r.resolution, source: 'eval' }));
    const last = results[results.length - 1];
    promoted.push({ of, ok: last.status === 'added' && store.get(last.name).type === 'systemic', got: results.map((r) => `${r.status}${r.status === 'added' ? `:${store.get(r.name).type}` : ''}`).join(',') });
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { merged, promoted };
}

// ---- run -------------------------------------------------------------------------------------
const choices = opts.embedders?.split(',') ?? ['lexical', 'use', ...(process.env.HELIX_MODEL_PATH ? ['minilm'] : [])];
const results = [];
for (const choice of choices) {
  const r = await evaluate(choice);
  if (r.skipped) console.error(`skipping ${choice}: ${r.skipped}`);
  else results.push(r);
}
const bm25 = bm25Baseline(data.memories);
const baseline = data.queries.map((q) => ({ ...q, ranked: bm25(q.query) }));

const systems = [...results.map((r) => [`helix ${r.embedderId}`, r.rankings]), ['plain BM25 (k1 1.2, b 0.75)', baseline]];
const splits = opts.split === 'all' ? ['tune', 'heldout', 'all'] : [opts.split];
const label = { tune: 'tuning queries', heldout: 'held-out queries', all: 'all queries' };
const out = { set: opts.set.replace(root, ''), memories: data.memories.length, queries: data.queries.length, mode: opts['in-process'] ? 'in-process' : 'whole-process', systems: {} };

const mode = opts['in-process'] ? 'in-process `store.recall`' : 'whole process, one `helix memory recall` each';
console.log(`\nmemory eval: ${data.memories.length} memories, ${data.queries.length} queries (${KINDS.map((k) => `${data.queries.filter((q) => q.kind === k).length} ${k}`).join(', ')}; ${data.queries.filter((q) => q.heldout).length} held out); queries ${mode}`);
for (const split of splits) {
  console.log(`\n${label[split]}:\n`);
  console.log(`| system | R@1 | R@5 | MRR | ${KINDS.map((k) => `${k} R@1 / R@5 / MRR`).join(' | ')} |`);
  console.log(`|---|---|---|---|${KINDS.map(() => '---').join('|')}|`);
  for (const [name, rankings] of systems) {
    const chosen = rankings.filter((q) => split === 'tune' ? !q.heldout : inSplit(q, split));
    const all = metrics(chosen);
    const perKind = Object.fromEntries(KINDS.map((k) => [k, metrics(chosen.filter((q) => q.kind === k))]));
    (out.systems[name] ??= {})[split] = { all, ...perKind };
    console.log(`| ${name} | ${f3(all.r1)} | ${f3(all.r5)} | ${f3(all.mrr)} | ${KINDS.map((k) => `${f3(perKind[k].r1)} / ${f3(perKind[k].r5)} / ${f3(perKind[k].mrr)}`).join(' | ')} |`);
  }
}
for (const r of results) {
  if (r.hook) {
    const chosen = r.hook.filter((q) => opts.split === 'all' || (opts.split === 'tune' ? !q.heldout : q.heldout));
    const m = metrics(chosen);
    out.systems[`helix ${r.embedderId}`].hook = m;
    console.log(`\nfile queries through \`helix hook pre-tool-use\` (${r.embedderId}, ${m.n} queries, at most 5 shown): R@1 ${f3(m.r1)}  R@5 ${f3(m.r5)}  MRR ${f3(m.mrr)}`);
  }
}
console.log('\nstore: merges and systemic promotions (all stored within one week)\n');
console.log('| embedder | false merges | false promotions | duplicates merged into their original | 3rd occurrence promoted to systemic | store ms/memory | recall ms/query |');
console.log('|---|---|---|---|---|---|---|');
for (const r of results) {
  const dup = r.truth.merged.filter((x) => x.ok).length;
  const sys = r.truth.promoted.filter((x) => x.ok).length;
  out.systems[`helix ${r.embedderId}`].store = { falseMerges: r.outcomes.falseMerges, falsePromotions: r.outcomes.falsePromotions, duplicatesMerged: dup, duplicates: r.truth.merged.length, promoted: sys, restated: r.truth.promoted.length };
  console.log(`| ${r.embedderId} | ${r.outcomes.falseMerges.length} | ${r.outcomes.falsePromotions.length} | ${dup}/${r.truth.merged.length} | ${sys}/${r.truth.promoted.length} | ${(r.storeMs / data.memories.length).toFixed(1)} | ${r.queryMs.toFixed(0)} |`);
  for (const x of r.outcomes.falseMerges) console.log(`  false merge (${r.embedderId}): ${x}`);
  for (const x of r.outcomes.falsePromotions) console.log(`  false promotion (${r.embedderId}): ${x}`);
}
if (opts.queries) {
  for (const [name, rankings] of systems) {
    console.log(`\n${name}: queries whose first relevant memory is not first`);
    for (const q of rankings.filter((x) => (opts.split === 'tune' ? !x.heldout : inSplit(x, opts.split)))) {
      const first = q.ranked.findIndex((id) => q.relevant.includes(id));
      if (first !== 0) console.log(`  ${q.id} (${first < 0 ? 'missed' : `rank ${first + 1}`}): ${q.query.slice(0, 70)} → ${q.ranked.slice(0, 3).join(', ')}`);
    }
  }
}
if (opts.curves) await import('./eval-memory-curves.mjs').then((m) => m.printCurves(memory, data, results.map((r) => r.choice), extraEnv));
if (opts.json) writeFileSync(opts.json, `${JSON.stringify(out, null, 2)}\n`);

// #13's goal, for the default embedder (the first one evaluated), on the chosen queries.
const defaultId = results[0] && `helix ${results[0].embedderId}`;
if (defaultId) {
  const pick = (rankings) => rankings.filter((q) => inSplit(q, opts.split));
  const failures = goalFailures(summary(pick(results[0].rankings)), summary(pick(baseline)));
  console.log(failures.length ? `\ngoal NOT met by ${defaultId}: ${failures.join('; ')}` : `\ngoal met by ${defaultId}: Recall@5 ≥ 0.90, MRR ≥ 0.80, and at least the BM25 baseline on every kind`);
  if (opts.assert && failures.length) process.exitCode = 1;
}
