#!/usr/bin/env node
// `npm run eval:memory -- --real`: the relevance gate on real data (issue #33). The two real DDx
// trackers in ../shared/data — DDx's own and HELIX's — become a store of the lessons closed in the
// first half of their history and the beads filed in the second half, by the rule of
// scripts/lib/real-beads.mjs (docs/memory.md states it). Every bead goes through the run's memory
// port, every file a bead names through the edit hook, then six honest rounds of feedback; the
// figures are printed beside the synthetic sets' (eval:gate's held-out and test sets).
//
//   npm run build && npm run eval:memory -- --real [--embedders lexical,use] [--data DIR]
//        [--trackers helix,ddx] [--no-synthetic] [--items]   (--items: each task's gold and injection)
//        [--helix DIR]   the built dist/ of another checkout (e.g. main, for "before"); the rule
//                        (which lessons fit which beads) is this checkout's either way
//        [--write-slice FILE]   write HELIX's tune items and their beads (the test's fixture)
//        [--silence-only]   only the larger silence split (issue #39, scripts/eval-memory-silence.mjs)
//        [--disambiguation-only] [--misses]   only the disambiguation table (issue #39,
//                        scripts/eval-memory-disambiguation.mjs); --misses: the items whose gold is not first
//        [--split tune|heldout|all]   the disambiguation items of one half only (ranked and printed)
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { GOALS, SYNTHETIC_SPACING, SYNTHETIC_START, evaluateSet, f3, figuresTable, helixModules, inSplit, injectionFigures, syntheticItems } from './lib/gate-eval.mjs';
import { readTracker, realSet, recallByLink } from './lib/real-beads.mjs';
import { KINDS, disambiguationSet, disambiguationTable, misses, rankItems, slice, stemmer } from './eval-memory-disambiguation.mjs';
import { silenceSet } from './eval-memory-silence.mjs';

const here = resolve(import.meta.dirname, '..');
const { values: opts } = parseArgs({
  options: {
    real: { type: 'boolean', default: true },
    embedders: { type: 'string', default: 'lexical' },
    helix: { type: 'string', default: here },
    data: { type: 'string' },
    trackers: { type: 'string', default: 'helix,ddx' },
    'no-synthetic': { type: 'boolean', default: false },
    items: { type: 'boolean', default: false },
    'disambiguation-only': { type: 'boolean', default: false },
    misses: { type: 'boolean', default: false },
    'write-slice': { type: 'string' },
    'silence-only': { type: 'boolean', default: false },
    'tune-misses': { type: 'boolean', default: false },
    split: { type: 'string', default: 'all' },
  },
});
// The real trackers sit next to the checkout (as tests/faults/files.test.ts finds them).
const data = opts.data ? resolve(opts.data) : [resolve(here, '../shared/data'), resolve(here, '../../shared/data')].find((dir) => existsSync(dir));
if (!['all', 'tune', 'heldout'].includes(opts.split)) {
  console.error('eval:memory --real: --split is tune, heldout or all');
  process.exit(2);
}
// --split tune: the disambiguation items of the tune half only, ranked and printed (the held-out
// half never computed), so a change can be designed on the tune half's misses alone.
const inDisambiguationSplit = (q) => opts.split === 'all' || (opts.split === 'heldout') === Boolean(q.heldout);
if (!data) {
  console.error('eval:memory --real: no ../shared/data next to this checkout (pass --data DIR)');
  process.exit(2);
}
const TRACKERS = { helix: 'helix-beads-1553a431.jsonl', ddx: 'ddx-beads-ae663ca012.jsonl' };
const helix = resolve(opts.helix);
const mods = await helixModules(helix);
const helpers = {
  filePatterns: (await import(join(here, 'dist/memory/files.js'))).filePatterns,
  namedIdentifiers: (await import(join(here, 'dist/memory/values.js'))).namedIdentifiers,
};

