#!/usr/bin/env node
// `npm run sim:learning`: does helix's learning loop help when success depends on what a memory
// SAYS? A simulation through the REAL helix — bin/helix run, its tracker, its SQLite memory
// store, a real temp git repo per arm and a real check command per bead — with a stand-in agent
// that reads the injected memories and decides by their text (scripts/sim/, docs/learning.md).
//
// Each task family needs one fact (a config value) that the agent cannot guess; memories carry
// facts: wrong ones seeded as imported notes, right ones the run learns (LEARNED lines, failure
// records), stale ones once the world changes mid-run. Arms: memory off, and memory on with an
// honest, an over-claiming and a silent (no UTILIZED) agent. The claims are judged on 95%
// intervals over seeds and printed PASS/FAIL; `--ablate <mechanism>` runs the same with one helix
// mechanism switched off (scripts/sim/ablations.mjs) and checks that the matching claim fails.
//
//   node scripts/sim-learning.mjs [--seeds 6 | --seed-list 1,2,3] [--families 6] [--rounds 12]
//        [--change-at 7] [--change-share 0.33] [--misleading 2] [--crowded-misleading 6] [--neighbours 3]
//        [--p-discover 0.3] [--slip 0.1] [--claims gain,misleading,stale,overclaim,fair]
//        [--ablate learn|ranking|decay|gating|credit] [--arms …] [--jobs 2]
//        [--svg curves.svg] [--sweep [--svg-dir dir]] [--json] [--save run.json]
//   node scripts/sim-learning.mjs --docs   the plain run, every ablation and the sweep, written to
//        docs/learning-results.md and the docs/learning-*.svg plots (the only way anything in
//        docs/ is written, so the figures there always come from one run of this command)
// Exit: 0 when every claim passes (with --ablate: when the ablated mechanism's claim fails; with
// --docs: both, for every claim and ablation), 1 otherwise, 2 on an error.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ABLATIONS } from './sim/ablations.mjs';
import { ARMS, installAgent, runArm } from './sim/engine.mjs';
import { CLAIMS, armMetrics, interval, judgeClaims, lineChart, renderArmTable, showInterval } from './sim/report.mjs';
import { FAMILIES } from './sim/world.mjs';

const ROOT = resolve(import.meta.dirname, '..');

/** Bars the claims must clear (on the interval, not the mean). */
export const MARGINS = {
  gain: 0.05,
  misleadingEffectiveness: 0.25,
  rightShown: 0.95,
  staleDrop: 0.1,
  staleFollowed: 0.25,
  overclaimGap: 0.1,
};

