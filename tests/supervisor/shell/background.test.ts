// `helix start` / `helix stop` (shell/background.ts) called in the test's process: start spawns the
// real `helix run` (bin/helix, built) in a project whose stub codex hangs on the check, returns once
// the run has its pid file and names its log, and stop ends it with SIGTERM; a stale pid file, a
// live run and a folder outside git are refused with the Bash CLI's lines and exit codes.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isPidAlive } from '../../../src/tracker/index.js';
import { startBackground, stopBackground } from '../../../src/supervisor/shell/background.js';
import { pidFilePath, readPidFile } from '../../../src/supervisor/shell/mutex.js';
import { tempDir } from '../../helpers/cli.js';
import { emptyProject } from './empty-project.js';
import { agentProject } from './run-world.js';

afterEach(() => vi.restoreAllMocks());

async function deadPid(): Promise<number> {
  const child = spawn('true');
  await once(child, 'exit');
  return child.pid!;
}

/** The stub project with codex alone on PATH (no DDx): the run calls codex directly. */
const project = (script: object = { responses: [] }) => agentProject({ script });

describe('helix stop', () => {
  it('without a pid file returns its line, printing nothing itself', async () => {
    const { cwd, env } = emptyProject();
    const err = vi.spyOn(process.stderr, 'write');
    expect(await stopBackground(cwd, env)).toEqual({ exitCode: 1, stderr: ['helix: no active run (no PID file)'] });
    expect(err).not.toHaveBeenCalled();
  });

  it("removes a dead run's pid file and says so", async () => {
    const p = project();
    const dead = await deadPid();
    writeFileSync(pidFilePath(join(p.root, '.ddx')), `${dead} 2026-11-28T12:00:00Z\n`);
    expect(await stopBackground(p.root, p.env)).toEqual({ exitCode: 1, stderr: [`helix: stale PID file removed (pid=${dead} was not running)`] });
    expect(existsSync(pidFilePath(join(p.root, '.ddx')))).toBe(false);
  });
});

describe('helix start', () => {
  it('refuses a folder outside git with 23 before any pid file or log folder exists', async () => {
    const dir = tempDir();
    await expect(startBackground(dir, { PATH: '/usr/bin:/bin' }, [])).rejects.toMatchObject({ exitCode: 23 });
    expect(existsSync(join(dir, '.helix-logs'))).toBe(false);
  });

  it('refuses with 2 while another run holds the pid file', async () => {
    const p = project();
    writeFileSync(pidFilePath(join(p.root, '.ddx')), `${process.pid} 2026-11-28T12:00:00Z\n`);
    expect(await startBackground(p.root, p.env, [])).toEqual({ exitCode: 2, stderr: [`helix: run already active (pid=${process.pid}). Use 'helix stop' first.`] });
  });

  it('starts the run in the background, names its pid and log, and stop ends it', async () => {
    // the check's codex hangs: the run stays up until it is stopped
    const p = project({ responses: [{ when: 'codex', hang: true }] });
    const started = await startBackground(p.root, p.env, ['--summary']);
    expect(started.exitCode).toBe(0);
    const [, pid, log] = /^helix: started \(pid=(\d+), log=(.+)\)$/.exec(started.stderr?.[0] ?? '') ?? [];
    expect(readPidFile(join(p.root, '.ddx'))?.pid).toBe(Number(pid));
    expect(log).toMatch(new RegExp(`^${p.root}/\\.helix-logs/helix-\\d{8}-\\d{6}(-\\d+)?\\.log$`));
    expect(await stopBackground(p.root, p.env)).toEqual({ exitCode: 0, stderr: [`helix: stopped (pid=${pid})`] });
    expect(isPidAlive(Number(pid))).toBe(false);
    expect(existsSync(pidFilePath(join(p.root, '.ddx')))).toBe(false);
  });
});
