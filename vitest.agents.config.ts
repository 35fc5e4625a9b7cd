// `npm run test:agents`: the end-to-end suite with the real codex and claude CLIs (tests/e2e).
// Kept apart from `npm test`: it needs the pinned CLIs installed by scripts/test-agents.mjs.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/e2e/**/*.e2e.ts'],
    // each test runs helix, which runs a real agent CLI (a native binary) several times
    testTimeout: 180_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // one file, one stand-in server; the CLIs are heavy on 2 cores
    fileParallelism: false,
  },
});
