// `helix check` (shell/check.ts) called in the test's process with the codex stub as a
// real child: a dry run (no agent installed: empty-project.ts) returns the command line and writes nothing; the check's answer goes to
// stdout, and it exits 0 only when the answer names a NEXT_ACTION.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkOnce } from '../../../src/supervisor/shell/check.js';
import { CODEX_DRY_RUN, emptyProject } from './empty-project.js';
import { agentProject } from './run-world.js';

afterEach(() => vi.restoreAllMocks());

function world(script: object = { responses: [] }) {
  const project = agentProject({ script });
  const stderr: string[] = [];
  const stdout: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((text) => (stderr.push(String(text)), true));
  vi.spyOn(process.stdout, 'write').mockImplementation((text) => (stdout.push(String(text)), true));
  return { project, stderr, stdout, options: { cwd: project.root, env: project.env, mode: 'normal' as const } };
}

describe('helix check', () => {
  it('a dry run needs no installed agent, returns its command line and writes nothing to stdout or stderr', async () => {
    const out = vi.spyOn(process.stdout, 'write');
    const err = vi.spyOn(process.stderr, 'write');
    const { cwd, env } = emptyProject();
    expect(await checkOnce({ cwd, env, mode: 'normal', dryRun: true, scope: 'src/parser' })).toEqual({ exitCode: 0, stdout: [expect.stringMatching(CODEX_DRY_RUN)] });
    expect((await checkOnce({ cwd, env, mode: 'normal', dryRun: true, scope: 'src/parser' })).stdout![0]).toContain('src/parser');
    expect(out).not.toHaveBeenCalled();
    expect(err).not.toHaveBeenCalled();
  });

  it("prints the check's answer on stdout and exits 0 when it names a NEXT_ACTION", async () => {
    const w = world({ responses: [{ when: 'check', stdout: 'Queue is empty.\nNEXT_ACTION: ALIGN\n' }] });
    expect(await checkOnce(w.options)).toEqual({ exitCode: 0 });
    expect(w.stdout.join('')).toBe('Queue is empty.\nNEXT_ACTION: ALIGN\n');
    expect(w.project.checkCalls()).toHaveLength(1);
  });

  it('exits 1 and says so when the answer names no NEXT_ACTION', async () => {
    const w = world({ responses: [{ when: 'check', stdout: 'I looked around.\n' }] });
    expect(await checkOnce(w.options)).toEqual({ exitCode: 1 });
    expect(w.stdout.join('')).toBe('I looked around.\n');
    expect(w.stderr.join('')).toContain('helix: unable to determine NEXT_ACTION from check output\n');
  });
});
