#!/usr/bin/env node
// Issue #25's eval: does the store stay silent when it has nothing to say, and does it still find
// what it has? On eval/memory-gate.json (a web shop's store with look-alikes; tasks and file edits
// with and without relevant memories), per embedder:
//   - injection precision: of the memories injected over all items, the share that are relevant;
//   - empty when nothing: the share of tasks and edits no memory is about that inject nothing;
//   - injection recall: of the relevant memories of the items that have some, the share injected;
// and Recall@5 / MRR@10 of `recall` on eval/memory-hard.json (the gate must not cost ranking).
// Tasks go through `store.inject` (objective + files), file edits through the edit hook's own code
// (`openHookMemory(...).recallForFile`), all in-process against a real store in a temp folder.
//
//   npm run build && npm run eval:gate [-- --embedders lexical,use] [-- --split tune|heldout|all]
//        [-- --helix DIR]   evaluate the built dist/ of another checkout (e.g. main, for "before")
//        [-- --sweep]       injection metrics at each gate value (the tune split picks the gate)
//        [-- --items]       what each item injected
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const here = resolve(import.meta.dirname, '..');
const { values: opts } = parseArgs({
  options: {
    embedders: { type: 'string', default: 'lexical,use' },
    split: { type: 'string', default: 'all' },
    helix: { type: 'string', default: here },
    sweep: { type: 'boolean', default: false },
    items: { type: 'boolean', default: false },
    hard: { type: 'boolean', default: true },
    'no-hard': { type: 'boolean', default: false },
  },
});
const helix = resolve(opts.helix);
const memory = await import(join(helix, 'dist/memory/index.js'));
const hooks = await import(join(helix, 'dist/installer/hook-memory.js'));
const { metrics } = await import(join(here, 'scripts/lib/memory-eval.mjs'));
const gate = JSON.parse(readFileSync(join(here, 'eval/memory-gate.json'), 'utf8'));
const hard = JSON.parse(readFileSync(join(here, 'eval/memory-hard.json'), 'utf8'));

const START = Date.parse('2026-02-02T09:00:00Z');
const HOUR = 3_600_000;
const f3 = (x) => (Number.isFinite(x) ? x.toFixed(3) : '–');
const inSplit = (q) => opts.split === 'all' || (opts.split === 'heldout') === Boolean(q.heldout);
const EMPTY_KINDS = new Set(['task-none', 'edit-none']);

/** A real store in a temp folder with `memories` stored `spacing` apart; returns the store and its id map. */
async function buildStore(choice, memories, spacing) {
  const dir = mkdtempSync(join(tmpdir(), 'helix-eval-gate-'));
  const dbPath = join(dir, '.helix', 'helix.db');
  let at = START;
  const warnings = [];
  const env = { HELIX_EMBEDDER: choice };
  const store = memory.openMemoryStore({ dbPath, env, now: () => new Date(at), warn: (m) => warnings.push(m) });
  const embedderId = await store.embedderId();
  if (warnings.length || (choice !== 'lexical' && embedderId.startsWith('lexical'))) {
    store.close();
    rmSync(dir, { recursive: true, force: true });
    return { skipped: warnings.join('; ') || 'fell back to lexical' };
  }
  const idOf = new Map();
  for (const m of memories) {
    const r = await store.store({ trigger: m.trigger, resolution: m.resolution, type: m.type, source: 'eval' });
    if (r.status !== 'added') throw new Error(`${m.id}: ${r.status} ${r.reason}`);
    idOf.set(r.name, m.id);
    at += spacing;
  }
  return { dir, dbPath, env, store, embedderId, idOf, now: () => new Date(at), done: () => rmSync(dir, { recursive: true, force: true }) };
}

/** What each gate item injects: tasks through inject, edits through the hook's recallForFile. */
async function injections(built, minMatch) {
  const { store, idOf } = built;
  const out = [];
  for (const q of gate.queries) {
    let names;
    if (q.kind.startsWith('task')) {
      names = (await store.inject({ objective: q.objective, files: q.files, limit: 5, ...(minMatch === undefined ? {} : { minMatch }) })).injected;
    } else if (minMatch === undefined) {
      const hook = await hooks.openHookMemory(built.dbPath, built.dir, { ...built.env, HELIX_NOW: built.now().toISOString() });
      try {
        names = (await hook.recallForFile(q.file, 5)).map((m) => m.name);
      } finally {
        hook.close();
      }
    } else {
      names = (await store.inject({ objective: q.file, files: [q.file], limit: 5, minMatch })).injected;
    }
    out.push({ ...q, injected: names.map((n) => idOf.get(n) ?? n) });
  }
  return out;
}

