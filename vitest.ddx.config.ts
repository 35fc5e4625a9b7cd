// `npm run test:ddx`: the DDx scenario table against the real `ddx` binaries named in
// HELIX_TEST_DDX (tests/ddx-real). Kept apart from `npm test`: it needs DDx built from source.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/ddx-real/**/*.e2e.ts'],
    // each scenario runs the real helix, which runs the real ddx, which runs its agent several times
    testTimeout: 600_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
