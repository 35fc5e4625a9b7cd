#!/usr/bin/env node
// `npm run test:agents`: the end-to-end suite with the real codex and claude CLIs (tests/e2e).
//  1. Installs the CLIs pinned in tests/e2e/clis/package-lock.json into tests/e2e/clis (their own
//     folder: ~640 MB that the main `npm ci` never downloads), unless exactly those versions are
//     there already. When that fails (no registry, an unsupported platform) it prints ONE line
//     saying the suite was skipped and why, and exits 0.
//  2. Runs vitest with vitest.agents.config.ts — inside a new network namespace with only loopback
//     up when this machine allows one (root + unshare), so nothing can reach beyond 127.0.0.1.
// The caller builds first (`npm run build`): the suite runs the built bin/helix.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const clis = join(root, 'tests', 'e2e', 'clis');
const pinned = JSON.parse(readFileSync(join(clis, 'package.json'), 'utf8')).dependencies;
const pinnedText = Object.entries(pinned).map(([name, version]) => `${name} ${version}`).join(', ');
const say = (line) => process.stdout.write(`helix: test:agents: ${line}\n`);

function installedVersion(name) {
  try {
    return JSON.parse(readFileSync(join(clis, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
}

function skip(why) {
  say(`SKIPPED — could not install the pinned agent CLIs (${pinnedText}): ${why}`);
  process.exit(0);
}

const missing = Object.entries(pinned).filter(([name, version]) => installedVersion(name) !== version);
if (missing.length > 0) {
  say(`installing ${pinnedText} into tests/e2e/clis`);
  const started = Date.now();
  const install = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: clis, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (install.error || install.status !== 0) {
    // npm's own summary line (`npm error FetchError: request to … failed, reason: …`), else its code
    const lines = (install.error?.message ?? install.stderr ?? '').split('\n').map((l) => l.replace(/^npm error\s*/, '').trim());
    const detail = lines.find((l) => /Error|failed|reason/.test(l) && !l.startsWith('at ')) ?? lines.find(Boolean) ?? `npm ci exited ${install.status}`;
    skip(detail);
  }
  say(`installed in ${Math.round((Date.now() - started) / 1000)}s`);
}
for (const program of ['codex', 'claude']) {
  const bin = join(clis, 'node_modules', '.bin', program);
  if (!existsSync(bin)) skip(`${program} has no executable in tests/e2e/clis/node_modules/.bin`);
  // Each gets a throwaway HOME: `codex --version` alone creates ~/.codex.
  const probe = spawnSync(bin, ['--version'], { encoding: 'utf8', env: { ...process.env, HOME: join(clis, 'node_modules', '.probe-home'), CODEX_HOME: join(clis, 'node_modules', '.probe-home') } });
  if (probe.error || probe.status !== 0) skip(`\`${program} --version\` failed on this platform: ${(probe.error?.message ?? probe.stderr).trim().split('\n')[0]}`);
}

const vitest = [process.execPath, join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', join(root, 'vitest.agents.config.ts'), ...process.argv.slice(2)];
const isolated = spawnSync('unshare', ['--net', 'sh', '-c', 'ip link set lo up'], { stdio: 'ignore' }).status === 0;
let run;
if (isolated) {
  say('network: a private namespace with only loopback up (nothing beyond 127.0.0.1 is reachable)');
  run = spawnSync('unshare', ['--net', 'sh', '-c', 'ip link set lo up && exec "$@"', 'sh', ...vitest], { cwd: root, stdio: 'inherit' });
} else {
  say('network: no private namespace here (it needs root and unshare); the CLIs are pointed at 127.0.0.1 and their other traffic is switched off');
  run = spawnSync(vitest[0], vitest.slice(1), { cwd: root, stdio: 'inherit' });
}
process.exit(run.status ?? 1);
