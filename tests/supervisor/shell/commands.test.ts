// The supervisor's commands print nothing themselves: a dry run, a refused experiment and the
// background commands return their exit code and the lines they leave for src/cli to print.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runOneShotAction } from '../../../src/supervisor/shell/one-shot.js';
import { stopBackground } from '../../../src/supervisor/shell/background.js';
import { checkOnce } from '../../../src/supervisor/shell/commands/check.js';
import { runLoop } from '../../../src/supervisor/shell/commands/run.js';
import { cleanEnv, tempDir, tempGitRepo } from '../../helpers/cli.js';

/** A project with an empty tracker, and no ddx, codex or claude on PATH. */
function project(): { cwd: string; env: NodeJS.ProcessEnv } {
  const cwd = tempGitRepo();
  mkdirSync(join(cwd, '.ddx'));
  writeFileSync(join(cwd, '.ddx', 'beads.jsonl'), '');
  return { cwd, env: { ...cleanEnv(), PATH: '/usr/bin:/bin', HELIX_AGENT: 'codex' } };
}

describe('commands return what they would print', () => {
  afterEach(() => vi.restoreAllMocks());

  it('a dry run returns its command line and writes nothing to stdout or stderr', async () => {
    const out = vi.spyOn(process.stdout, 'write');
    const err = vi.spyOn(process.stderr, 'write');
    const { cwd, env } = project();
    const check = await checkOnce({ cwd, env, mode: 'normal', dryRun: true });
    const align = await runOneShotAction('align', { cwd, env, mode: 'normal', dryRun: true });
    const next = await runLoop({ cwd, env, mode: 'normal', dryRun: true });
    expect(out).not.toHaveBeenCalled();
    expect(err).not.toHaveBeenCalled();
    for (const result of [check, align, next]) {
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toEqual([expect.stringMatching(/^codex --dangerously-bypass-approvals-and-sandbox exec /)]);
    }
  });

  it('an experiment refused on a dirty worktree returns the refusal lines with exit 1', async () => {
    const { cwd, env } = project();
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

  it('stop without a background run returns its line instead of printing it', async () => {
    const { cwd, env } = project();
    const err = vi.spyOn(process.stderr, 'write');
    const result = await stopBackground(cwd, env);
    expect(err).not.toHaveBeenCalled();
    expect(result).toEqual({ exitCode: 1, stderr: ['helix: no active run (no PID file)'] });
  });
});