function parseOptions(argv) {
  const known = new Set(['--seeds', '--seed-list', '--families', '--rounds', '--change-at', '--change-share', '--misleading', '--crowded-misleading', '--neighbours', '--p-discover', '--slip', '--arms', '--claims', '--ablate', '--jobs', '--svg', '--svg-dir', '--sweep', '--docs', '--json', '--embedder', '--save']);
  for (const arg of argv) if (arg.startsWith('--') && !known.has(arg)) throw new Error(`unknown option ${arg}`);
  const value = (name, fallback) => {
    const at = argv.indexOf(name);
    return at >= 0 && argv[at + 1] !== undefined ? argv[at + 1] : fallback;
  };
  const number = (name, fallback) => {
    const n = Number(value(name, fallback));
    if (!Number.isFinite(n)) throw new Error(`${name} expects a number`);
    return n;
  };
  const seeds = argv.includes('--seed-list')
    ? value('--seed-list', '').split(',').filter(Boolean).map(Number)
    : Array.from({ length: number('--seeds', 6) }, (_, i) => i + 1);
  const ablate = value('--ablate', undefined);
  if (ablate !== undefined && !ABLATIONS[ablate]) throw new Error(`unknown ablation ${ablate}: one of ${Object.keys(ABLATIONS).join(', ')}`);
  // Which claims to judge (with --ablate: the one its mechanism is tested by), and so which arms to run.
  const ablated = Object.keys(CLAIMS).find((k) => CLAIMS[k].mechanism === ablate);
  const claims = value('--claims', ablated ?? Object.keys(CLAIMS).join(',')).split(',');
  for (const c of claims) if (!CLAIMS[c]) throw new Error(`unknown claim ${c}: one of ${Object.keys(CLAIMS).join(', ')}`);
  const needed = new Set(claims.flatMap((c) => CLAIMS[c].arms));
  if (!argv.includes('--claims') && !ablate) needed.add('silent'); // reported, no claim of its own
  const arms = argv.includes('--arms') ? value('--arms', '').split(',') : ARMS.map((a) => a.key).filter((k) => needed.has(k));
  for (const a of arms) if (!ARMS.some((arm) => arm.key === a)) throw new Error(`unknown arm ${a}`);
  const config = {
    families: number('--families', 6),
    rounds: number('--rounds', 12),
    changeAt: number('--change-at', 7),
    changeShare: number('--change-share', 1 / 3),
    misleading: number('--misleading', 2),
    crowdedMisleading: number('--crowded-misleading', 6),
    neighbours: number('--neighbours', 3),
    pDiscover: number('--p-discover', 0.3),
    slip: number('--slip', 0.1),
    embedder: value('--embedder', 'lexical'),
    ablate,
  };
  if (config.families < 1 || config.families > FAMILIES.length) throw new Error(`--families must be 1..${FAMILIES.length}`);
  if (config.changeAt < 2 || config.changeAt > config.rounds) throw new Error('--change-at must be within 2..rounds');
  const docs = argv.includes('--docs');
  if (docs && argv.some((a) => a.startsWith('--') && !['--docs', '--jobs'].includes(a))) {
    throw new Error('--docs runs the documented defaults; it takes only --jobs');
  }
  return {
    config,
    seeds,
    arms,
    jobs: Math.max(1, number('--jobs', 2)),
    svg: argv.includes('--svg') ? resolve(value('--svg', '')) : undefined,
    svgDir: argv.includes('--svg-dir') ? resolve(value('--svg-dir', '')) : undefined,
    sweep: argv.includes('--sweep'),
    docs,
    claims,
    json: argv.includes('--json'),
    save: argv.includes('--save') ? resolve(value('--save', 'sim-learning.json')) : undefined,
  };
}

function ensureBuilt() {
  if (existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) return;
  const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (tsc.status !== 0) throw new Error('the build failed; run `npm run build` and retry');
}

