#!/usr/bin/env node
// `npm run sim:learning`: does helix's learning loop help? A deterministic simulation through the
// REAL `helix run` (bin/helix, its tracker, its SQLite memory store), with a stand-in agent
// (scripts/sim/agent.mjs, installed as `ddx`) whose luck is a pure function of (seed, bead id,
// attempt).
//
// N task families, each with one useful memory and several distractors that look at least as
// relevant (scripts/sim/families.mjs), seeded straight into each arm's store. Every round adds one
// bead per family and runs `helix run` until the queue drains (failed beads are retried up to 4
// times, as always). The agent succeeds with p_base, or p_help when its family's useful memory is
// on the prompt's INJECTED line. Three arms, each in its own repository:
//   off        `helix run --no-memory`
//   honest     memory on; UTILIZED names the useful memory when it was injected
//   dishonest  memory on; UTILIZED claims every injected memory
// Reported: success rate (completed / attempted, from helix's run-complete line) per round per
// arm, and the effectiveness of useful vs distractor memories at the end. Writes an SVG plot.
//
//   node scripts/sim-learning.mjs [--seed 7] [--rounds 12] [--families 6 (max 8)] [--distractors 7]
//        [--p-base 0.3] [--p-help 0.8] [--min-injections 10] [--seeds 1,2,3,4,5]
//        [--svg docs/learning-curves.svg | --no-svg] [--json]
// Exit 1 when a claim fails on the main seed, or (with --seeds) holds on fewer than all but one
// of the extra seeds.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { FAMILIES, familyBead, familyMemories } from './sim/families.mjs';
import { ARMS, fixed, judgeClaims, memoryStats, renderEffectiveness, renderSvg, renderTable } from './sim/report.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const HELIX = join(ROOT, 'bin', 'helix');
const AGENT = join(ROOT, 'scripts', 'sim', 'agent.mjs');
/** The store's clock is pinned so recency and the systemic window are the same on every run. */
const SIM_NOW = '2026-01-05T12:00:00.000Z';

function parseOptions(argv) {
  const value = (name, fallback) => {
    const at = argv.indexOf(name);
    return at >= 0 && argv[at + 1] !== undefined ? argv[at + 1] : fallback;
  };
  const number = (name, fallback) => {
    const n = Number(value(name, fallback));
    if (!Number.isFinite(n)) throw new Error(`${name} expects a number`);
    return n;
  };
  return {
    seed: number('--seed', 7),
    rounds: number('--rounds', 12),
    families: number('--families', 6),
    distractors: number('--distractors', 7),
    pBase: number('--p-base', 0.3),
    pHelp: number('--p-help', 0.8),
    minInjections: number('--min-injections', 10),
    seeds: argv.includes('--seeds') ? value('--seeds', '').split(',').filter(Boolean).map(Number) : [],
    svg: argv.includes('--no-svg') ? undefined : resolve(value('--svg', join(ROOT, 'docs', 'learning-curves.svg'))),
    json: argv.includes('--json'),
  };
}

function ensureBuilt() {
  if (existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) return;
  const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (tsc.status !== 0) throw new Error('the build failed; run `npm run build` and retry');
}

/** Bead ids are a function of (seed, round, family), so every arm works on the same beads. */
function beadId(seed, round, family) {
  return `sim-${createHash('sha256').update(`${seed}:${round}:${family}`).digest('hex').slice(0, 8)}`;
}

function run(file, args, options) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolvePromise({ status, stdout, stderr }));
  });
}

/**
 * After a round: counts its closed beads and takes the ones still open out of the execution queue
 * (`execution-eligible: false`), so every round of every arm starts from the same N fresh beads.
 * No helix run is active here, so a plain rewrite of the file is safe.
 */
function retireRound(file, ids) {
  const beads = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  let closed = 0;
  for (const bead of beads) {
    if (!ids.includes(bead.id)) continue;
    if (bead.status === 'closed') closed++;
    else bead['execution-eligible'] = false;
  }
  writeFileSync(file, `${beads.map((b) => JSON.stringify(b)).join('\n')}\n`);
  return closed;
}

/**
 * How relevant the seeded memories look to a fresh bead of their family, as the store ranks them
 * for injection: the distractors should look at least as relevant as the useful memory.
 */
async function relevanceCheck(store, families, seeded) {
  let atLeast = 0;
  let total = 0;
  const usefulRanks = [];
  for (const family of families) {
    const bead = familyBead(family);
    const found = await store.recall([bead.title, bead.description, bead.acceptance].join('\n'), { limit: 50 });
    const relevance = new Map(found.map((m) => [m.name, m._relevance]));
    const mine = seeded.filter((s) => s.family === family.key);
    const useful = relevance.get(mine.find((s) => s.role === 'useful').name) ?? 0;
    for (const d of mine.filter((s) => s.role === 'distractor')) {
      total++;
      if ((relevance.get(d.name) ?? 0) >= useful) atLeast++;
    }
    usefulRanks.push(found.findIndex((m) => m.name === mine.find((s) => s.role === 'useful').name) + 1);
  }
  return { atLeast, total, usefulRanks };
}

