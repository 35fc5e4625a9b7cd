#!/usr/bin/env node
// Benchmark of the bead tracker as users run it: whole-process `helix tracker ready --json` and
// `helix tracker update <id> --claim` on generated 1K, 10K and 100K-bead files with dependencies,
// next to `node -e ''` (the floor: Node's own start). Prints a markdown table of medians. Every
// ready run reads a file just changed, so it parses it: the reads after it come from the ready
// cache (src/cli/ready-cache.ts), which bench-start times.
// Usage: npm run bench:tracker [-- --runs 7 --sizes 1000,10000,100000 --bin path/to/bin/helix]
// (--bin compares another build, e.g. an older checkout, on the same generated files.)
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { backlogFile } from './lib/bench-fixtures.mjs';
import { median } from './lib/stats.mjs';

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
    const { text, claimable } = backlogFile(size);
    const file = join(dir, 'beads.jsonl');
    writeFileSync(file, text);
    const env = { ...cleanEnv, DDX_BEAD_DIR: dir, DDX_BEAD_PREFIX: 'bn', XDG_CACHE_HOME: join(work, 'cache') };
    const changed = () => utimesSync(file, new Date(), new Date());
    const ready = measure(RUNS, () => timeOnce(process.execPath, [HELIX, 'tracker', 'ready', '--json'], env), changed);
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
