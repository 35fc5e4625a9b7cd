// The one-shot actions print nothing themselves: a dry run and a refused experiment return their
// exit code and the lines they leave for src/cli to print.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { runOneShotAction } from '../../../src/supervisor/shell/one-shot.js';
import { tempDir } from '../../helpers/cli.js';
import { CODEX_DRY_RUN, emptyProject } from './empty-project.js';

afterEach(() => vi.restoreAllMocks());

it('a dry run returns its command line and writes nothing to stdout or stderr', async () => {
  const out = vi.spyOn(process.stdout, 'write');
  const err = vi.spyOn(process.stderr, 'write');
  const { cwd, env } = emptyProject();
  const result = await runOneShotAction('align', { cwd, env, mode: 'normal', dryRun: true });
  expect(out).not.toHaveBeenCalled();
  expect(err).not.toHaveBeenCalled();
  expect(result.exitCode).toBe(0);
  expect(result.stdout).toEqual([expect.stringMatching(CODEX_DRY_RUN)]);
});

it('an experiment refused on a dirty worktree returns the refusal lines with exit 1', async () => {
  const { cwd, env } = emptyProject();
  writeFileSync(join(cwd, 'tracked.txt'), 'one\n');
  spawnSync('git', ['add', 'tracked.txt'], { cwd });
  // the refusal comes after the tools check: a codex that is never run
  const bin = tempDir();
  writeFileSync(join(bin, 'codex'), '#!/bin/sh\nexit 99\n', { mode: 0o755 });
  const err = vi.spyOn(process.stderr, 'write');
  const result = await runOneShotAction('experiment', { cwd, env: { ...env, PATH: `${bin}:/usr/bin:/bin` }, mode: 'normal' });
  expect(err).not.toHaveBeenCalled();
  expect(result).toEqual({
    exitCode: 1,
    stderr: ['helix: worktree has uncommitted changes', 'helix: please commit your changes before starting an experiment', 'helix: experiment needs a clean worktree to safely branch and revert'],
  });
});
