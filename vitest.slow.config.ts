import { defineConfig } from 'vitest/config';

// `npm run test:slow`: the long end-to-end scenarios kept out of `npm test` for its speed (under 5
// minutes on 2 cores) — the learning loop and the learning simulation (dozens of real `helix
// run`s), the demo and its control, `helix run`, `build` and every action through the DDx stand-ins
// end to end, the black-box usage-limit, budget and notifier runs (their decisions are unit-tested
// in tests/supervisor/core, and `npm run soak` drives them together), the cross-tool claim race
// against the stand-ins, the 50-round 16-process claim race and the lock's breakers under stress.
// `.ci/run` runs them after `npm test`. (tests/ddx/scenarios.test.ts, in npm test, still holds the
// stand-ins to what the real binaries did.)
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
