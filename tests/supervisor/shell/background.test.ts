// `helix stop` prints nothing itself: without a background run it returns its line for src/cli to print.
import { afterEach, expect, it, vi } from 'vitest';
import { stopBackground } from '../../../src/supervisor/shell/background.js';
import { emptyProject } from './empty-project.js';

afterEach(() => vi.restoreAllMocks());

it('stop without a background run returns its line instead of printing it', async () => {
  const { cwd, env } = emptyProject();
  const err = vi.spyOn(process.stderr, 'write');
  const result = await stopBackground(cwd, env);
  expect(err).not.toHaveBeenCalled();
  expect(result).toEqual({ exitCode: 1, stderr: ['helix: no active run (no PID file)'] });
});