/** Precision, empty-when-nothing and recall of a list of items with their injections. */
function injectionMetrics(items) {
  let injected = 0, relevantInjected = 0, relevant = 0, found = 0, empties = 0, nothing = 0;
  for (const q of items) {
    injected += q.injected.length;
    relevantInjected += q.injected.filter((id) => q.relevant.includes(id)).length;
    if (EMPTY_KINDS.has(q.kind)) {
      nothing++;
      if (q.injected.length === 0) empties++;
    } else {
      relevant += q.relevant.length;
      found += q.relevant.filter((id) => q.injected.includes(id)).length;
    }
  }
  return { n: items.length, precision: injected ? relevantInjected / injected : NaN, empty: nothing ? empties / nothing : NaN, recall: relevant ? found / relevant : NaN, injected };
}

/** The calibration objective (fixed before the sweep): the mean of the three rates. */
const objective = (m) => (m.precision + m.empty + m.recall) / 3;

function row(label, m) {
  return `| ${label} | ${m.n} | ${f3(m.precision)} | ${f3(m.empty)} | ${f3(m.recall)} | ${m.injected} | ${f3(objective(m))} |`;
}
const HEADER = '| items | n | injection precision | empty when nothing | injection recall | injected | mean of the three |\n|---|---|---|---|---|---|---|';

async function hardRankings(choice) {
  const built = await buildStore(choice, hard.memories, HOUR);
  if (built.skipped) return undefined;
  const rankings = [];
  for (const q of hard.queries) rankings.push({ ...q, ranked: (await built.store.recall(q.query, { limit: 10 })).map((f) => built.idOf.get(f.name)) });
  built.store.close();
  built.done();
  return rankings;
}

const splitName = { tune: 'tuning items', heldout: 'held-out items', all: 'all items' }[opts.split];
console.log(`memory gate eval (${helix === here ? 'this checkout' : helix}): ${gate.memories.length} memories over 20 days; ${gate.queries.length} items, ${splitName}`);
for (const choice of opts.embedders.split(',')) {
  const built = await buildStore(choice, gate.memories, 12 * HOUR);
  if (built.skipped) {
    console.log(`\nskipping ${choice}: ${built.skipped}`);
    continue;
  }
  console.log(`\n## ${built.embedderId}\n`);
  console.log(HEADER);
  const items = (await injections(built)).filter(inSplit);
  console.log(row('all', injectionMetrics(items)));
  for (const kind of ['task', 'task-none', 'edit', 'edit-none']) console.log(row(kind, injectionMetrics(items.filter((q) => q.kind === kind))));
  if (opts.items) {
    for (const q of items) console.log(`  ${q.id} ${q.kind.padEnd(9)} relevant [${q.relevant.join(', ')}] injected [${q.injected.join(', ')}]`);
  }
  if (opts.sweep) {
    console.log(`\ngate sweep (${splitName}; edits through inject of the file as the hook does; the gate is minMatch):\n`);
    console.log(HEADER.replace('items', 'gate'));
    let best;
    for (let g = 0; g <= 0.801; g += 0.05) {
      const m = injectionMetrics((await injections(built, Number(g.toFixed(2)))).filter(inSplit));
      console.log(row(g.toFixed(2), m));
      if (!best || objective(m) > objective(best.m) + 1e-9) best = { g, m };
    }
    console.log(`\nbest gate on these items (highest mean of the three, the lowest gate on a tie): ${best.g.toFixed(2)}`);
  }
  built.store.close();
  built.done();
  if (!opts['no-hard']) {
    const rankings = await hardRankings(choice);
    const chosen = rankings.filter((q) => opts.split === 'all' || (opts.split === 'heldout') === Boolean(q.heldout));
    const m = metrics(chosen);
    console.log(`\neval/memory-hard.json recall (${splitName.replace('items', 'queries')}, ${m.n}): R@1 ${f3(m.r1)}  R@5 ${f3(m.r5)}  MRR ${f3(m.mrr)}`);
  }
}
