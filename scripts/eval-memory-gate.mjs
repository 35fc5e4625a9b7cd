#!/usr/bin/env node
// The relevance gate's eval (issues #25 and #33): does the store stay silent when nothing fits,
// and does the right memory still reach its bead? Two synthetic sets, per embedder:
//   - eval/memory-gate.json (#25: a web shop, 40 memories): every third item held out; the gate is
//     chosen on its tune split (`--split tune --sweep`) and reported on its held-out split;
//   - eval/memory-beads.json (#33: a fleet-delivery SaaS, 51 memories with two systemic rows, beads
//     as the tracker holds them): written before any measurement as a test set; split after the
//     first design's one measurement (its `about` says how), every second item held out.
// Beads go through the run's own injection path (the supervisor's memory port), file edits
// through the edit hook's code (scripts/lib/gate-eval.mjs). Printed: precision, silence and gold
// recall for beads and for hooks apart, each against the issue's goal; where each systemic row
// went; how many gold memories six honest rounds of feedback push under the prune line (erosion);
// and Recall@5 / MRR@10 of the ungated `recall` on eval/memory-hard.json.
// `npm run eval:memory -- --real` prints the same figures for the real trackers beside these.
//
//   npm run build && npm run eval:gate [-- --embedders lexical,use] [-- --split heldout|tune|all]
//        [-- --sets gate,beads]  which sets (default both)
//        [-- --helix DIR]        evaluate the built dist/ of another checkout (e.g. main, for "before")
//        [-- --sweep]            figures at each gate value on the chosen split of the chosen sets
//                                together, and the gate the calibration rule picks there
//        [-- --items]            what each item got
//        [-- --no-hard]          skip the hard set
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { GOALS, SYNTHETIC_SPACING, SYNTHETIC_START, beadInjections, buildStore, evaluateSet, f3, figuresTable, helixModules, hookInjections, inSplit, injectionFigures, syntheticItems, systemicPlacement } from './lib/gate-eval.mjs';

const here = resolve(import.meta.dirname, '..');
const { values: opts } = parseArgs({
  options: {
    embedders: { type: 'string', default: 'lexical,use' },
    split: { type: 'string', default: 'heldout' },
    sets: { type: 'string', default: 'gate,beads' },
    helix: { type: 'string', default: here },
    sweep: { type: 'boolean', default: false },
    items: { type: 'boolean', default: false },
    'no-hard': { type: 'boolean', default: false },
  },
});
const helix = resolve(opts.helix);
const mods = await helixModules(helix);
const { metrics } = await import(join(here, 'scripts/lib/memory-eval.mjs'));
const read = (name) => JSON.parse(readFileSync(join(here, 'eval', name), 'utf8'));
const hard = read('memory-hard.json');

const splitName = { tune: 'tuning items', heldout: 'held-out items', all: 'all items' }[opts.split];
if (!splitName) throw new Error('--split must be tune, heldout or all');

const SETS = {
  gate: { file: 'memory-gate.json', label: `eval/memory-gate.json (#25), ${splitName}`, filter: inSplit(opts.split) },
  beads: { file: 'memory-beads.json', label: `eval/memory-beads.json (#33), ${splitName}`, filter: inSplit(opts.split) },
};

async function report(choice, key) {
  const spec = SETS[key];
  const set = read(spec.file);
  const { beads, edits } = syntheticItems(set, spec.filter);
  const r = await evaluateSet(mods, choice, { memories: set.memories, beads, edits, start: SYNTHETIC_START, spacing: SYNTHETIC_SPACING });
  if (r.skipped) return r;
  console.log(`\n### ${spec.label}: ${set.memories.length} memories; ${beads.length} beads, ${edits.length} edits\n`);
  console.log(figuresTable([
    { label: 'beads (port inject)', figures: r.bf, kind: 'beads' },
    { label: 'hooks (edit hook)', figures: r.hf, kind: 'hooks' },
    { label: 'all', figures: injectionFigures([...r.beadItems, ...r.hookItems]), kind: 'all' },
  ]));
  const systemic = set.memories.filter((m) => m.type === 'systemic').map((m) => m.id);
  if (systemic.length) {
    console.log('\nsystemic rows (the items each was injected into; "does not fit": not among the item\'s relevant memories):');
    for (const s of systemicPlacement([...r.beadItems, ...r.hookItems], systemic)) {
      console.log(`  ${s.id}: fits ${s.fits} items, reached ${s.reached}; injected where it does not fit: ${s.misplaced} — [${s.injectedInto.join(', ')}]`);
    }
  }
  if (opts.items) for (const q of [...r.beadItems, ...r.hookItems]) console.log(`  ${q.id.padEnd(4)} ${q.kind} relevant [${q.relevant.join(', ')}] injected [${q.injected.join(', ')}]`);
  const e = r.eroded;
  console.log(`\nerosion: ${e.eroded.length}/${e.goldMemories} gold memories under the prune line after ${e.rounds} honest rounds${e.eroded.length ? ` (${e.eroded.join(', ')})` : ''}${e.eroded.length <= GOALS.eroded ? ' ✓' : ' ✗'}`);
  if (opts.sweep) r.sweep = await sweepSet(choice, set, beads, edits);
  return r;
}