/** Runs jobs (functions returning promises) at most `limit` at a time, in order of results. */
async function pool(jobs, limit) {
  const results = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      results[i] = await jobs[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return results;
}

/**
 * Every (config, seed, arm) run, `jobs` at a time, each in its own temp folder. Returns per seed
 * the metrics of each arm and its per-round rates.
 */
async function simulate(runs, jobs, memory) {
  const work = mkdtempSync(join(tmpdir(), 'helix-sim-learning-'));
  try {
    installAgent(work);
    return await pool(
      runs.map((r, i) => async () => {
        const armWork = join(work, String(i));
        mkdirSync(armWork);
        const arm = ARMS.find((a) => a.key === r.arm);
        const config = arm.crowded ? { ...r.config, misleading: r.config.crowdedMisleading } : r.config;
        const result = await runArm(arm, { ...config, seed: r.seed }, armWork, memory, join(work, 'bin'));
        rmSync(armWork, { recursive: true, force: true });
        return { ...r, metrics: armMetrics(result, config), rounds: result.rounds };
      }),
      jobs,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Results grouped by seed: [{ seed, arms: { key: metrics }, rounds: { key: rounds } }]. */
function bySeed(results) {
  const seeds = new Map();
  for (const r of results) {
    const s = seeds.get(r.seed) ?? { seed: r.seed, arms: {}, rounds: {} };
    s.arms[r.arm] = r.metrics;
    s.rounds[r.arm] = r.rounds;
    seeds.set(r.seed, s);
  }
  return [...seeds.values()];
}

const COLOURS = { off: '#888888', honest: '#1f77b4', overclaim: '#d62728', silent: '#2ca02c' };

function curvesSvg(seeds, config, arms) {
  const series = ARMS.filter((a) => arms.includes(a.key) && !a.crowded && !a.neighbours).map((arm) => ({
    label: arm.label,
    colour: COLOURS[arm.key],
    points: Array.from({ length: config.rounds }, (_, i) => {
      const rates = seeds.map((s) => s.rounds[arm.key][i]).map((r) => r.completed / r.attempted);
      const ci = interval(rates);
      return { x: i + 1, y: ci.mean, low: ci.low, high: ci.high };
    }),
  }));
  return lineChart({
    title: `Success rate per round, mean and 95% interval over ${seeds.length} seeds`,
    xLabel: `round (the world changes at round ${config.changeAt} for ${Math.round(config.changeShare * 100)}% of the families)`,
    yLabel: 'completed / attempted',
    xTicks: Array.from({ length: config.rounds }, (_, i) => ({ x: i + 1, label: String(i + 1) })),
    series,
    notes: [`npm run sim:learning: ${config.families} families, ${config.misleading} misleading memories each, p_discover ${config.pDiscover}, slip ${config.slip}${config.ablate ? `, ablation ${config.ablate}` : ''}`],
  });
}

function report(seeds, claims, options, seconds) {
  const c = options.config;
  const out = [];
  out.push(`helix learning simulation: ${seeds.length} seeds (${seeds.map((s) => s.seed).join(', ')}), ${c.families} families, ${c.rounds} rounds, world change at round ${c.changeAt} for ${Math.round(c.changeShare * 100)}% of the families, ${c.misleading} misleading memories a family (crowded: ${c.crowdedMisleading}), ${c.neighbours} valid neighbours a family (neighbours arm), p_discover ${c.pDiscover}, slip ${c.slip}, embedder ${c.embedder} (${(seconds / 60).toFixed(1)} min)`);
  if (c.ablate) out.push(`ABLATION ${c.ablate}: ${ABLATIONS[c.ablate]}`);
  out.push('');
  out.push(renderArmTable(seeds, ARMS.filter((a) => options.arms.includes(a.key))));
  out.push('');
  out.push('Claims (mean [95% interval over seeds]; a claim passes only if its interval clears the bar):');
  for (const claim of claims) out.push(`${claim.holds ? 'PASS' : 'FAIL'}  ${claim.claim} (mechanism: ${claim.mechanism})\n      ${claim.value}`);
  return out.join('\n');
}

async function runSweep(options, memory) {
  const base = options.config;
  const seeds = options.seeds;
  const pValues = [0.1, 0.3, 0.5, 0.7, 0.9];
  const mValues = [0, 2, 4, 6];
  const runs = [];
  if (!pValues.includes(base.pDiscover)) throw new Error(`--sweep needs --p-discover to be one of ${pValues.join(', ')}`);
  for (const seed of seeds) {
    for (const p of pValues) for (const arm of ['off', 'honest']) runs.push({ seed, arm, config: { ...base, pDiscover: p }, axis: 'p', x: p });
    // The misleading axis at the base p_discover; its point at the base count is the p axis's.
    for (const m of mValues) if (m !== base.misleading) runs.push({ seed, arm: 'honest', config: { ...base, misleading: m }, axis: 'm', x: m });
  }
  const started = performance.now();
  const results = await simulate(runs, options.jobs, memory);
  const find = (axis, arm, seed, x) => results.find((r) => r.axis === axis && r.arm === arm && r.seed === seed && r.x === x).metrics.success;
  const off = (seed, p) => find('p', 'off', seed, p);
  const honestAt = (axis, x, seed) => (axis === 'm' && x === base.misleading ? find('p', 'honest', seed, base.pDiscover) : find(axis, 'honest', seed, x));
  const gainP = pValues.map((p) => ({ x: p, ...interval(seeds.map((s) => honestAt('p', p, s) - off(s, p))) }));
  const gainM = mValues.map((m) => ({ x: m, ...interval(seeds.map((s) => honestAt('m', m, s) - off(s, base.pDiscover))) }));
  const point = (g) => ({ x: g.x, y: g.mean, low: g.low, high: g.high });
  const note = `npm run sim:learning -- --sweep: ${seeds.length} seeds, ${base.families} families, ${base.rounds} rounds, slip ${base.slip}`;
  const charts = {
    'learning-sweep-fact.svg': lineChart({
      title: 'Gain from memory vs how much the right fact helps',
      xLabel: `p_discover: chance the agent finds the fact without memory (${base.misleading} misleading memories a family)`,
      yLabel: 'success on − off',
      yMin: -0.4,
      yMax: 0.6,
      xTicks: pValues.map((p) => ({ x: p, label: String(p) })),
      series: [{ label: 'honest agent − memory off', colour: COLOURS.honest, points: gainP.map(point) }],
      notes: [note, 'Bars: 95% interval over seeds.'],
    }),
    'learning-sweep-misleading.svg': lineChart({
      title: 'Gain from memory vs misleading memories per family',
      xLabel: `seeded misleading memories per family (p_discover ${base.pDiscover})`,
      yLabel: 'success on − off',
      yMin: -0.4,
      yMax: 0.6,
      xTicks: mValues.map((m) => ({ x: m, label: String(m) })),
      series: [{ label: 'honest agent − memory off', colour: COLOURS.honest, points: gainM.map(point) }],
      notes: [note, 'Bars: 95% interval over seeds.'],
    }),
  };
  const lines = [`sweep (${((performance.now() - started) / 60000).toFixed(1)} min, ${seeds.length} seeds): gain = success(honest) − success(off), mean [95% interval over seeds]`, '', '| p_discover | gain |', '|---:|---:|'];
  for (const g of gainP) lines.push(`| ${g.x} | ${showInterval(g)} |`);
  lines.push('', `| misleading a family (p_discover ${base.pDiscover}) | gain |`, '|---:|---:|');
  for (const g of gainM) lines.push(`| ${g.x} | ${showInterval(g)} |`);
  return { text: lines.join('\n'), gainP, gainM, charts };
}

/** The plain run, or one ablation: every arm the claims need, each seed; the claims judged. */
async function claimsRun(options, memory) {
  const started = performance.now();
  const runs = options.seeds.flatMap((seed) => options.arms.map((arm) => ({ seed, arm, config: options.config })));
  const seeds = bySeed(await simulate(runs, options.jobs, memory));
  const claims = judgeClaims(seeds, MARGINS).filter((c) => options.claims.includes(c.key));
  const seconds = (performance.now() - started) / 1000;
  const ablated = options.config.ablate ? claims.find((c) => c.mechanism === options.config.ablate) : undefined;
  const ok = options.config.ablate ? ablated !== undefined && !ablated.holds : claims.length > 0 && claims.every((c) => c.holds);
  const lines = [report(seeds, claims, options, seconds)];
  if (options.config.ablate) {
    lines.push(
      ablated
        ? `\nablation ${options.config.ablate}: the claim it tests ${ablated.holds ? 'still PASSES: the claim does not depend on this mechanism' : 'FAILS, as it should when its mechanism is off'}`
        : `\nablation ${options.config.ablate}: no claim testing it was run (check --arms)`,
    );
  }
  const hasCurves = options.arms.some((a) => { const arm = ARMS.find((x) => x.key === a); return !arm.crowded && !arm.neighbours; });
  return { seeds, claims, ok, seconds, text: lines.join('\n'), curves: hasCurves ? curvesSvg(seeds, options.config, options.arms) : undefined };
}

/** `git describe`-like: the commit the figures were made from, and whether the tree had changes. */
function revision() {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  if (head.status !== 0) return 'unknown revision';
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'src', 'scripts', 'bin'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  return `${head.stdout.trim()}${dirty ? ' with uncommitted changes to src/, scripts/ or bin/' : ''}`;
}

/**
 * `--docs`: the plain run, each ablation, and the sweep, with the documented defaults; writes
 * docs/learning-results.md and the plots. Every figure in docs/ and the README's learning section
 * comes from here, so none is copied by hand.
 */
async function docsRun(options, memory) {
  const started = performance.now();
  const from = revision();
  const docsDir = join(ROOT, 'docs');
  const say = (line) => process.stderr.write(`sim-learning --docs: ${line}\n`);
  const sections = [];
  let ok = true;

  say('the plain run (every claim, every arm)');
  const plain = await claimsRun(options, memory);
  ok &&= plain.ok;
  const files = { 'learning-curves.svg': plain.curves };
  sections.push(['## The claims: `npm run sim:learning`', '', plain.ok ? 'Every claim PASSES.' : '**Not every claim passes.**', '', '```text', plain.text, '```', '', '![success rate per round](learning-curves.svg)']);

  const ablations = ['## The ablations: `npm run sim:learning -- --ablate <mechanism>`', '', 'Each runs only the arms its claim needs, with that one mechanism switched off; the claim must FAIL.'];
  for (const [claimKey, claim] of Object.entries(CLAIMS)) {
    const ablate = claim.mechanism;
    say(`ablation ${ablate}`);
    const run = await claimsRun({ ...options, config: { ...options.config, ablate }, arms: claim.arms, claims: [claimKey] }, memory);
    ok &&= run.ok;
    ablations.push('', `### \`npm run sim:learning -- --ablate ${ablate}\`: ${ABLATIONS[ablate]}`, '', '```text', run.text, '```');
  }
  sections.push(ablations);

  say('the sweep');
  const sweep = await runSweep(options, memory);
  Object.assign(files, sweep.charts);
  sections.push(['## The sweep: `npm run sim:learning -- --sweep`', '', '```text', sweep.text, '```', '', ...Object.keys(sweep.charts).map((file) => `![${file}](${file})`)]);

  const minutes = ((performance.now() - started) / 60000).toFixed(1);
  const head = [
    '# Learning simulation: results',
    '',
    `Generated by \`npm run sim:learning -- --docs\` (${minutes} min, ${options.jobs} runs at a time) from helix ${from}. Do not edit by hand: rerun the command. What the simulation is and what it does not show: [learning.md](learning.md).`,
  ];
  const text = [head, ...sections].map((lines) => lines.join('\n')).join('\n\n');
  writeFileSync(join(docsDir, 'learning-results.md'), `${text}\n`);
  for (const [file, svg] of Object.entries(files)) writeFileSync(join(docsDir, file), svg);
  return { ok, written: ['learning-results.md', ...Object.keys(files)].map((f) => relative(ROOT, join(docsDir, f))) };
}

async function main() {
  const options = parseOptions(process.argv.slice(2));
  ensureBuilt();
  const memory = await import(join(ROOT, 'dist', 'memory', 'index.js'));
  if (options.docs) {
    const { ok, written } = await docsRun(options, memory);
    process.stdout.write(`written: ${written.join(', ')}${ok ? '' : '\nNOT EVERY CLAIM PASSED, OR AN ABLATION LEFT ITS CLAIM PASSING: see docs/learning-results.md'}\n`);
    process.exitCode = ok ? 0 : 1;
    return;
  }
  if (options.sweep) {
    const sweep = await runSweep(options, memory);
    if (options.svgDir) {
      mkdirSync(options.svgDir, { recursive: true });
      for (const [file, svg] of Object.entries(sweep.charts)) writeFileSync(join(options.svgDir, file), svg);
    }
    process.stdout.write(options.json ? `${JSON.stringify({ gainP: sweep.gainP, gainM: sweep.gainM }, null, 2)}\n` : `${sweep.text}\n${options.svgDir ? `plots written to ${options.svgDir}\n` : ''}`);
    return;
  }
  const run = await claimsRun(options, memory);
  if (options.svg && run.curves) {
    mkdirSync(dirname(options.svg), { recursive: true });
    writeFileSync(options.svg, run.curves);
  }
  const document = { config: options.config, seeds: run.seeds, claims: run.claims, ok: run.ok, seconds: run.seconds };
  if (options.save) writeFileSync(options.save, `${JSON.stringify(document, null, 2)}\n`);
  if (options.json) process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
  else process.stdout.write(`${run.text}\n${options.svg && run.curves ? `plot written to ${options.svg}\n` : ''}`);
  process.exitCode = run.ok ? 0 : 1;
}

main().catch((error) => {
  process.stderr.write(`sim-learning: ${error.message ?? error}\n`);
  process.exitCode = 2;
});
