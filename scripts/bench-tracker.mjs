#!/usr/bin/env node
// Benchmark of the bead tracker as users run it: whole-process `helix tracker ready --json` and
// `helix tracker update <id> --claim` on generated 1K, 10K and 100K-bead files with dependencies,
// next to `node -e ''` (the floor: Node's own start). Prints a markdown table of medians.
// Usage: npm run bench:tracker [-- --runs 7 --sizes 1000,10000,100000 --bin path/to/bin/helix]
// (--bin compares another build, e.g. an older checkout, on the same generated files.)
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const READY_TARGET_MS = 150; // issue 3: ready on 10K beads ≤ 150 ms wall

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const HELIX = resolve(option('bin', join(ROOT, 'bin', 'helix')));
const RUNS = Math.max(5, Number(option('runs', '7')));
const SIZES = option('sizes', '1000,10000,100000').split(',').map(Number);

/** A small deterministic PRNG so every run benchmarks the same files. */
function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A bead file shaped like a real backlog: ~40% closed, ~5% in progress, the rest open; most beads
 * depend on 0–3 earlier ones; labels, descriptions, HELIX extras and a foreign key on some.
 * Returns the text and the id of one open bead with no dependencies (the one to claim).
 */
function generate(count, seed = 42) {
  const rand = random(seed);
  const ids = [];
  const lines = [];
  let claimable;
  const base = Date.parse('2025-01-01T00:00:00Z');
  for (let i = 0; i < count; i++) {
    const id = `bn-${(i * 2654435761 >>> 0).toString(16).padStart(8, '0')}`;
    const r = rand();
    const status = r < 0.4 ? 'closed' : r < 0.45 ? 'in_progress' : 'open';
    const created = new Date(base + i * 1000 + Math.floor(rand() * 1000)).toISOString();
    const bead = {
      id,
      title: `Bead ${i}: implement part ${i % 97} of feature ${i % 13}`,
      status,
      priority: Math.floor(rand() * 5),
      issue_type: rand() < 0.1 ? 'epic' : 'task',
      created_at: created,
      updated_at: created,
      labels: [`area:${i % 7}`, 'helix'],
      description: `Description of bead ${i}. `.repeat(3),
    };
    const deps = [];
    const depCount = i === 0 ? 0 : Math.floor(rand() * 4);
    for (let d = 0; d < depCount; d++) {
      const target = ids[Math.floor(rand() * ids.length)];
      if (!deps.includes(target)) deps.push(target);
    }
    if (deps.length) bead.dependencies = deps.map((dep) => ({ issue_id: id, depends_on_id: dep, type: 'blocks', created_at: created }));
    if (rand() < 0.2) bead['spec-id'] = `FEAT-${i % 50}`;
    if (rand() < 0.05) bead['execution-eligible'] = false;
    if (rand() < 0.1) bead['x-ddx-meta'] = { attempts: i % 3, source: 'bench' };
    if (status === 'in_progress') Object.assign(bead, { owner: 'helix', 'claimed-at': created, 'claimed-pid': '1' });
    if (status === 'open' && deps.length === 0 && !claimable) claimable = id;
    ids.push(id);
    lines.push(JSON.stringify(bead));
  }
  lines.sort(); // the tracker keeps its file sorted by id
  return { text: `${lines.join('\n')}\n`, claimable };
}

/**
 * CPU time (user + sys) of reaped children so far, in ms, from /proc/self/stat (Linux; clock ticks
 * of 10 ms, so it is reported as a mean over runs). Wall time on a shared machine swings with the
 * load; CPU time does much less.
 */
function childrenCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100; // cutime, cstime at CLK_TCK 100
  } catch {
    return NaN;
  }
}

function timeOnce(command, commandArgs, env) {
  const cpuBefore = childrenCpuMs();
  const start = process.hrtime.bigint();
  const result = spawnSync(command, commandArgs, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${commandArgs.join(' ')} exited ${result.status}: ${result.stderr}`);
  return { ms, cpu: childrenCpuMs() - cpuBefore };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/** Median wall time and mean CPU time of `runs` runs, after one warm-up run. */
function measure(runs, once, between = () => {}) {
  once(); // warm the page cache
  between();
  const samples = [];
  for (let i = 0; i < runs; i++) {
    samples.push(once());
    between();
  }
  return { wall: median(samples.map((s) => s.ms)), cpu: samples.reduce((sum, s) => sum + s.cpu, 0) / runs };
}

const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(HELIX_|DDX_)/.test(k)));
for (const key of Object.keys(process.env)) if (/^(HELIX_|DDX_)/.test(key)) delete process.env[key];

const floor = measure(RUNS, () => timeOnce(process.execPath, ['-e', ''], {}));
const rows = [];
const work = mkdtempSync(join(tmpdir(), 'helix-bench-'));
try {
  for (const size of SIZES) {
    const dir = join(work, `n${size}`, '.ddx');
    mkdirSync(dir, { recursive: true });
    const { text, claimable } = generate(size);
    const file = join(dir, 'beads.jsonl');
    writeFileSync(file, text);
    const env = { ...cleanEnv, DDX_BEAD_DIR: dir, DDX_BEAD_PREFIX: 'bn' };
    const ready = measure(RUNS, () => timeOnce(process.execPath, [HELIX, 'tracker', 'ready', '--json'], env));
    const claim = measure(
      RUNS,
      () => timeOnce(process.execPath, [HELIX, 'tracker', 'update', claimable, '--claim'], env),
      () => writeFileSync(file, text), // restore: every run claims the same open bead
    );
    rows.push({ size, bytes: statSync(file).size, ready, claim });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

const fmt = (m) => `${m.wall.toFixed(0)} ms (${m.cpu.toFixed(0)})`;
const mib = (bytes) => `${(bytes / 1048576).toFixed(1)} MiB`;
console.log(`Node ${process.version}, ${RUNS} runs each: median wall time (mean CPU user+sys), whole process, ${HELIX}\n`);
console.log("| beads | file | `node -e ''` (floor) | `helix tracker ready --json` | `helix tracker update <id> --claim` |");
console.log('|---:|---:|---:|---:|---:|');
for (const row of rows) console.log(`| ${row.size.toLocaleString('en-US')} | ${mib(row.bytes)} | ${fmt(floor)} | ${fmt(row.ready)} | ${fmt(row.claim)} |`);
const tenK = rows.find((r) => r.size === 10000);
if (tenK) {
  const met = tenK.ready.wall <= READY_TARGET_MS;
  console.log(`\nready on 10K beads: ${tenK.ready.wall.toFixed(0)} ms wall (target ≤ ${READY_TARGET_MS} ms): ${met ? 'met' : 'MISSED'}`);
}
