#!/usr/bin/env node
// The first `helix tracker ready --json` after the 10K-bead file changed — the read that parses it,
// since the ready cache (src/cli/ready-cache.ts) holds only a settled file — for two or more builds
// head to head: the file is touched before every run and the builds alternate, each round in the
// other order, so neither always runs after the other. Prints each build's median wall time.
// Usage: node scripts/bench-changed.mjs [--runs 30] --bin bin/helix --bin /old/checkout/bin/helix
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { backlogFile } from './lib/bench-fixtures.mjs';
import { median } from './lib/stats.mjs';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '30' }, bin: { type: 'string', multiple: true } } });
const BINS = (values.bin ?? []).map((b) => resolve(b));
if (BINS.length < 2) {
  process.stderr.write('bench-changed: give two or more --bin to compare\n');
  process.exit(1);
}
const work = mkdtempSync(join(tmpdir(), 'helix-bench-changed-'));
try {
  const file = join(work, '.ddx', 'beads.jsonl');
  mkdirSync(join(work, '.ddx'));
  writeFileSync(file, backlogFile(10_000).text);
  const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(HELIX_|DDX_)/.test(k))), XDG_CACHE_HOME: join(work, 'cache') };
  const samples = new Map(BINS.map((bin) => [bin, []]));
  for (let run = 0; run < Number(values.runs); run++) {
    for (const bin of run % 2 ? [...BINS].reverse() : BINS) {
      utimesSync(file, new Date(), new Date());
      const start = process.hrtime.bigint();
      const r = spawnSync(process.execPath, [bin, 'tracker', 'ready', '--json'], { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 30 });
      if (r.status !== 0) throw new Error(`${bin} exited ${r.status}: ${r.stderr}`);
      samples.get(bin).push(Number(process.hrtime.bigint() - start) / 1e6);
    }
  }
  for (const bin of BINS) console.log(`${median(samples.get(bin)).toFixed(1)} ms  ${bin}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
