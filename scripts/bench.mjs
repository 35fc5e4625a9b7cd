#!/usr/bin/env node
// `npm run bench`: runs every benchmark script one after another (small sizes by default, so the
// whole set takes minutes, not tens of minutes) and writes their figures to docs/benchmarks.md with
// the date, the commit (+dirty when the tree has changes) and the machine. That file is the only
// place speed figures live; README and docs/ point to it.
//
//   npm run bench                          # build, run all, write docs/benchmarks.md
//   node scripts/bench.mjs --full          # each script at its own (larger) default sizes
//   node scripts/bench.mjs --only tracker,hook [--out FILE]   # a subset, printed (and written to FILE)
//
// Exits 1 when a benchmark exited non-zero (a missed target or a failure); the report is written
// either way and says which.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { commitLabel, renderReport } from './lib/bench-report.mjs';

const ROOT = resolve(import.meta.dirname, '..');
const REPORT = 'docs/benchmarks.md';

// Each benchmark: the script and its quick arguments (the default run), in the order they run.
const BENCHMARKS = [
  { name: 'start', title: 'Start-up: ratios against `node -e \'\'` in the same run', script: 'scripts/bench-start.mjs', quick: ['--runs', '21'] },
  { name: 'tracker', title: 'Tracker: `ready --json` and `update --claim`, whole process', script: 'scripts/bench-tracker.mjs', quick: ['--runs', '5', '--sizes', '1000,10000'] },
  { name: 'run', title: '`helix run`: helix’s own overhead per cycle', script: 'scripts/bench-run.mjs', quick: ['--beads', '200', '--runs', '3'] },
  { name: 'status', title: '`helix status`, whole process', script: 'scripts/bench-status.mjs', quick: ['--runs', '21'] },
  { name: 'memory', title: 'Memory store: recall, store, embedders', script: 'scripts/bench-memory.mjs', quick: ['--sizes', '1000,10000', '--runs', '7'] },
  { name: 'hook', title: 'Claude Code hooks, whole process', script: 'scripts/bench-hook.mjs', quick: ['--memories', '1000', '--runs', '15'] },
  { name: 'agents', title: 'Agent layer: cost of one agent call', script: 'tests/agents/bench-runner.mjs', quick: [] },
  { name: 'fleet', title: '`helix run --jobs N` on current DDx: wall time and what went wrong', script: 'scripts/bench-fleet.mjs', quick: [] },
  { name: 'report', title: '`helix report`: a night of 2,000 attempts over 16 slots', script: 'scripts/bench-report.mjs', quick: [] },
];

const { values } = parseArgs({ options: { full: { type: 'boolean', default: false }, only: { type: 'string' }, out: { type: 'string' } } });
const only = values.only?.split(',').map((name) => name.trim());
const unknown = only?.filter((name) => !BENCHMARKS.some((b) => b.name === name)) ?? [];
if (unknown.length) {
  process.stderr.write(`bench: unknown benchmark ${unknown.join(', ')} (known: ${BENCHMARKS.map((b) => b.name).join(', ')})\n`);
  process.exit(1);
}
const chosen = BENCHMARKS.filter((b) => !only || only.includes(b.name));
// A subset does not replace the whole report unless asked to.
const out = values.out ?? (only ? undefined : REPORT);

const git = (...args) => spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' }).stdout ?? '';
const commit = commitLabel(git('rev-parse', '--short', 'HEAD').trim() || 'unknown', git('status', '--porcelain'), out ? relative(ROOT, resolve(ROOT, out)) : REPORT);

const sections = [];
for (const bench of chosen) {
  const args = [bench.script, ...(values.full ? [] : bench.quick)];
  const command = ['node', ...args].join(' ');
  process.stderr.write(`bench: ${command}\n`);
  const load = loadavg()[0];
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26 });
  const seconds = (performance.now() - started) / 1000;
  const status = result.status ?? 1;
  if (status !== 0) process.stderr.write(`bench: ${bench.name} exited ${result.status ?? result.signal}\n`);
  sections.push({ title: bench.title, command, seconds, load, status, stdout: result.stdout ?? '', stderr: result.stderr ?? String(result.error ?? '') });
}

const cpuList = cpus();
const report = renderReport(
  {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    commit,
    command: values.full ? 'npm run bench -- --full' : only ? `node scripts/bench.mjs --only ${only.join(',')}` : 'npm run bench',
    machine: {
      cpus: cpuList.length,
      cpuModel: cpuList[0]?.model.trim() ?? 'unknown CPU',
      memoryGiB: (totalmem() / 2 ** 30).toFixed(1),
      node: process.version,
      os: `${platform()} ${release()}`,
    },
    sections,
  },
  ROOT,
);
if (out) {
  writeFileSync(resolve(ROOT, out), report);
  process.stderr.write(`bench: wrote ${relative(ROOT, resolve(ROOT, out))}\n`);
} else {
  process.stdout.write(report);
}
process.exitCode = sections.every((s) => s.status === 0) ? 0 : 1;