// Near-duplicates told apart by a detail (issue #39): one table per embedder, both trackers.
const stopwords = (await import(join(here, 'dist/memory/text.js'))).STOPWORDS;
// Silence out of sample (issue #39): beads nothing fits and beads with near-duplicate lessons,
// through the run's memory port, tune and held-out halves by time.
if (!opts['disambiguation-only']) {
  const stems = stemmer();
  for (const choice of opts.embedders.split(',')) {
    const lines = [];
    for (const key of opts.trackers.split(',')) {
      const beads = readTracker(join(data, TRACKERS[key]));
      const set = silenceSet(beads, { stopwords, stem: stems.stem, ...helpers });
      const r = await evaluateSet(mods, choice, { memories: set.memories, beads: set.items, edits: [], strict: false, now: Date.parse(set.T), rounds: 0 });
      if (r.skipped) break;
      const fits = set.items.filter((q) => q.relevant.length).length;
      console.log(`\n### silence split, ${key} (${r.embedderId}): ${set.memories.length} lessons closed before ${set.T}; ${set.items.length} later beads: ${fits} with near-duplicate lessons, ${set.items.length - fits} nothing fits (${set.between} related to a lesson but a near-duplicate of none, left out)\n`);
      for (const [split, pick] of [['tune', (q) => !q.heldout], ['held-out', (q) => q.heldout]]) {
        const chosen = r.beadItems.filter(pick);
        console.log(`${split}: ${figuresTable([{ label: 'beads (port inject)', figures: injectionFigures(chosen), kind: 'beads' }]).split('\n').slice(2).join('')}`);
        if (opts.misses && (split === 'held-out') === !opts['tune-misses']) {
          for (const q of chosen) {
            const wrong = q.injected.filter((id) => !q.relevant.includes(id));
            const missed = q.relevant.filter((id) => !q.injected.includes(id));
            if (wrong.length || (q.relevant.length && missed.length === q.relevant.length)) console.log(`  ${q.id} ${q.relevant.length ? `gold [${q.relevant.join(', ')}]` : 'nothing fits'} got [${q.injected.join(', ')}] — ${q.bead.title.slice(0, 70)}`);
          }
        }
      }
      lines.push(r);
    }
  }
  stems.close();
}
if (opts['silence-only']) process.exit(0);
if (opts['write-slice']) {
  const beads = readTracker(join(data, TRACKERS.helix));
  const tune = disambiguationSet(beads, { stopwords }).items.filter((q) => !q.heldout);
  writeFileSync(opts['write-slice'], `${JSON.stringify(slice(beads, tune), null, 1)}\n`);
  console.log(`wrote the ${tune.length} tune items' beads to ${opts['write-slice']}`);
  process.exit(0);
}
for (const choice of opts.embedders.split(',')) {
  const rows = [];
  const counts = [];
  for (const key of opts.trackers.split(',')) {
    const beads = readTracker(join(data, TRACKERS[key]));
    const whole = disambiguationSet(beads, { stopwords });
    const set = { ...whole, items: whole.items.filter(inDisambiguationSplit) };
    const r = await rankItems(mods, choice, set);
    if (r.skipped) break;
    counts.push(`${key}: ${whole.items.length} items from ${set.groups} groups of near-duplicates (${KINDS.map((k) => `${whole.items.filter((q) => q.kind === k).length} ${k}`).join(', ')}; ${whole.items.filter((q) => q.heldout).length} held out${opts.split === 'all' ? '' : `; ranked: the ${opts.split} half`}), ${set.memories.length} lessons`);
    rows.push({ label: `${key} (${r.embedderId})`, items: r.items });
    if (opts.misses) {
      const title = new Map(beads.map((b) => [b.id, b.title]));
      console.log(`\n${key} (${r.embedderId}): items whose gold is not first\n${misses(r.items, (id) => title.get(id) ?? id).join('\n')}`);
    }
  }
  if (rows.length === 0) continue;
  const all = rows.flatMap((r) => r.items);
  console.log(`\n## Near-duplicates told apart by a detail (${choice}): R@1 / R@5 (a gold lesson in the top 5) / MRR, (items)\n\n${counts.join('\n')}\n`);
  console.log(disambiguationTable([...rows, ...(rows.length > 1 ? [{ label: 'both trackers', items: all }] : [])]));
}
if (opts['disambiguation-only']) process.exit(0);

