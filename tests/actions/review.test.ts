// Fresh-eyes review (docs/contract/cli.md §6.5, §8): after a big enough completed cycle inside `helix run`,
// after an epic closes, and as `helix review` on its own. Black-box with stub agents; the
// implementation stub commits real files so the change size is measured from git.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { type StubResponse, World, commitFiles } from './stub-world.js';

/** An implementation answer that commits `files` files of `lines` lines each and closes its bead. */
const implement = (files: number, lines = 1): StubResponse => ({
  when: 'implementation',
  run: [commitFiles(files, lines), ['helix', 'tracker', 'close', '{{id}}']],
  stdout: 'DELIVERED: done\n',
});
const review = (stdout: string): StubResponse => ({ when: 'review', stdout });
const stop: StubResponse = { when: 'check', stdout: 'NEXT_ACTION: STOP\n' };

describe('post-implementation review inside helix run', () => {
  it('a change of 3 files is reviewed; CLEAN lets the loop go on to the next bead', () => {
    const w = new World({ responses: [implement(3), review('REVIEW_STATUS: CLEAN\nISSUES_COUNT: 0\nFINDINGS_FILED: 0\n'), stop] });
    const first = w.bead({ title: 'first', acceptance: 'done' });
    w.bead({ title: 'second', acceptance: 'done' });
    const r = w.helix(['run', '--no-auto-align']);
    expect(r.status).toBe(0);
    expect(w.actions()).toEqual(['implementation', 'review', 'implementation', 'check']);
    const prompt = World.promptOf(w.calls()[1]!);
    expect(prompt).toContain('\nReview scope: last-commit.\nThis review is running inside the automated helix run loop after an implementation cycle.\nIMPORTANT: File each actionable finding');
    expect(prompt).toContain(`Reviewed bead: ${first.id}`);
    expect(r.stderr).toContain('helix: post-implementation review after cycle 1 (last-commit)\n');
    expect(w.beads().every((b) => b.status === 'closed')).toBe(true);
  });

  it('a small change (under the threshold and under 3 files) is not reviewed', () => {
    const w = new World({ responses: [implement(2, 10), stop] });
    w.bead({ title: 'small', acceptance: 'done' });
    expect(w.helix(['run', '--no-auto-align']).status).toBe(0);
    expect(w.actions()).toEqual(['implementation', 'check']);
  });

  it('--review-threshold lowers the line count that triggers a review; --no-auto-review turns it off', () => {
    const reviewed = new World({ responses: [implement(1, 12), stop] });
    reviewed.bead({ title: 'twelve lines', acceptance: 'done' });
    expect(reviewed.helix(['run', '--no-auto-align', '--review-threshold', '12']).status).toBe(0);
    expect(reviewed.actions()).toEqual(['implementation', 'review', 'check']);

    const off = new World({ responses: [implement(5), stop] });
    off.bead({ title: 'five files', acceptance: 'done' });
    expect(off.helix(['run', '--no-auto-align', '--no-auto-review']).status).toBe(0);
    expect(off.actions()).toEqual(['implementation', 'check']);
  });

  it('ISSUES_FOUND: what the reviewer did not file becomes a follow-up bead linked to the reviewed bead and its epic, and the loop builds it', () => {
    const w = new World({
      responses: [
        implement(3),
        {
          when: 'review',
          run: [['helix', 'tracker', 'create', 'Null check missing', '--type', 'bug', '--labels', 'helix,phase:build,review-finding']],
          stdout: 'Two problems:\n1. null check missing (filed)\n2. error swallowed in parse()\nREVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 2\nFINDINGS_FILED: 1\n',
        },
        stop,
      ],
    });
    const epic = w.bead({ title: 'the epic', type: 'epic' });
    const task = w.bead({ title: 'task under the epic', parent: epic.id, acceptance: 'done' });
    const r = w.helix(['run', '--no-auto-align']);
    expect(r.status).toBe(0);
    const followUp = w.beads().find((b) => b.title.startsWith(`Review findings for ${task.id}`));
    expect(followUp).toMatchObject({
      parent: epic.id,
      labels: ['helix', 'phase:build', 'review-finding'],
      'execution-eligible': true,
      notes: `TRIGGERING_CYCLE=1 TRIGGERING_BEAD=${task.id}`,
      dependencies: [expect.objectContaining({ depends_on_id: task.id, type: 'blocks' })],
    });
    expect(r.stderr).toContain('helix: review reported 2 issue(s), 1 filed as tracker issues\n');
    expect(r.stderr).toContain('helix: review filed actionable findings as tracker issues — continuing\n');
    expect(followUp!.title).toContain('1 not filed by the reviewer');
    expect(followUp!.description).toContain('error swallowed in parse()');
    expect(r.stderr).toContain(`helix: filed review follow-up ${followUp!.id} for ${task.id}`);
    // the loop went on: the follow-up under the epic first (epic focus), then the epic closed with
    // its own review, then the reviewer's own finding
    expect(w.actions()).toEqual(['implementation', 'review', 'implementation', 'review', 'implementation', 'check']);
    expect(w.calls()[2]!.id).toBe(followUp!.id);
    expect(World.promptOf(w.calls()[3]!)).toContain(`Reviewed bead: ${epic.id}`);
    expect(w.beads().every((b) => b.status === 'closed')).toBe(true);
    // both findings are review findings in `helix status --json`; helix's own carries its cause
    const statusJson = JSON.parse(w.helix(['status', '--json']).stdout) as { injected_supervisory: Array<{ id: string; type: string; triggering_bead: string | null; triggering_cycle: number | null }> };
    expect(statusJson.injected_supervisory.map((i) => i.type)).toEqual(['review-finding', 'review-finding']);
    expect(statusJson.injected_supervisory).toEqual(expect.arrayContaining([expect.objectContaining({ id: followUp!.id, triggering_bead: task.id, triggering_cycle: 1 })]));
    // and the run-state counts the one helix filed (docs/contract/bash-interface.md §12.3)
    expect(JSON.parse(readFileSync(join(w.repo, '.ddx', 'run-state.json'), 'utf8')).supervisory_injection_count).toEqual({ 'review-finding': 1 });
  });

  it('ISSUES_FOUND with every finding filed by the reviewer files nothing more', () => {
    const w = new World({
      responses: [
        implement(3),
        { when: 'review', run: [['helix', 'tracker', 'create', 'Finding', '--labels', 'review-finding']], stdout: 'REVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 1\n' },
        stop,
      ],
    });
    w.bead({ title: 'task', acceptance: 'done' });
    expect(w.helix(['run', '--no-auto-align']).status).toBe(0);
    // FINDINGS_FILED was left out, but the reviewer's own review-finding bead counts
    expect(w.beads().map((b) => b.title).sort()).toEqual(['Finding', 'task']);
  });

  it('unparseable review output warns with the contract lines and the loop continues', () => {
    const w = new World({ responses: [implement(3), review('Looks fine to me.\n'), stop] });
    w.bead({ title: 'first', acceptance: 'done' });
    w.bead({ title: 'second', acceptance: 'done' });
    const r = w.helix(['run', '--no-auto-align']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('helix: review output missing REVIEW_STATUS trailer\nhelix: review output was not safely interpretable after cycle 1 — continuing\n');
    // --summary: the review's own line shows, the narrative one goes to the log
    const summary = new World({ responses: [implement(3), review('Looks fine to me.\n'), stop] });
    summary.bead({ title: 'first', acceptance: 'done' });
    const s = summary.helix(['run', '--summary', '--no-auto-align']);
    expect(s.stderr).toContain('helix: review output missing REVIEW_STATUS trailer\n');
    expect(s.stderr).not.toContain('not safely interpretable');
    const log = readFileSync(String(JSON.parse(readFileSync(join(summary.repo, '.ddx', 'run-state.json'), 'utf8')).log), 'utf8');
    expect(log).toContain('helix: review output was not safely interpretable after cycle 1 — continuing\n');
    expect(w.actions()).toEqual(['implementation', 'review', 'implementation', 'check']);
  });

  it('ISSUES_FOUND without ISSUES_COUNT is not safely interpretable either', () => {
    const w = new World({ responses: [implement(3), review('REVIEW_STATUS: ISSUES_FOUND\n'), stop] });
    w.bead({ title: 'first', acceptance: 'done' });
    const r = w.helix(['run', '--no-auto-align']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('helix: review output missing ISSUES_COUNT trailer\nhelix: review output was not safely interpretable after cycle 1 — continuing\n');
  });
});

describe('cross-model review', () => {
  it('--review-agent claude with codex primary: the review runs on claude and never receives the primary --model', () => {
    const w = new World({ programs: ['codex', 'claude'], responses: [implement(3), stop], env: { HELIX_ALT_AGENT: 'none' } });
    w.bead({ title: 'task', acceptance: 'done' });
    const r = w.helix(['run', '--no-auto-align', '--model', 'gpt-primary', '--review-agent', 'claude']);
    expect(r.status).toBe(0);
    const calls = w.calls();
    expect(calls.map((c) => `${c.program}:${c.action}`)).toEqual(['codex:implementation', 'claude:review', 'codex:check']);
    expect(calls[0]!.argv).toEqual(expect.arrayContaining(['-m', 'gpt-primary']));
    expect(calls[1]!.argv).not.toContain('--model');
    expect(JSON.stringify(calls[1]!.argv) + calls[1]!.stdin).not.toContain('gpt-primary');
  });

  it('HELIX_REVIEW_AGENT picks the review agent; without it the review goes to the agent that did not build', () => {
    const viaEnv = new World({ programs: ['codex', 'claude'], responses: [implement(3), stop], env: { HELIX_ALT_AGENT: 'none', HELIX_REVIEW_AGENT: 'claude' } });
    viaEnv.bead({ title: 'task', acceptance: 'done' });
    expect(viaEnv.helix(['run', '--no-auto-align']).status).toBe(0);
    expect(viaEnv.calls().map((c) => `${c.program}:${c.action}`)).toEqual(['codex:implementation', 'claude:review', 'codex:check']);

    // Cross-model review (contract change, bead helix-ec6efea5): claude (the alternate) builds and
    // checks, so codex — the agent that did not build — reviews.
    const alternate = new World({ programs: ['codex', 'claude'], responses: [implement(3), stop] });
    alternate.bead({ title: 'task', acceptance: 'done' });
    expect(alternate.helix(['run', '--no-auto-align']).status).toBe(0);
    expect(alternate.calls().map((c) => `${c.program}:${c.action}`)).toEqual(['claude:implementation', 'codex:review', 'claude:check']);

    // A model names who builds (issue 30): codex builds with it, and claude — which did not build — reviews, without it.
    const named = new World({ programs: ['codex', 'claude'], responses: [implement(3), stop] });
    named.bead({ title: 'task', acceptance: 'done' });
    expect(named.helix(['run', '--no-auto-align', '--model', 'gpt-primary']).status).toBe(0);
    expect(named.calls().map((c) => `${c.program}:${c.action}`)).toEqual(['codex:implementation', 'claude:review', 'codex:check']);
    expect(named.calls().find((c) => c.action === 'implementation')?.argv).toEqual(expect.arrayContaining(['-m', 'gpt-primary']));
    for (const call of named.calls().filter((c) => c.program === 'claude')) expect(call.argv).not.toContain('gpt-primary');
  });

  it('through ddx the review harness is the review agent, without the primary --model', () => {
    const w = new World({ programs: ['ddx', 'codex', 'claude'], responses: [{ when: 'execute-bead', run: [commitFiles(3), ['helix', 'tracker', 'close', '{{id}}']] }, stop], env: { HELIX_ALT_AGENT: 'none' } });
    w.bead({ title: 'task', acceptance: 'done' });
    expect(w.helix(['run', '--no-auto-align', '--model', 'gpt-primary', '--review-agent', 'claude']).status).toBe(0);
    const review = w.calls().find((c) => c.action === 'review')!;
    expect(review.argv.slice(0, 8)).toEqual(['agent', 'run', '--harness', 'claude', '--permissions', 'unrestricted', '--timeout', '2700s']);
    expect(review.argv).not.toContain('--model');
    const build = w.calls().find((c) => c.kind === 'execute-bead')!;
    expect(build.argv).toEqual(expect.arrayContaining(['--harness', 'codex', '--model', 'gpt-primary']));
  });
});

describe('post-epic review', () => {
  it('when an epic closes, a review scoped to its spec-id runs before the loop moves on', () => {
    const w = new World({ responses: [stop] });
    const epic = w.bead({ title: 'epic', type: 'epic', specId: 'SPEC-7' });
    w.bead({ title: 'only child', parent: epic.id, acceptance: 'done' });
    const r = w.helix(['run', '--no-auto-align']);
    expect(r.status).toBe(0);
    expect(w.actions()).toEqual(['implementation', 'review', 'check']);
    const prompt = World.promptOf(w.calls()[1]!);
    expect(prompt).toContain('\nReview scope: SPEC-7.\n');
    expect(r.stderr).toContain(`helix: epic ${epic.id} has no remaining open children — closing epic\n`);
    expect(r.stderr).toContain(`helix: post-epic review for ${epic.id} (scope: SPEC-7)\n`);
    expect(prompt).toContain(`Reviewed bead: ${epic.id}`);
    expect(w.beads().find((b) => b.id === epic.id)?.status).toBe('closed');
  });

  it('an epic without a spec-id is reviewed as last-commit; --no-auto-review skips it', () => {
    const w = new World({ responses: [stop] });
    const epic = w.bead({ title: 'epic', type: 'epic' });
    w.bead({ title: 'only child', parent: epic.id, acceptance: 'done' });
    expect(w.helix(['run', '--no-auto-align']).status).toBe(0);
    expect(World.promptOf(w.calls()[1]!)).toContain('\nReview scope: last-commit.\n');

    const off = new World({ responses: [stop] });
    const quiet = off.bead({ title: 'epic', type: 'epic', specId: 'SPEC-8' });
    off.bead({ title: 'only child', parent: quiet.id, acceptance: 'done' });
    expect(off.helix(['run', '--no-auto-align', '--no-auto-review']).status).toBe(0);
    expect(off.actions()).toEqual(['implementation', 'check']);
  });
});

describe('helix review on its own', () => {
  // docs/contract/bash-interface.md §9: the lines and exit codes of the Bash CLI (10 when it found issues)
  const cases: Array<{ name: string; stdout: string; status: number; line: string }> = [
    { name: 'CLEAN exits 0 and says nothing more', stdout: 'REVIEW_STATUS: CLEAN\nISSUES_COUNT: 0\nFINDINGS_FILED: 0\n', status: 0, line: '' },
    { name: 'ISSUES_FOUND with its count exits 10', stdout: '**REVIEW_STATUS:** `ISSUES_FOUND`\nISSUES_COUNT: 3\nFINDINGS_FILED: 3\n', status: 10, line: 'helix: review reported 3 issue(s), 3 filed as tracker issues\n' },
    { name: 'ISSUES_FOUND without FINDINGS_FILED reports 0 filed', stdout: 'REVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 0\n', status: 10, line: 'helix: review reported 0 issue(s), 0 filed as tracker issues\n' },
    { name: 'ISSUES_FOUND without ISSUES_COUNT exits 1', stdout: 'REVIEW_STATUS: ISSUES_FOUND\n', status: 1, line: 'helix: review output missing ISSUES_COUNT trailer\n' },
    { name: 'no trailer exits 1', stdout: 'All good.\n', status: 1, line: 'helix: review output missing REVIEW_STATUS trailer\n' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const w = new World({ responses: [review(c.stdout), review(c.stdout)] });
      const r = w.helix(['review']);
      expect(r.status).toBe(c.status);
      expect(r.stdout).toBe(c.stdout);
      // the verdict line is the last thing said (the --quiet run has no agent-call lines before it)
      expect(w.helix(['review', '--quiet'], {}).stderr).toBe(c.line);
      expect(r.stderr.endsWith(c.line)).toBe(true);
      const prompt = World.promptOf(w.calls()[0]!);
      expect(prompt).toContain('\nReview scope: last-commit.\nIMPORTANT: File each actionable finding');
      // the in-loop sentence belongs to reviews `helix run` starts (§1.8: the Bash one-shot said it too)
      expect(prompt).not.toContain('inside the automated helix run loop');
      // nothing left unfiled (CLEAN, all filed) or nothing safely readable: the tracker is untouched
      expect(w.beads()).toEqual([]);
      expect(r.stderr).not.toContain('review follow-up');
    });
  }

  it('ISSUES_FOUND on a bead with more issues than filed: one follow-up under its epic, depending on it', () => {
    const w = new World({
      responses: [
        {
          when: 'review',
          run: [['helix', 'tracker', 'create', 'Null check missing', '--type', 'bug', '--labels', 'helix,phase:build,review-finding']],
          stdout: '1. null check missing (filed)\n2. error swallowed in parse()\nREVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 2\nFINDINGS_FILED: 1\n',
        },
      ],
    });
    const epic = w.bead({ title: 'the epic', type: 'epic' });
    const task = w.bead({ title: 'task under the epic', parent: epic.id });
    const r = w.helix(['review', task.id]);
    expect(r.status).toBe(10);
    expect(r.stdout).toBe('1. null check missing (filed)\n2. error swallowed in parse()\nREVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 2\nFINDINGS_FILED: 1\n');
    const added = w.beads().filter((b) => b.id !== epic.id && b.id !== task.id);
    expect(added.map((b) => b.title).sort()).toEqual(['Null check missing', `Review findings for ${task.id}: 1 not filed by the reviewer`]);
    const followUp = added.find((b) => b.title.startsWith('Review findings'))!;
    expect(followUp).toMatchObject({
      issue_type: 'bug',
      status: 'open',
      parent: epic.id,
      labels: ['helix', 'phase:build', 'review-finding'],
      notes: `TRIGGERING_BEAD=${task.id}`,
      dependencies: [expect.objectContaining({ depends_on_id: task.id, type: 'blocks' })],
    });
    expect(followUp.description).toContain('error swallowed in parse()');
    expect(r.stderr).toContain(`\nhelix: review reported 2 issue(s), 1 filed as tracker issues\nhelix: filed review follow-up ${followUp.id} for ${task.id}\n`);
    expect(r.stderr.match(/review follow-up/g)).toHaveLength(1);
  });

  it('ISSUES_FOUND on a bead at the end of its review chain (depth 3): nothing filed, the answer in its notes, one line, exit 10 still', () => {
    const w = new World({ responses: [review('error swallowed in parse()\nREVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 1\n')] });
    const deep = w.bead({ title: 'a follow-up of a follow-up of a follow-up', labels: ['review-finding'], set: ['helix-review-depth=3'] });
    const r = w.helix(['review', deep.id]);
    expect(r.status).toBe(10);
    expect(w.beads().map((b) => b.id)).toEqual([deep.id]);
    expect(w.beads()[0]!.notes).toContain('this bead is at depth 3 of its review chain (limit 3');
    expect(w.beads()[0]!.notes).toContain('error swallowed in parse()');
    expect(r.stderr).toContain(`helix: review of ${deep.id} ends its follow-up chain at depth 3 (limit 3): findings left in its notes, no follow-up filed\n`);
  });

  it('ISSUES_FOUND on last-commit with nothing filed: one follow-up without links, named after the scope', () => {
    const w = new World({ responses: [review('REVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 2\n')] });
    const unrelated = w.bead({ title: 'unrelated' });
    const r = w.helix(['review']);
    expect(r.status).toBe(10);
    const followUp = w.beads().find((b) => b.id !== unrelated.id)!;
    expect(w.beads()).toHaveLength(2);
    expect(followUp.title).toBe('Review findings for last-commit: 2 not filed by the reviewer');
    expect(followUp.parent).toBeUndefined();
    expect(followUp.dependencies ?? []).toEqual([]);
    expect(followUp).not.toHaveProperty('notes');
    expect(r.stderr).toContain(`helix: filed review follow-up ${followUp.id} for last-commit\n`);
  });

  it('ISSUES_FOUND with every finding filed by the reviewer (by its own beads) files nothing more', () => {
    const w = new World({
      responses: [
        {
          when: 'review',
          run: [
            ['helix', 'tracker', 'create', 'First', '--labels', 'review-finding'],
            ['helix', 'tracker', 'create', 'Second', '--labels', 'review-finding'],
          ],
          stdout: 'REVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 2\n',
        },
      ],
    });
    const task = w.bead({ title: 'task' });
    const r = w.helix(['review', task.id]);
    expect(r.status).toBe(10);
    expect(w.beads().map((b) => b.title).sort()).toEqual(['First', 'Second', 'task']);
    expect(r.stderr).not.toContain('review follow-up');
  });

  it('--dry-run runs no agent and files nothing', () => {
    const w = new World({ responses: [review('REVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 5\nFINDINGS_FILED: 0\n')] });
    const task = w.bead({ title: 'task' });
    const before = readFileSync(join(w.repo, '.ddx', 'beads.jsonl'), 'utf8');
    const r = w.helix(['review', task.id, '--dry-run']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`Review scope: ${task.id}.`);
    expect(w.calls()).toEqual([]);
    expect(readFileSync(join(w.repo, '.ddx', 'beads.jsonl'), 'utf8')).toBe(before);
  });

  it('a tracker locked by another process: the review is shown, the filing failure is said, exit is the lock-timeout code', () => {
    const lock = join('.ddx', 'beads.lock');
    const w = new World({
      responses: [
        {
          when: 'review',
          // a live process (this test's) holds the tracker lock while helix tries to file
          run: [['mkdir', lock], ['sh', '-c', `echo ${process.pid} > ${lock}/pid`]],
          stdout: 'REVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 1\nFINDINGS_FILED: 0\n',
        },
      ],
      env: { DDX_BEAD_LOCK_TIMEOUT: '300ms' },
    });
    const task = w.bead({ title: 'task' });
    const r = w.helix(['review', task.id]);
    expect(r.status).toBe(EXIT.lockTimeout);
    expect(r.stdout).toBe('REVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 1\nFINDINGS_FILED: 0\n');
    expect(r.stderr).toContain('helix: review reported 1 issue(s), 0 filed as tracker issues\nhelix: could not file review findings: bead: lock timeout after 0.3s');
    expect(w.beads().map((b) => b.id)).toEqual([task.id]);
  });

  it('takes a scope and --review-agent', () => {
    const w = new World({ programs: ['codex', 'claude'] });
    const r = w.helix(['review', 'HEAD~1..HEAD', '--review-agent', 'claude', '--model', 'gpt-primary']);
    expect(r.status).toBe(0);
    const [call] = w.calls();
    expect(call).toMatchObject({ program: 'claude', action: 'review' });
    expect(call!.stdin).toContain('Review scope: HEAD~1..HEAD.');
    expect(call!.argv).not.toContain('gpt-primary');
  });
});

describe('the post-implementation review fails safe (docs/contract/bash-interface.md §2.8)', () => {
  /** A `run` step: write `lines` lines to `file` in the worktree, without committing. */
  const write = (file: string, lines: number): string[] => ['sh', '-c', `seq 1 ${lines} > ${file}`];
  const close: string[] = ['helix', 'tracker', 'close', '{{id}}'];

  it('an unborn HEAD (no commit yet) cannot be measured: the change is reviewed', () => {
    const w = new World({ responses: [{ when: 'implementation', run: [write('first.txt', 3), close] }, stop] });
    rmSync(join(w.repo, '.git'), { recursive: true, force: true });
    w.git('init', '-q', '-b', 'main');
    w.bead({ title: 'first work in a new repository', acceptance: 'done' });
    const r = w.helix(['run', '--no-auto-align']);
    expect(r.status).toBe(0);
    expect(w.actions()).toEqual(['implementation', 'review', 'check']);
    expect(r.stderr).toContain('helix: post-implementation review after cycle 1 (last-commit)\n');
  });

  it('uncommitted changes count: 120 lines written but not committed are reviewed', () => {
    const w = new World({ responses: [{ when: 'implementation', run: [write('notes.txt', 120), close] }, stop] });
    w.bead({ title: 'write without committing', acceptance: 'done' });
    expect(w.helix(['run', '--no-auto-align']).status).toBe(0);
    expect(w.actions()).toEqual(['implementation', 'review', 'check']);
  });

  it('what the attempt changed counts, committed or not: 60 committed + 60 uncommitted lines pass the threshold of 100', () => {
    const w = new World({ responses: [{ when: 'implementation', run: [commitFiles(1, 60), write('more.txt', 60), close] }, stop] });
    w.bead({ title: 'half and half', acceptance: 'done' });
    expect(w.helix(['run', '--no-auto-align']).status).toBe(0);
    expect(w.actions()).toEqual(['implementation', 'review', 'check']);
  });

  it('a small change is skipped with the Bash line naming scope, lines, files and threshold', () => {
    const w = new World({ responses: [{ when: 'implementation', run: [write('small.txt', 10), close] }, stop] });
    w.bead({ title: 'small', acceptance: 'done' });
    const r = w.helix(['run', '--no-auto-align']);
    expect(r.status).toBe(0);
    expect(w.actions()).toEqual(['implementation', 'check']);
    expect(r.stderr).toContain('helix: skipping review for small change (last-commit, 10 lines, 1 file < threshold 100)\n');
  });

  it('--review-threshold 0 reviews every cycle: a change of nothing, and one that cannot be measured', () => {
    const nothing = new World({ responses: [{ when: 'implementation', run: [close] }, stop] });
    nothing.bead({ title: 'changes nothing', acceptance: 'done' });
    expect(nothing.helix(['run', '--no-auto-align', '--review-threshold', '0']).status).toBe(0);
    expect(nothing.actions()).toEqual(['implementation', 'review', 'check']);

    const unborn = new World({ responses: [{ when: 'implementation', run: [close] }, stop] });
    rmSync(join(unborn.repo, '.git'), { recursive: true, force: true });
    unborn.git('init', '-q', '-b', 'main');
    unborn.bead({ title: 'no history', acceptance: 'done' });
    expect(unborn.helix(['run', '--no-auto-align', '--review-threshold', '0']).status).toBe(0);
    expect(unborn.actions()).toEqual(['implementation', 'review', 'check']);
  });

  it('a bead closed with a commit that exists here is reviewed as commit:<sha>; one that does not falls back to last-commit and says so', () => {
    const sha = (w: World) => w.git('rev-parse', 'HEAD').trim();
    const w = new World({ responses: [{ when: 'implementation', run: [commitFiles(3), ['sh', '-c', 'helix tracker close "$0" --commit "$(git rev-parse HEAD)"', '{{id}}']] }, stop] });
    const b = w.bead({ title: 'closed with its commit', acceptance: 'done' });
    const r = w.helix(['run', '--no-auto-align']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`helix: post-implementation review after cycle 1 (commit:${sha(w)})\n`);
    expect(World.promptOf(w.calls()[1]!)).toContain(`\nReview scope: commit:${sha(w)}.\n`);
    expect(w.beads().find((x) => x.id === b.id)?.closing_commit_sha).toBe(sha(w));

    const gone = 'f'.repeat(40);
    const v = new World({ responses: [{ when: 'implementation', run: [commitFiles(3), ['helix', 'tracker', 'close', '{{id}}', '--commit', gone]] }, stop] });
    const c = v.bead({ title: 'closed with a commit from elsewhere', acceptance: 'done' });
    const s = v.helix(['run', '--no-auto-align']);
    expect(s.stderr).toContain(`helix: review fallback: closing_commit_sha for ${c.id} is unavailable locally (${gone})\n`);
    expect(s.stderr).toContain('helix: post-implementation review after cycle 1 (last-commit)\n');
  });
});
