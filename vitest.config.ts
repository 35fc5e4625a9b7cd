import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Long files first, so that none starts last and holds the run up alone. Vitest orders by the
 * durations it cached from the last run; a clean clone (CI) has none and ran the files in path
 * order, the slow `tests/run/` ones last: 302 s against 266–270 s with the cache. Without a cache,
 * larger files go first: a black-box file's size follows the processes it starts closely enough.
 */
class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cached = files.some((f) => this.ctx.cache.getFileTestResults(`${f.project.name}:${relative(this.ctx.config.root, f.moduleId)}`));
    if (cached) return super.sort(files);
    const size = (f: TestSpecification) => statSync(f.moduleId).size;
    return [...files].sort((a, b) => size(b) - size(a));
  }
}

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
    sequence: { sequencer: LongestFirst },
  },
});