/**
 * The calibration rule, fixed before the sweep: among the gates that meet the precision and
 * silence goals for beads and hooks, the one with the highest bead gold recall (the lowest on a
 * tie); when none meets them, the highest mean of the six figures.
 */
function pick(rows) {
  const meets = (r) => r.bf.precision >= GOALS.precision && r.hf.precision >= GOALS.precision && r.bf.silence >= GOALS.beadSilence && r.hf.silence >= GOALS.hookSilence;
  const mean = (r) => [r.bf.precision, r.bf.silence, r.bf.recall, r.hf.precision, r.hf.silence, r.hf.recall].map((x) => (Number.isFinite(x) ? x : 0)).reduce((a, b) => a + b, 0) / 6;
  const qualified = rows.filter(meets);
  if (qualified.length) return { rule: 'meets every precision and silence goal, highest bead recall', row: qualified.reduce((best, r) => (r.bf.recall > best.bf.recall + 1e-9 ? r : best)) };
  return { rule: 'none meets the goals: highest mean of the six figures', row: rows.reduce((best, r) => (mean(r) > mean(best) + 1e-9 ? r : best)) };
}

const GATES = Array.from({ length: 17 }, (_, i) => Number((i * 0.05).toFixed(2)));

/** Each gate's bead and hook injections on one set's items (same store, the gate as minMatch). */
async function sweepSet(choice, set, beads, edits) {
  const built = await buildStore(mods, choice, set.memories, { start: SYNTHETIC_START, spacing: SYNTHETIC_SPACING });
  const out = [];
  for (const gate of GATES) out.push({ gate, beads: await beadInjections(mods, built, beads, { minMatch: gate }), hooks: await hookInjections(mods, built, edits, { minMatch: gate }) });
  built.store.close();
  built.done();
  return out;
}

/** The sweep over the chosen sets' items together: the figures at each gate and the rule's pick. */
function printSweep(perSet) {
  console.log(`\ngate sweep (${splitName} of ${opts.sets}; beads through the port's steps, edits through the hook's query, with the gate as minMatch):\n`);
  console.log('| gate | bead precision | bead silence | bead recall | hook precision | hook silence | hook recall |\n|---|---|---|---|---|---|---|');
  const rows = GATES.map((gate, i) => {
    const bf = injectionFigures(perSet.flatMap((s) => s[i].beads));
    const hf = injectionFigures(perSet.flatMap((s) => s[i].hooks));
    console.log(`| ${gate.toFixed(2)} | ${f3(bf.precision)} | ${f3(bf.silence)} | ${f3(bf.recall)} | ${f3(hf.precision)} | ${f3(hf.silence)} | ${f3(hf.recall)} |`);
    return { gate, bf, hf };
  });
  const { rule, row } = pick(rows);
  console.log(`\ngate the calibration rule picks on these items (${rule}): ${row.gate.toFixed(2)}`);
}

async function hardRankings(choice) {
  const built = await buildStore(mods, choice, hard.memories, { start: SYNTHETIC_START, spacing: 3_600_000 });
  if (built.skipped) return undefined;
  const rankings = [];
  const idOf = (name) => [...(built.idsOf.get(name) ?? [])][0];
  for (const q of hard.queries) rankings.push({ ...q, ranked: (await built.store.recall(q.query, { limit: 10 })).map((f) => idOf(f.name)) });
  built.store.close();
  built.done();
  return rankings;
}

console.log(`memory gate eval (${helix === here ? 'this checkout' : helix}); goals: precision ≥ ${GOALS.precision} (beads and hooks each), silence ≥ 12/15 on beads and ≥ 6/7 on hooks, bead gold recall ≥ ${GOALS.beadRecall}, nothing eroded`);
for (const choice of opts.embedders.split(',')) {
  let header = false;
  const sweeps = [];
  for (const key of opts.sets.split(',')) {
    if (!SETS[key]) throw new Error(`unknown set ${key}: gate or beads`);
    const probe = await buildStore(mods, choice, [], { start: SYNTHETIC_START });
    if (probe.skipped) {
      console.log(`\nskipping ${choice}: ${probe.skipped}`);
      break;
    }
    if (!header) console.log(`\n## ${probe.embedderId}`);
    header = true;
    probe.store.close();
    probe.done();
    const r = await report(choice, key);
    if (r.sweep) sweeps.push(r.sweep);
  }
  if (sweeps.length) printSweep(sweeps);
  if (header && !opts['no-hard']) {
    const chosen = (await hardRankings(choice)).filter(inSplit(opts.split));
    const m = metrics(chosen);
    console.log(`\neval/memory-hard.json recall, ungated (${splitName.replace('items', 'queries')}, ${m.n}): R@1 ${f3(m.r1)}  R@5 ${f3(m.r5)}  MRR ${f3(m.mrr)}`);
  }
}
