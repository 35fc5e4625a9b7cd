#!/usr/bin/env node
// `npm run test:ddx`: the DDx scenario table (tests/ddx/scenarios.ts) against real `ddx` binaries.
//   HELIX_TEST_DDX="/path/v0.6.1/ddx:/path/current/ddx" npm run test:ddx
// Entries are separated by `:` as in PATH; each is a `ddx` binary or a folder holding one, and helix
// detects each one's version itself. Without HELIX_TEST_DDX it prints one SKIPPED line and exits 0.
// DDx runs tests/ddx/agent/claude, a stand-in agent; the suite runs inside a network namespace with
// only loopback up when this machine allows one (root + unshare), so nothing leaves 127.0.0.1.
// The caller builds first: the suite runs the built bin/helix.
import { vitestOffline } from './lib/offline-vitest.mjs';

const say = (line) => process.stdout.write(`helix: test:ddx: ${line}\n`);
if (!process.env.HELIX_TEST_DDX?.trim()) {
  say('SKIPPED — HELIX_TEST_DDX names no ddx binary (e.g. HELIX_TEST_DDX="/path/v0.6.1/ddx:/path/current/ddx")');
  process.exit(0);
}
process.exit(vitestOffline('vitest.ddx.config.ts', process.argv.slice(2), say, 'DDx runs with its update check off'));
