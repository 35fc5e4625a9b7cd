#!/usr/bin/env node
// `npm run test:agents`: the end-to-end suite with the real codex and claude CLIs (tests/e2e).
//  1. Installs the CLIs pinned in tests/e2e/clis/package-lock.json into tests/e2e/clis, unless
//     exactly those versions are there already. When that fails (no registry, an unsupported
//     platform) it prints ONE line saying the suite was skipped and why, and exits 0.
//  2. Runs vitest with vitest.agents.config.ts — inside a new network namespace with only loopback
//     up when this machine allows one (root + unshare), so nothing can reach beyond 127.0.0.1.
// The caller builds first (`npm run build`): the suite runs the built bin/helix.
import { ensurePinnedClis } from './lib/agent-clis.mjs';
import { vitestOffline } from './lib/offline-vitest.mjs';

const say = (line) => process.stdout.write(`helix: test:agents: ${line}\n`);
const unavailable = ensurePinnedClis(say);
if (unavailable) {
  say(`SKIPPED — ${unavailable}`);
  process.exit(0);
}
process.exit(vitestOffline('vitest.agents.config.ts', process.argv.slice(2), say, 'the CLIs are pointed at 127.0.0.1 and their other traffic is switched off'));
