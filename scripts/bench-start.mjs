#!/usr/bin/env node
// Start-up cost, as ratios against Node's own start measured in the same run (issue 23):
//   helix --version                      ≤ 1.3 × node -e ''
//   helix status --json   (100 beads)    ≤ 1.5 ×
//   helix tracker ready --json (10K)     ≤ 1.6 ×
// The runs are interleaved — floor, version, status, ready, …, then the same backwards — so a change
// in the load of a shared machine hits every command alike; each ratio is the command's median wall time over the
// floor's. Beside it, the ratio of mean CPU time (user + sys of the child, which a shared
// machine's load moves much less than wall time). Several --bin compare builds in the same run
// (the first one is judged, on wall time as the targets say).
// Usage: npm run bench:start [-- --runs 21 --bin bin/helix --bin /old/checkout/bin/helix]
// Exits 1 when the first build misses a target.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SETTLE_MS } from '../dist/cli/ready-cache.js';
import { backlogFile, liveProject } from './lib/bench-fixtures.mjs';
import { median } from './lib/stats.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const { values } = parseArgs({ options: { runs: { type: 'string', default: '21' }, bin: { type: 'string', multiple: true } } });
const RUNS = Math.max(5, Number(values.runs));
const BINS = (values.bin?.length ? values.bin : [join(ROOT, 'bin', 'helix')]).map((b) => resolve(b));

const TARGETS = [
  { name: '`helix --version`', args: ['--version'], place: 'empty', max: 1.3 },
  { name: '`helix status --json`, 100 beads', args: ['status', '--json'], place: 'live', max: 1.5 },
  { name: '`helix tracker ready --json`, 10K beads', args: ['tracker', 'ready', '--json'], place: 'backlog', max: 1.6 },
  { name: '… the same, the file just changed', args: ['tracker', 'ready', '--json'], place: 'changed', touch: true },
];

const work = mkdtempSync(join(tmpdir(), 'helix-bench-start-'));
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(HELIX_|DDX_)/.test(k)));
// Each build its own cache folder inside the bench's: no cache left from elsewhere, none left
// behind, and two builds never replace each other's ready cache of the one file (its key names the
// module that wrote it, so they would, and every read would parse).
const envOf = (b) => ({ ...env, XDG_CACHE_HOME: join(work, `cache-${b}`) });

/** CPU time (user + sys) of the children reaped so far, in ms (Linux /proc; clock ticks of 10 ms). */
function childrenCpuMs() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100; // cutime, cstime at CLK_TCK 100
}

function timeOnce(args, cwd, touch, env) {
  if (touch) utimesSync(join(cwd, '.ddx', 'beads.jsonl'), new Date(), new Date()); // a write, as far as a cache can tell
  const cpuBefore = childrenCpuMs();
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return { ms, cpu: childrenCpuMs() - cpuBefore };
}

const mean = (samples) => samples.reduce((sum, x) => sum + x, 0) / samples.length;

try {
  const places = { empty: join(work, 'empty'), live: join(work, 'live'), backlog: join(work, 'backlog'), changed: join(work, 'changed') };
  for (const dir of Object.values(places)) {
    mkdirSync(dir);
    spawnSync('git', ['init', '-q', '-b', 'main'], { cwd: dir });
  }
  liveProject(places.live, 100);
  const backlog = backlogFile(10_000).text;
  for (const place of [places.backlog, places.changed]) {
    mkdirSync(join(place, '.ddx'));
    writeFileSync(join(place, '.ddx', 'beads.jsonl'), backlog);
  }
  // the ready cache keeps only a file unchanged for SETTLE_MS: wait that long once
  const file = join(places.backlog, '.ddx', 'beads.jsonl');
  while (Date.now() - Math.max(statSync(file).mtimeMs, statSync(file).ctimeMs) <= SETTLE_MS + 50) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);

  // Every timed command: the floor, then each target under each build.
  const jobs = [{ key: 'floor', args: ['-e', ''], cwd: places.empty, env }];
  for (const [b, bin] of BINS.entries()) {
    for (const target of TARGETS) jobs.push({ key: `${b}:${target.name}`, args: [bin, ...target.args], cwd: places[target.place], touch: target.touch, env: envOf(b) });
  }
  const samples = new Map(jobs.map((job) => [job.key, []]));
  for (const job of jobs) timeOnce(job.args, job.cwd, job.touch, job.env); // warm the page cache (and write the ready cache)
  // every other run goes backwards, so no command always runs right after the same one
  for (let run = 0; run < RUNS; run++) for (const job of run % 2 ? [...jobs].reverse() : jobs) samples.get(job.key).push(timeOnce(job.args, job.cwd, job.touch, job.env));
  const wall = (key) => median(samples.get(key).map((s) => s.ms));
  const cpu = (key) => mean(samples.get(key).map((s) => s.cpu));

  const floor = wall('floor');
  const floorCpu = cpu('floor');
  console.log(`Node ${process.version}, ${RUNS} interleaved runs each: median wall time, whole process, and its ratio to the floor; then the ratio of mean CPU time. Floor \`node -e ''\`: ${floor.toFixed(1)} ms wall, ${floorCpu.toFixed(1)} ms CPU\n`);
  console.log(`| command | target | ${BINS.map((bin) => `\`${bin}\``).join(' | ')} |`);
  console.log(`|---|---:|${BINS.map(() => '---:|').join('')}`);
  let missed = 0;
  for (const target of TARGETS) {
    const cells = BINS.map((_, b) => {
      const key = `${b}:${target.name}`;
      const ms = wall(key);
      const ratio = ms / floor;
      const met = target.max === undefined || ratio <= target.max;
      if (b === 0 && !met) missed++;
      return `${ms.toFixed(1)} ms, ${ratio.toFixed(2)}×${target.max === undefined ? '' : met ? ' met' : ' MISSED'} (CPU ${(cpu(key) / floorCpu).toFixed(2)}×)`;
    });
    console.log(`| ${target.name} | ${target.max === undefined ? '—' : `≤ ${target.max}×`} | ${cells.join(' | ')} |`);
  }
  const targets = TARGETS.filter((t) => t.max !== undefined).length;
  console.log(`\nstart-up targets (${BINS[0]}): ${targets - missed} of ${targets} met`);
  if (missed) process.exitCode = 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
