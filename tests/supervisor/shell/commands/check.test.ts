// `checkOnce` prints nothing itself: its --dry-run returns the command line for src/cli to print.
import { afterEach, expect, it, vi } from 'vitest';
import { checkOnce } from '../../../../src/supervisor/shell/commands/check.js';
import { CODEX_DRY_RUN, emptyProject } from '../empty-project.js';

afterEach(() => vi.restoreAllMocks());

it('a dry run returns its command line and writes nothing to stdout or stderr', async () => {
  const out = vi.spyOn(process.stdout, 'write');
  const err = vi.spyOn(process.stderr, 'write');
  const { cwd, env } = emptyProject();
  const result = await checkOnce({ cwd, env, mode: 'normal', dryRun: true });
  expect(out).not.toHaveBeenCalled();
  expect(err).not.toHaveBeenCalled();
  expect(result.exitCode).toBe(0);
  expect(result.stdout).toEqual([expect.stringMatching(CODEX_DRY_RUN)]);
});
