// `helix run` (shell/run.ts) called in the test's process, the codex stub as a real child:
// its dry run, the refusals before anything is taken (--jobs without current DDx; another run
// holding the mutex, counted where that run keeps its state), and one whole run — a bead built and
// closed, the check answering STOP — with its event log from run_start to stop and its run-state.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runLoop } from '../../../src/supervisor/shell/run.js';
import { parseEvents } from '../../../src/supervisor/shell/events.js';
import { pidFilePath } from '../../../src/supervisor/shell/mutex.js';
import { bead } from '../../helpers/bead.js';
import { CODEX_DRY_RUN, emptyProject } from './empty-project.js';
import { agentProject } from './run-world.js';

afterEach(() => vi.restoreAllMocks());

function world(beads = [bead({ id: 'hx-1', title: 'the one bead' })], script: object = { responses: [] }) {
  const project = agentProject({ beads, script });
  const stderr: string[] = [];
  const stdout: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((text) => (stderr.push(String(text)), true));
  vi.spyOn(process.stdout, 'write').mockImplementation((text) => (stdout.push(String(text)), true));
  return { project, stderr, stdout, options: { cwd: project.root, env: project.env, mode: 'normal' as const, progress: 'plain' as const } };
}

describe('helix run --dry-run', () => {
  it('needs no installed agent: in an empty project it returns the check it would run and writes nothing', async () => {
    const out = vi.spyOn(process.stdout, 'write');
    const err = vi.spyOn(process.stderr, 'write');
    const { cwd, env } = emptyProject();
    expect(await runLoop({ cwd, env, mode: 'normal', dryRun: true })).toEqual({ exitCode: 0, stdout: [expect.stringMatching(CODEX_DRY_RUN)] });
    expect(out).not.toHaveBeenCalled();
    expect(err).not.toHaveBeenCalled();
  });

  it('returns the build command of the next ready bead; with nothing ready, the check', async () => {
    const w = world();
    const next = await runLoop({ ...w.options, dryRun: true });
    expect(next.stdout).toEqual([expect.stringMatching(/^codex --dangerously-bypass-approvals-and-sandbox exec .*hx-1/s)]);
    expect([...w.stderr, ...w.stdout]).toEqual([]);
    w.project.writeBeads([]);
    const check = await runLoop({ ...w.options, dryRun: true });
    expect(check.exitCode).toBe(0);
    expect(check.stdout![0]).not.toContain('hx-1');
    expect(w.project.calls()).toEqual([]);
  });
});

describe('helix run refused before it takes anything', () => {
  it('--jobs 2 without current DDx is refused with 7, no pid file taken', async () => {
    const w = world();
    await expect(runLoop({ ...w.options, settings: { jobs: 2 } })).rejects.toMatchObject({ exitCode: 7, message: expect.stringMatching(/^helix: --jobs 2 needs current DDx/) });
    expect(existsSync(pidFilePath(join(w.project.root, '.ddx')))).toBe(false);
  });

  it('another live run holding the mutex: refused with 2, counted in its run-state', async () => {
    const w = world();
    writeFileSync(pidFilePath(join(w.project.root, '.ddx')), `${process.pid} 2026-11-28T12:00:00Z\n`);
    await expect(runLoop(w.options)).rejects.toMatchObject({ exitCode: 2 });
    expect(w.project.runState()).toMatchObject({ parallel_run_denied_count: 1 });
    expect(w.project.calls()).toEqual([]);
  });
});

describe('a whole run', () => {
  it('builds the bead, asks the check, aligns before stopping on STOP, and leaves its events and run-state', async () => {
    const w = world([bead({ id: 'hx-1', title: 'the one bead' })], { responses: [{ when: 'check', stdout: 'NEXT_ACTION: STOP\n' }] });
    expect(await runLoop({ ...w.options, settings: { autoReview: false } })).toEqual({ exitCode: 0 });
    expect(w.project.bead('hx-1').status).toBe('closed');
    // the check's STOP after a build is preceded by the pre-stop alignment
    expect(w.project.calls().map((c) => c.action)).toEqual(['implementation', 'check', 'align']);
    const state = w.project.runState();
    expect(state).toMatchObject({ completed_cycles: 1, attempted_cycles: 1, memory_status: 'off', current_issue: null });
    const events = parseEvents(readFileSync(state.events as string, 'utf8')).events;
    expect(events[0]).toMatchObject({ type: 'run_start', pid: process.pid, ready: 1, open: 1, agent: 'codex' });
    expect(events.map((e) => e.type)).toContain('claim');
    expect(events.at(-1)).toMatchObject({ type: 'stop', exit: 0 });
    expect(existsSync(pidFilePath(join(w.project.root, '.ddx')))).toBe(false);
    expect(w.stderr.join('')).toContain('helix: ═══ run complete: 1 attempted, 1 completed, 0 skipped');
  });
});
