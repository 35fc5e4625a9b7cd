// `npm run test:first-night`: helix as a user with nothing configured runs it (tests/first-night),
// with the real codex and claude CLIs and, when HELIX_TEST_DDX names them, the real DDx binaries.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/first-night/**/*.e2e.ts'],
    // a scenario runs helix, which runs a real agent CLI (and a real DDx, which runs it several times)
    testTimeout: 300_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
