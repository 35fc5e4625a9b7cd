#!/usr/bin/env node
// `npm run test:first-night`: the first night of a user who configured nothing (tests/first-night):
// each scenario's environment is PATH and HOME alone, with only the programs it installs — the real
// codex and claude CLIs pinned in tests/e2e/clis (installed first, as test:agents does) against the
// model stand-in, and the real `ddx` binaries HELIX_TEST_DDX names (separated by `:`). The direct
// scenarios must run; without HELIX_TEST_DDX the DDx ones print one SKIPPED line. The caller builds first.
import { ensurePinnedClis } from './lib/agent-clis.mjs';
import { vitestOffline } from './lib/offline-vitest.mjs';

const say = (line) => process.stdout.write(`helix: test:first-night: ${line}\n`);
const unavailable = ensurePinnedClis(say);
if (unavailable) {
  // the direct scenarios are the lane's floor: a machine that cannot run the CLIs fails it
  say(`FAILED — ${unavailable}`);
  process.exit(1);
}
if (!process.env.HELIX_TEST_DDX?.trim()) say('DDx scenarios SKIPPED — HELIX_TEST_DDX names no ddx binary (e.g. HELIX_TEST_DDX="/path/v0.6.1/ddx:/path/current/ddx")');
process.exit(vitestOffline('vitest.first-night.config.ts', process.argv.slice(2), say, 'the CLIs are pointed at 127.0.0.1 and their other traffic is switched off'));