const summary = [];
const row = (set, r) => {
  const e = r.eroded;
  const beadSilence = r.bf.nothing ? `${r.bf.silent}/${r.bf.nothing} = ${f3(r.bf.silence)}` : '–';
  const hookSilence = r.hf.nothing ? `${r.hf.silent}/${r.hf.nothing} = ${f3(r.hf.silence)}` : '–';
  summary.push(`| ${set} | ${f3(r.bf.precision)} | ${f3(r.hf.precision)} | ${beadSilence} | ${hookSilence} | ${r.bf.found}/${r.bf.gold} = ${f3(r.bf.recall)} | ${e.eroded.length}/${e.goldMemories} |`);
};

for (const choice of opts.embedders.split(',')) {
  console.log(`\n## embedder ${choice}`);
  for (const key of opts.trackers.split(',')) {
    const file = TRACKERS[key];
    if (!file) throw new Error(`unknown tracker ${key}: helix or ddx`);
    const set = realSet(readTracker(join(data, file)), helpers);
    const gold = set.beads.reduce((n, b) => n + b.relevant.length, 0);
    const r = await evaluateSet(mods, choice, { memories: set.memories, beads: set.beads, edits: set.edits, strict: false, now: Date.parse(set.T) });
    if (r.skipped) {
      console.log(`skipping ${choice}: ${r.skipped}`);
      break;
    }
    console.log(`\n### ${file} (${r.embedderId}): split at ${set.T}`);
    console.log(`${set.lessons.length} lessons closed before the split (stored: ${r.statuses.added} added, ${r.statuses.merged} merged into an earlier one, ${r.statuses.rejected} rejected); ${set.tasks.length} later beads, ${set.beads.filter((b) => b.relevant.length).length} with a fitting lesson (${gold} pairs: ${[...set.reasons].map(([k, n]) => `${n} by ${k}`).join(', ')}), ${set.beads.filter((b) => !b.relevant.length).length} with none; ${set.edits.length} hook events (files the later beads name, at most 3 each). Distinctive: named by at most ${set.distinctiveLimit} beads.\n`);
    console.log(figuresTable([
      { label: 'beads (port inject)', figures: r.bf, kind: 'beads' },
      { label: 'hooks (edit hook)', figures: r.hf, kind: 'hooks' },
    ]));
    console.log(`\npairs reaching their bead, by what links them (uncapped): ${[...recallByLink(r.beadItems)].map(([k, v]) => `${k} ${v.reached}/${v.pairs}`).join(', ')}`);
    const e = r.eroded;
    console.log(`\nerosion: ${e.eroded.length}/${e.goldMemories} gold lessons under the prune line after ${e.rounds} honest rounds${e.eroded.length ? ` (${e.eroded.slice(0, 10).join(', ')}${e.eroded.length > 10 ? ', …' : ''})` : ''}${e.eroded.length <= GOALS.eroded ? ' ✓' : ' ✗'}`);
    if (opts.items) for (const q of r.beadItems) if (q.relevant.length || q.injected.length) console.log(`  ${q.id} gold ${q.relevant.length} [${q.relevant.slice(0, 6).join(', ')}${q.relevant.length > 6 ? ', …' : ''}] injected [${q.injected.join(', ')}] — ${q.bead.title.slice(0, 80)}`);
    row(`${key} (real, ${r.embedderId})`, r);
  }
  if (!opts['no-synthetic']) {
    const read = (name) => JSON.parse(readFileSync(join(here, 'eval', name), 'utf8'));
    for (const [label, name, filter] of [['memory-gate.json held-out', 'memory-gate.json', inSplit('heldout')], ['memory-beads.json held-out', 'memory-beads.json', inSplit('heldout')]]) {
      const set = read(name);
      const r = await evaluateSet(mods, choice, { memories: set.memories, ...syntheticItems(set, filter), start: SYNTHETIC_START, spacing: SYNTHETIC_SPACING });
      if (!r.skipped) row(`${label} (${r.embedderId})`, r);
    }
  }
}

console.log(`\nhelix: ${helix === here ? 'this checkout' : helix}`);
console.log(`\n## beside each other (goals: precision ≥ ${GOALS.precision}, silence ≥ 12/15 beads and 6/7 hooks, gold recall ≥ ${GOALS.beadRecall}, nothing eroded)\n`);
console.log('| set | bead precision | hook precision | bead silence | hook silence | bead gold recall | eroded |\n|---|---|---|---|---|---|---|');
for (const line of summary) console.log(line);