/** One arm: its own repository, tracker, memory store and agent state. */
async function runArm(arm, config, work, memory) {
  const repo = join(work, arm.key);
  const agentDir = join(work, `${arm.key}-agent`);
  mkdirSync(join(repo, '.ddx'), { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  spawnSync('git', ['init', '-q'], { cwd: repo });
  const families = FAMILIES.slice(0, config.families);

  // Seed the store through the memory library, exactly as `helix memory store` would.
  const env = { HELIX_EMBEDDER: 'lexical', HELIX_NOW: SIM_NOW };
  const store = memory.openMemoryStore({ dbPath: join(repo, '.helix', 'helix.db'), env, warn: () => undefined });
  const seeded = [];
  const useful = {};
  for (const family of families) {
    const { useful: u, distractors } = familyMemories(family, config.distractors);
    for (const [role, input] of [['useful', u], ...distractors.map((d) => ['distractor', d])]) {
      const stored = await store.store(input);
      if (stored.status !== 'added') throw new Error(`seeding ${family.key}: ${stored.status} ${stored.reason}`);
      seeded.push({ name: stored.name, family: family.key, role });
      if (role === 'useful') useful[family.key] = stored.name;
    }
  }
  const lookalikes = await relevanceCheck(store, families, seeded);
  store.close();

  const sim = { seed: config.seed, pBase: config.pBase, pHelp: config.pHelp, honesty: arm.key === 'dishonest' ? 'dishonest' : 'honest', beads: {}, useful };
  const runEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(HELIX_|DDX_)/.test(k))),
    PATH: `${join(work, 'bin')}:${process.env.PATH}`,
    SIM_DIR: agentDir,
    HELIX_BACKOFF_SLEEP: '0',
    HELIX_ALT_AGENT: 'none',
    HELIX_AUTO_ALIGN: '0',
    ...env,
  };
  const rounds = [];
  const stamp = Date.parse('2026-01-01T00:00:00Z');
  for (let round = 1; round <= config.rounds; round++) {
    const ids = families.map((f) => beadId(config.seed, round, f.key));
    const lines = families.map((family, i) => {
      const at = new Date(stamp + (round * 100 + i) * 1000).toISOString();
      sim.beads[ids[i]] = family.key;
      return JSON.stringify({ id: ids[i], ...familyBead(family), status: 'open', priority: 2, issue_type: 'task', created_at: at, updated_at: at });
    });
    appendFileSync(join(repo, '.ddx', 'beads.jsonl'), `${lines.join('\n')}\n`);
    writeFileSync(join(agentDir, 'sim.json'), JSON.stringify(sim));

    const flags = ['run', '--summary', '--no-auto-review', '--no-auto-align', '--review-every', '0'];
    if (arm.key === 'off') flags.push('--no-memory');
    const result = await run(process.execPath, [HELIX, ...flags], { cwd: repo, env: runEnv });
    if (result.status !== 0) throw new Error(`${arm.key} round ${round}: helix run exited ${result.status}\n${result.stderr.slice(-3000)}`);
    const line = /run complete: (\d+) attempted, (\d+) completed/.exec(result.stderr);
    if (!line) throw new Error(`${arm.key} round ${round}: no run-complete line\n${result.stderr.slice(-2000)}`);
    const attempted = Number(line[1]);
    const completed = Number(line[2]);
    // Helix's count must agree with the tracker: a success is a bead it closed.
    const closed = retireRound(join(repo, '.ddx', 'beads.jsonl'), ids);
    if (closed !== completed) throw new Error(`${arm.key} round ${round}: helix says ${completed} completed, the tracker has ${closed} closed`);
    const injectedLines = (result.stderr.match(/injected \d+ memories/g) ?? []).length;
    rounds.push({ attempted, completed, injectedLines });
  }

  const calls = readFileSync(join(agentDir, 'calls.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const injections = {};
  for (const call of calls) for (const name of call.injected) injections[name] = (injections[name] ?? 0) + 1;
  const reopened = memory.openMemoryStore({ dbPath: join(repo, '.helix', 'helix.db'), env, warn: () => undefined });
  const memories = {};
  for (const s of seeded) memories[s.name] = reopened.get(s.name);
  const health = await reopened.health();
  reopened.close();
  // The memory-off arm must not have touched its store: nothing added, nothing rated.
  if (arm.key === 'off' && (health.total_memories !== seeded.length || health.with_feedback !== 0)) {
    throw new Error(`memory-off arm changed its store: ${health.total_memories} memories, ${health.with_feedback} with feedback`);
  }
  return {
    rounds,
    lookalikes,
    stats: memoryStats(seeded, memories, injections, config.minInjections),
    totalMemories: health.total_memories,
    byType: health.by_type,
    usefulInjectedShare: calls.length ? calls.filter((c) => c.usefulInjected).length / calls.length : 0,
  };
}

async function simulate(config, memory) {
  const work = mkdtempSync(join(tmpdir(), 'helix-sim-learning-'));
  try {
    mkdirSync(join(work, 'bin'));
    symlinkSync(AGENT, join(work, 'bin', 'ddx'));
    const started = performance.now();
    const results = await Promise.all(ARMS.map((arm) => runArm(arm, config, work, memory)));
    const arms = Object.fromEntries(ARMS.map((arm, i) => [arm.key, results[i]]));
    const result = { config, arms, seconds: (performance.now() - started) / 1000 };
    result.claims = judgeClaims(result);
    return result;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function report(result) {
  const c = result.config;
  const out = [];
  out.push(`helix learning simulation: seed ${c.seed}, ${c.families} families × (1 useful + ${c.distractors} distractors), ${c.rounds} rounds, p_base ${c.pBase}, p_help ${c.pHelp} (${result.seconds.toFixed(1)} s)`);
  out.push('');
  const look = result.arms.honest.lookalikes;
  out.push(`Before any feedback, ${look.atLeast} of ${look.total} distractors look at least as relevant to their family's bead as its useful memory; the useful memory ranks ${look.usefulRanks.join(', ')} (of ${1 + c.distractors}) and the first prompt shows 5.`);
  out.push('');
  out.push('Success rate per round (completed / attempted, retries included):');
  out.push('');
  out.push(renderTable(result));
  out.push('');
  out.push('Effectiveness of the seeded memories at the end (helped / (helped + failed), rated memories only):');
  out.push('');
  out.push(renderEffectiveness(result));
  out.push('');
  for (const arm of ARMS.slice(1)) {
    const a = result.arms[arm.key];
    out.push(`${arm.label}: useful memory on ${fixed(100 * a.usefulInjectedShare, 0)}% of prompts; store ends with ${a.totalMemories} memories ${JSON.stringify(a.byType)}`);
  }
  out.push('');
  for (const claim of result.claims) out.push(`${claim.holds ? 'HOLDS ' : 'FAILS '} ${claim.claim}: ${claim.value}`);
  const d = result.arms.dishonest.stats;
  out.push(`dishonest arm: verification alone leaves useful ${fixed(d.useful.mean, 3)} vs distractors ${fixed(d.distractors.mean, 3)} (gap ${fixed(d.useful.mean - d.distractors.mean, 3)}; honest gap ${fixed(result.arms.honest.stats.useful.mean - result.arms.honest.stats.distractors.mean, 3)})`);
  return out.join('\n');
}

async function main() {
  const options = parseOptions(process.argv.slice(2));
  ensureBuilt();
  const memory = await import(join(ROOT, 'dist', 'memory', 'index.js'));
  const { seeds, svg, json, ...config } = options;
  const main = await simulate(config, memory);
  if (svg) {
    mkdirSync(dirname(svg), { recursive: true });
    writeFileSync(svg, renderSvg(main));
  }
  const extra = [];
  for (const seed of seeds) extra.push(await simulate({ ...config, seed }, memory));
  const holdingSeeds = extra.filter((r) => r.claims.every((c) => c.holds)).length;
  const ok = main.claims.every((c) => c.holds) && (seeds.length === 0 || holdingSeeds >= seeds.length - 1);

  if (json) {
    process.stdout.write(`${JSON.stringify({ main, seeds: extra.map((r) => ({ seed: r.config.seed, claims: r.claims, seconds: r.seconds })), holdingSeeds, ok }, null, 2)}\n`);
  } else {
    process.stdout.write(`${report(main)}\n`);
    if (svg) process.stdout.write(`plot written to ${svg}\n`);
    if (seeds.length) {
      process.stdout.write(`\nOther seeds (${seeds.join(', ')}):\n\n| seed | ${main.claims.map((_, i) => `claim ${i + 1}`).join(' | ')} | all |\n|---|${main.claims.map(() => '---').join('|')}|---|\n`);
      for (const r of extra) {
        process.stdout.write(`| ${r.config.seed} | ${r.claims.map((c) => `${c.holds ? '✓' : '✗'} ${c.value}`).join(' | ')} | ${r.claims.every((c) => c.holds) ? 'holds' : 'fails'} |\n`);
      }
      process.stdout.write(`\nclaims hold on ${holdingSeeds} of ${seeds.length} other seeds (need ${Math.max(0, seeds.length - 1)})\n`);
    }
  }
  process.exitCode = ok ? 0 : 1;
}

main().catch((error) => {
  process.stderr.write(`sim-learning: ${error.stack ?? error}\n`);
  process.exitCode = 2;
});
