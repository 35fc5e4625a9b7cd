// The one-shot actions (shell/one-shot.ts) called in the test's process: a dry run returns its
// command line and writes nothing, an experiment on a dirty worktree is refused before any call,
// an alignment runs under its governing bead (closed and recorded when it finished, open again when
// it failed, the exit status the agent's), a review that failed fails the action; and the one
// answer path judges an answer by its trailers and files what a review counted but did not file.
// The agent is the codex stub, a real child process; what would be printed is recorded.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AgentRunResult } from '../../../src/agents/index.js';
import { SessionOutput } from '../../../src/supervisor/shell/output.js';
import { answerAction, runOneShotAction } from '../../../src/supervisor/shell/one-shot.js';
import { readRunState } from '../../../src/supervisor/shell/run-state.js';
import { BeadStore } from '../../../src/tracker/index.js';
import { bead } from '../../helpers/bead.js';
import { Project } from '../../run/stub-project.js';
import { CODEX_DRY_RUN, emptyProject } from './empty-project.js';
import { agentProject } from './run-world.js';

afterEach(() => vi.restoreAllMocks());

/** The stub project with codex alone on PATH, and what helix writes to stderr and stdout recorded (not printed). */
function world(script: object = { responses: [] }, beads = [bead({ id: 'hx-1' })]) {
  const project = agentProject({ script, beads });
  const stderr: string[] = [];
  const stdout: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((text) => (stderr.push(String(text)), true));
  vi.spyOn(process.stdout, 'write').mockImplementation((text) => (stdout.push(String(text)), true));
  return { project, stderr, stdout, options: { cwd: project.root, env: project.env, mode: 'normal' as const } };
}

const answered = (answer: string, exitCode = 0): AgentRunResult => ({ exitCode, output: answer, stdout: answer, stderr: '', answer, durationMs: 1, timedOut: false, aborted: false, tokens: 0 });

describe('runOneShotAction', () => {
  it('a dry run needs no installed agent, returns its command line, writes nothing and takes no governing bead', async () => {
    const out = vi.spyOn(process.stdout, 'write');
    const err = vi.spyOn(process.stderr, 'write');
    const { cwd, env } = emptyProject();
    expect(await runOneShotAction('align', { cwd, env, mode: 'normal', dryRun: true })).toEqual({ exitCode: 0, stdout: [expect.stringMatching(CODEX_DRY_RUN)] });
    expect(out).not.toHaveBeenCalled();
    expect(err).not.toHaveBeenCalled();
    expect(readFileSync(join(cwd, '.ddx', 'beads.jsonl'), 'utf8')).toBe('');
  });

  it('an experiment on a worktree with uncommitted tracked changes is refused with the three lines, no agent called', async () => {
    const w = world();
    writeFileSync(join(w.project.root, 'tracked.txt'), 'one\n');
    spawnSync('git', ['add', 'tracked.txt'], { cwd: w.project.root });
    const result = await runOneShotAction('experiment', w.options);
    expect(result).toEqual({
      exitCode: 1,
      stderr: ['helix: worktree has uncommitted changes', 'helix: please commit your changes before starting an experiment', 'helix: experiment needs a clean worktree to safely branch and revert'],
    });
    expect(w.stderr).toEqual([]);
    expect(w.project.calls()).toEqual([]);
  });

  it('an alignment that finished closes its governing bead and records when; its answer goes to stdout', async () => {
    const w = world({ responses: [{ when: 'align', stdout: 'aligned.\n' }] });
    expect(await runOneShotAction('align', w.options)).toEqual({ exitCode: 0 });
    const governing = w.project.beads().find((b) => b.title === 'align: repo');
    expect(governing).toMatchObject({ status: 'closed' });
    expect(w.project.calls()[0]?.stdin).toContain(governing!.id);
    expect(typeof readRunState(join(w.project.root, '.ddx'))?.last_alignment).toBe('string');
    expect(w.stdout.join('')).toBe('aligned.\n');
  });

  it("an alignment that failed exits with the agent's status and leaves its governing bead open for the next", async () => {
    const w = world({ responses: [{ when: 'align', exit: 4 }] });
    expect(await runOneShotAction('align', w.options)).toEqual({ exitCode: 4 });
    expect(w.project.beads().find((b) => b.title === 'align: repo')).toMatchObject({ status: 'open' });
    expect(readRunState(join(w.project.root, '.ddx'))?.last_alignment).toBeUndefined();
  });

  it('a review whose agent failed fails the action whatever its trailers say', async () => {
    const w = world({ responses: [{ when: 'review', stdout: 'REVIEW_STATUS: CLEAN\n', exit: 2 }] });
    expect(await runOneShotAction('review', w.options)).toEqual({ exitCode: 1 });
    expect(w.stderr.join('')).toContain('helix: review failed (rc=2)\n');
  });
});

describe('answerAction', () => {
  function output(root: string) {
    const stderr: string[] = [];
    const stdout: string[] = [];
    return { stderr, stdout, output: new SessionOutput(root, 'normal', new Date(), (t) => void stderr.push(t), (t) => void stdout.push(t)) };
  }

  it('files the findings a review counted but did not file, as follow-ups of the reviewed bead', () => {
    const p = new Project({ beads: [bead({ id: 'hx-1', status: 'closed' })] });
    const o = output(p.root);
    const store = new BeadStore(join(p.root, '.ddx'), p.env);
    const before = store.read();
    const result = answerAction(o.output, 'review', answered('1. the parser drops the last line\nREVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 1\nFINDINGS_FILED: 0\n'), p.root, { store, before, reviewedId: 'hx-1', cycle: 3 }, 'always');
    expect(result.verdict).toMatchObject({ ok: true, exitCode: 10 });
    expect(result.followUp.outcome).toBe('filed');
    const filed = p.beads().filter((b) => b.id !== 'hx-1');
    expect(filed).toHaveLength(1);
    expect(filed[0]?.labels).toEqual(expect.arrayContaining(['review-finding']));
    expect(o.stdout.join('')).toContain('the parser drops the last line');
  });

  it("a backfill whose declared report is not there fails, said in the Bash CLI's line", () => {
    const p = new Project();
    const o = output(p.root);
    const result = answerAction(o.output, 'backfill', answered('BACKFILL_STATUS: COMPLETE\nBACKFILL_REPORT: docs/missing.md\n'), p.root, undefined, 'always');
    expect(result.verdict.ok).toBe(false);
    expect(o.stderr.join('')).toContain('docs/missing.md');
  });

  it('an answer kept out of stdout stays in the log only', () => {
    const p = new Project();
    const o = output(p.root);
    answerAction(o.output, 'polish', answered('polished\n'), p.root, undefined, 'narrative', false);
    expect(o.stdout).toEqual([]);
  });
});
