import { defineConfig } from 'vitest/config';

// `npm run test:slow`: the long end-to-end scenarios kept out of `npm test` for its speed — the
// learning simulation (dozens of real `helix run`s), the cross-tool claim race against the DDx
// stand-ins, and the 50-round 16-process claim race. `.ci/run` runs them after `npm test`.
export default defineConfig({
  test: {
    include: ['tests/**/*.slow.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // each scenario keeps both cores busy on its own: run them one after the other
    maxWorkers: 1,
  },
});
