#!/usr/bin/env node
// `npm run test:ddx`: the DDx scenario table (tests/ddx/scenarios.ts) against real `ddx` binaries.
//   HELIX_TEST_DDX="/path/v0.6.1/ddx:/path/current/ddx" npm run test:ddx
// Entries are separated by `:` as in PATH; each is a `ddx` binary or a folder holding one, and helix
// detects each one's version itself. Without HELIX_TEST_DDX it prints one SKIPPED line and exits 0.
// DDx runs tests/ddx/agent/claude, a stand-in agent; the suite runs inside a network namespace with
// only loopback up when this machine allows one (root + unshare), so nothing leaves 127.0.0.1.
// The caller builds first: the suite runs the built bin/helix.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const say = (line) => process.stdout.write(`helix: test:ddx: ${line}\n`);
if (!process.env.HELIX_TEST_DDX?.trim()) {
  say('SKIPPED — HELIX_TEST_DDX names no ddx binary (e.g. HELIX_TEST_DDX="/path/v0.6.1/ddx:/path/current/ddx")');
  process.exit(0);
}
const vitest = [process.execPath, join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', join(root, 'vitest.ddx.config.ts'), ...process.argv.slice(2)];
const isolated = spawnSync('unshare', ['--net', 'sh', '-c', 'ip link set lo up'], { stdio: 'ignore' }).status === 0;
let run;
if (isolated) {
  say('network: a private namespace with only loopback up');
  run = spawnSync('unshare', ['--net', 'sh', '-c', 'ip link set lo up && exec "$@"', 'sh', ...vitest], { cwd: root, stdio: 'inherit' });
} else {
  say('network: no private namespace here (it needs root and unshare); DDx runs with its update check off');
  run = spawnSync(vitest[0], vitest.slice(1), { cwd: root, stdio: 'inherit' });
}
process.exit(run.status ?? 1);
