#!/usr/bin/env node
// `npm run bench:run`: helix's own overhead per cycle. Drains a 1,000-bead file (all ready)
// through a no-op `ddx` stub written in sh (prints a success result at once; helix claims,
// re-reads, judges and closes), then subtracts the stub's own time, measured by running the
// same stub the same number of times outside helix. Median of 3 runs.
//
//   node scripts/bench-run.mjs [--beads 1000] [--runs 3]
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

const root = resolve(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const option = (name, fallback) => {
  const at = argv.indexOf(name);
  return at >= 0 ? Number(argv[at + 1]) : fallback;
};
const BEADS = option('--beads', 1000);
const RUNS = option('--runs', 3);

const STUB = `#!/bin/sh
# no-op executor: answers the version probe (DDx v0.6.1), the check, and every execute-bead with success at once
[ "$1" = version ] && { echo "DDx v0.6.1"; exit 0; }
case "$2" in
  execute-bead)
    case "$3" in --help) exit 0 ;; esac
    printf '{"bead_id":"%s","outcome":"merged","status":"success","tokens":0,"exit_code":0}\\n' "$3" ;;
  run) echo "NEXT_ACTION: STOP" ;;
esac
`;

function beadFile(count) {
  const lines = [];
  const stamp = '2026-01-01T00:00:00Z';
  for (let i = 0; i < count; i++) {
    const id = `bench-${i.toString(16).padStart(8, '0')}`;
    lines.push(JSON.stringify({ id, title: `bench bead ${i}`, status: 'open', priority: 2, issue_type: 'task', created_at: stamp, updated_at: stamp, acceptance: 'no-op' }));
  }
  return `${lines.join('\n')}\n`;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function oneRun() {
  const dir = mkdtempSync(join(tmpdir(), 'helix-bench-run-'));
  try {
    spawnSync('git', ['init', '-q'], { cwd: dir });
    mkdirSync(join(dir, 'stub'));
    const stub = join(dir, 'stub', 'ddx');
    writeFileSync(stub, STUB);
    chmodSync(stub, 0o755);
    mkdirSync(join(dir, '.ddx'));
    writeFileSync(join(dir, '.ddx', 'beads.jsonl'), beadFile(BEADS));
    const env = { ...process.env, PATH: `${join(dir, 'stub')}:${process.env.PATH}`, HELIX_AUTO_ALIGN: '0', HELIX_ALT_AGENT: 'none', HELIX_MEMORY: '0' };

    const started = performance.now();
    const run = spawnSync(process.execPath, [join(root, 'bin', 'helix'), 'run', '--quiet', '--no-auto-review'], { cwd: dir, env, encoding: 'utf8' });
    const wallMs = performance.now() - started;
    if (run.status !== 0) throw new Error(`helix run failed (${run.status}): ${run.stderr.slice(-2000)}`);
    if (!run.stderr.includes(`${BEADS} attempted, ${BEADS} completed`)) throw new Error(`unexpected run result: ${run.stderr.slice(-500)}`);

    // The stub's own cost: the same calls outside helix (one execute-bead per bead, plus the check).
    const stubStarted = performance.now();
    for (let i = 0; i < BEADS; i++) spawnSync(stub, ['agent', 'execute-bead', `bench-${i}`, '--json'], { cwd: dir });
    spawnSync(stub, ['agent', 'run'], { cwd: dir, input: 'check' });
    spawnSync(stub, ['version', '--no-check'], { cwd: dir });
    const stubMs = performance.now() - stubStarted;
    return { wallMs, stubMs, perCycleMs: (wallMs - stubMs) / BEADS };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const results = [];
for (let i = 0; i < RUNS; i++) {
  const r = oneRun();
  results.push(r);
  process.stderr.write(`run ${i + 1}: wall ${(r.wallMs / 1000).toFixed(2)} s, stub ${(r.stubMs / 1000).toFixed(2)} s, helix ${r.perCycleMs.toFixed(1)} ms/cycle\n`);
}
const perCycle = median(results.map((r) => r.perCycleMs));
process.stdout.write(`\n| beads | runs | median wall | median stub time | helix overhead per cycle (median) | target |\n|---|---|---|---|---|---|\n`);
process.stdout.write(
  `| ${BEADS} | ${RUNS} | ${(median(results.map((r) => r.wallMs)) / 1000).toFixed(2)} s | ${(median(results.map((r) => r.stubMs)) / 1000).toFixed(2)} s | ${perCycle.toFixed(1)} ms | ≤ 30 ms |\n`,
);
