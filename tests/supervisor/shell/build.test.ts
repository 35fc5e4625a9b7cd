// `helix build` (shell/build.ts) called in the test's process, the codex stub as a real
// child: its dry run (the empty queue's placeholder; a selector matching nothing), the run mutex it
// holds like a run, and the verdict of the one pass — completed (0), a usage limit in the middle of
// the attempt (20, the claim released), not completed (1, saying why).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildOnce } from '../../../src/supervisor/shell/build.js';
import { pidFilePath } from '../../../src/supervisor/shell/mutex.js';
import { bead } from '../../helpers/bead.js';
import { agentProject } from './run-world.js';

afterEach(() => vi.restoreAllMocks());

function world(script: object = { responses: [] }, beads = [bead({ id: 'hx-1', title: 'the one bead' })]) {
  const project = agentProject({ beads, script });
  const stderr: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((text) => (stderr.push(String(text)), true));
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  return { project, stderr, options: { cwd: project.root, env: project.env, mode: 'normal' as const } };
}

describe('helix build --dry-run', () => {
  it('with nothing ready prints the command with the placeholder; a selector that matches nothing is refused', async () => {
    const w = world({ responses: [] }, []);
    const dry = await buildOnce({ ...w.options, dryRun: true });
    expect(dry.exitCode).toBe(0);
    expect(dry.stdout![0]).toContain(' <ready-bead>');
    await expect(buildOnce({ ...w.options, dryRun: true, selector: 'hx-none' })).rejects.toMatchObject({ exitCode: 1, message: 'helix: no execution-ready bead matched the build selector' });
    expect(w.project.calls()).toEqual([]);
  });
});

describe('helix build', () => {
  it('is refused with 2 while a run holds the mutex, saying so', async () => {
    const w = world();
    writeFileSync(pidFilePath(join(w.project.root, '.ddx')), `${process.pid} 2026-11-28T12:00:00Z\n`);
    await expect(buildOnce(w.options)).rejects.toMatchObject({ exitCode: 2, message: expect.stringMatching(/^helix build: not started: .*; wait for it, or end it with helix stop$/) });
    expect(w.project.calls()).toEqual([]);
  });

  it('builds the bead and exits 0, the mutex released', async () => {
    const w = world();
    expect(await buildOnce(w.options)).toEqual({ exitCode: 0 });
    expect(w.project.bead('hx-1').status).toBe('closed');
    expect(existsSync(pidFilePath(join(w.project.root, '.ddx')))).toBe(false);
  });

  it('a usage limit in the middle of the attempt: exit 20, not an attempt, the claim released', async () => {
    const w = world({ responses: [{ when: 'implementation', turnFailed: 'rate limit exceeded: Please try again in 0.2s.', exit: 1 }] });
    expect(await buildOnce(w.options)).toEqual({ exitCode: 20 });
    expect(w.project.bead('hx-1')).toMatchObject({ status: 'open' });
    expect(w.project.bead('hx-1').owner).toBeUndefined();
    expect(w.stderr.join('')).toMatch(/helix: build of hx-1 not attempted \(claim released\): codex rate limit/);
  });

  it('a pass that did not complete exits 1 and says why', async () => {
    const w = world({ responses: [{ when: 'implementation', stdout: 'could not do it\n', exit: 1 }] });
    expect(await buildOnce(w.options)).toEqual({ exitCode: 1 });
    expect(w.project.bead('hx-1').status).toBe('open');
    expect(w.stderr.join('')).toMatch(/helix: build of hx-1 did not complete: /);
  });
});
