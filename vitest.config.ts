import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // the long scenarios run in `npm run test:slow` (vitest.slow.config.ts)
    exclude: ['tests/**/*.slow.test.ts', '**/node_modules/**'],
    // Black-box tests spawn real processes; give them room on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: a single worker on 2 cores, where most
    // of a test's time is a child process running, not the worker. Three keep 2 cores busier
    // while a test waits on its children: 386 s → 339 s on the 2-core machine (4: 337 s).
    maxWorkers: 3,
  },
});
