// The one-shot actions (contract §2, §8): align under its governing bead, design/plan and polish
// with --rounds, backfill's trailers and report file, experiment's clean-worktree rule, and the
// prompt every action hands its agent. Black-box: the real CLI, stub agents, temp git repos.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { World } from './harness.js';

const governingBeads = (w: World) => w.beads().filter((b) => (b.labels ?? []).includes('action:align'));

describe('helix align: the governing bead', () => {
  it('is created once with kind:planning and action:align, named in the prompt, released after, and reused next time', () => {
    const w = new World();
    const first = w.helix(['align']);
    expect(first.status).toBe(0);
    const [governing] = governingBeads(w);
    expect(governing).toMatchObject({ title: 'Alignment: repo', labels: ['kind:planning', 'action:align'], status: 'open', 'execution-eligible': false });
    expect(governing).not.toHaveProperty('claimed-pid');
    expect(World.promptOf(w.calls()[0]!)).toContain(`Governing bead: ${governing!.id}`);

    expect(w.helix(['align']).status).toBe(0);
    expect(governingBeads(w).map((b) => b.id)).toEqual([governing!.id]);
    expect(World.promptOf(w.calls()[1]!)).toContain(`Governing bead: ${governing!.id}`);
  });

  it('is held (in_progress, this pid) while the agent runs; the agent may close it', () => {
    const w = new World({
      responses: [{ when: 'align', run: [['sh', '-c', 'helix tracker list --label action:align --json > held.json']], stdout: 'ALIGNMENT_STATUS: ALIGNED\n' }],
    });
    expect(w.helix(['align']).status).toBe(0);
    // the agent's view while running
    const held = JSON.parse(readFileSync(join(w.repo, 'held.json'), 'utf8')) as Array<Record<string, unknown>>;
    expect(held).toHaveLength(1);
    expect(held[0]).toMatchObject({ status: 'in_progress', owner: 'helix' });

    const closing = new World({ responses: [{ when: 'align', run: [['sh', '-c', 'id=$(helix tracker list --label action:align --json | node -e "process.stdout.write(JSON.parse(require(\'fs\').readFileSync(0))[0].id)") && helix tracker close "$id"']] }] });
    expect(closing.helix(['align']).status).toBe(0);
    expect(governingBeads(closing).map((b) => b.status)).toEqual(['closed']);
    // a closed one is done: the next alignment gets a new governing bead
    expect(closing.helix(['align']).status).toBe(0);
    expect(governingBeads(closing).map((b) => b.status).sort()).toEqual(['closed', 'open']);
  });

  it('is per scope', () => {
    const w = new World();
    expect(w.helix(['align']).status).toBe(0);
    expect(w.helix(['align', 'SPEC-1']).status).toBe(0);
    expect(governingBeads(w).map((b) => b.title).sort()).toEqual(['Alignment: SPEC-1', 'Alignment: repo']);
    expect(World.promptOf(w.calls()[1]!)).toContain('Scope: SPEC-1');
  });

  it('refuses while another live process holds it, and runs no agent', async () => {
    const w = new World();
    expect(w.helix(['align']).status).toBe(0);
    const [governing] = governingBeads(w);
    const holder = spawn('sleep', ['30']);
    try {
      w.store.mutate((d) => d.change(governing!.id, (b) => {
        b.status = 'in_progress';
        b.owner = 'helix';
        b['claimed-pid'] = String(holder.pid);
        b['claimed-at'] = new Date(Date.now() - 86_400_000).toISOString();
      }));
      const r = w.helix(['align']);
      expect(r.status).toBe(4);
      expect(r.stderr).toContain(`helix: alignment for repo is already in progress (${governing!.id}, pid ${holder.pid})`);
      expect(w.calls()).toHaveLength(1);
      expect(w.beads().find((b) => b.id === governing!.id)).toMatchObject({ status: 'in_progress', 'claimed-pid': String(holder.pid) });
    } finally {
      holder.kill();
    }
  });

  it('reclaims one whose holder is no longer running', () => {
    const w = new World();
    expect(w.helix(['align']).status).toBe(0);
    const [governing] = governingBeads(w);
    w.store.mutate((d) => d.change(governing!.id, (b) => {
      b.status = 'in_progress';
      b.owner = 'helix';
      b['claimed-pid'] = '999999';
      b['claimed-at'] = new Date().toISOString();
    }));
    const r = w.helix(['align']);
    expect(r.status).toBe(0);
    expect(governingBeads(w).map((b) => [b.id, b.status])).toEqual([[governing!.id, 'open']]);
    expect(World.promptOf(w.calls()[1]!)).toContain(`Governing bead: ${governing!.id}`);
  });

  it('a failing alignment agent exits 1 and still releases the bead', () => {
    const w = new World({ responses: [{ when: 'align', exit: 5 }] });
    const r = w.helix(['align']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('helix: align failed (rc=5)');
    expect(governingBeads(w).map((b) => b.status)).toEqual(['open']);
  });
});

describe('helix design / plan and polish', () => {
  it('design passes --rounds (default 5) into the plan prompt; plan is its alias; the exit status decides', () => {
    const w = new World({ responses: [{ when: 'plan', stdout: 'PLAN_STATUS: IN_PROGRESS\n' }, { when: 'plan', exit: 2 }] });
    expect(w.helix(['design']).status).toBe(0);
    const r = w.helix(['plan', 'SPEC-2', '--rounds', '3']);
    expect(r.status).toBe(1);
    expect(w.helix(['design', '--rounds', 'zero']).status).toBe(7);
    const prompts = w.calls().map(World.promptOf);
    expect(prompts).toHaveLength(2);
    expect(prompts[0]).toContain('Scope: repo\nRounds: 5\n');
    expect(prompts[1]).toContain('Scope: SPEC-2\nRounds: 3\n');
  });

  it('polish passes --rounds (default 6) and logs POLISH_STATUS', () => {
    const w = new World({ responses: [{ when: 'polish', stdout: 'POLISH_STATUS: CONVERGED\n' }] });
    const r = w.helix(['polish']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('helix: polish status CONVERGED');
    expect(w.helix(['polish', '--rounds', '2']).status).toBe(0);
    expect(w.calls().map(World.promptOf).map((p) => /Rounds: (\d+)/.exec(p)?.[1])).toEqual(['6', '2']);
  });
});

describe('helix backfill', () => {
  const answer = (lines: string[]) => ({ when: 'backfill', stdout: `${lines.join('\n')}\n` });

  it('COMPLETE with an existing report: prints the research epic and the report, exit 0', () => {
    const w = new World({ responses: [answer(['BACKFILL_STATUS: COMPLETE', 'BACKFILL_REPORT: docs/helix/report.md', 'RESEARCH_EPIC: hx-0000beef'])] });
    w.file('docs/helix/report.md', '# report\n');
    const r = w.helix(['backfill']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('helix: research epic=hx-0000beef\nhelix: backfill report=docs/helix/report.md\n');
    expect(World.promptOf(w.calls()[0]!)).toContain('Scope: repo');
  });

  it('GUIDANCE_NEEDED is a success too', () => {
    const w = new World({ responses: [answer(['BACKFILL_STATUS: GUIDANCE_NEEDED', 'BACKFILL_REPORT: r.md', 'RESEARCH_EPIC: none'])] });
    w.file('r.md', 'x\n');
    const r = w.helix(['backfill', 'src/']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('helix: research epic=none');
  });

  const failures: Array<{ name: string; lines: string[]; message: string; writeReport?: boolean }> = [
    { name: 'BLOCKED', lines: ['BACKFILL_STATUS: BLOCKED', 'BACKFILL_REPORT: r.md'], message: 'helix: backfill BLOCKED', writeReport: true },
    { name: 'a missing BACKFILL_STATUS', lines: ['BACKFILL_REPORT: r.md'], message: 'helix: backfill output missing BACKFILL_STATUS trailer', writeReport: true },
    { name: 'a missing BACKFILL_REPORT', lines: ['BACKFILL_STATUS: COMPLETE'], message: 'helix: backfill output missing BACKFILL_REPORT trailer' },
    { name: 'a report file that does not exist', lines: ['BACKFILL_STATUS: COMPLETE', 'BACKFILL_REPORT: docs/nowhere.md'], message: 'helix: backfill report not found: docs/nowhere.md' },
  ];
  for (const f of failures) {
    it(`${f.name} exits 1 and says so`, () => {
      const w = new World({ responses: [answer(f.lines)] });
      if (f.writeReport) w.file('r.md', 'x\n');
      const r = w.helix(['backfill']);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(f.message);
    });
  }
});

describe('helix experiment', () => {
  it('refuses a dirty worktree and runs no agent', () => {
    const w = new World();
    w.file('scratch.txt', 'uncommitted\n');
    const r = w.helix(['experiment', 'make it faster']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('helix: experiment refuses a dirty worktree');
    expect(w.calls()).toHaveLength(0);
  });

  it('runs on a clean worktree, even after other helix commands wrote their logs; --close reaches the prompt', () => {
    const w = new World();
    expect(w.helix(['review']).status).toBe(0);
    expect(existsSync(join(w.repo, '.helix-logs'))).toBe(true);
    const r = w.helix(['experiment', 'make it faster', '--close']);
    expect(r.status).toBe(0);
    const prompt = World.promptOf(w.calls()[1]!);
    expect(prompt).toContain('Scope: make it faster');
    expect(prompt).toContain('(--close)');
  });
});

describe('every prompt names its action file and carries its action phrase', () => {
  // experiment first: it needs the clean worktree the others (align's governing bead) change
  const expected: Array<{ action: string; file: string; phrase: string; args: string[] }> = [
    { action: 'experiment', file: 'experiment.md', phrase: 'experiment action', args: ['experiment', 'goal'] },
    { action: 'align', file: 'reconcile-alignment.md', phrase: 'alignment action', args: ['align'] },
    { action: 'plan', file: 'plan.md', phrase: 'plan action', args: ['design'] },
    { action: 'polish', file: 'polish.md', phrase: 'polish action', args: ['polish'] },
    { action: 'review', file: 'fresh-eyes-review.md', phrase: 'fresh-eyes review', args: ['review'] },
    { action: 'backfill', file: 'backfill-helix-docs.md', phrase: 'backfill action', args: ['backfill'] },
    { action: 'check', file: 'check.md', phrase: 'check action', args: ['check'] },
  ];

  it('for each one-shot action and check, through codex (last argument), claude (stdin) and ddx agent run (stdin)', () => {
    for (const [program, agent] of [['codex', 'codex'], ['claude', 'claude'], ['ddx', 'claude']] as const) {
      const w = new World({
        programs: [program],
        defaults: { backfill: { stdout: 'BACKFILL_STATUS: COMPLETE\nBACKFILL_REPORT: report.md\n' } },
        env: { HELIX_LIBRARY_ROOT: '/opt/helix-library' },
      });
      w.file('report.md', 'report\n');
      w.git('add', 'report.md');
      w.git('commit', '-q', '-m', 'report');
      for (const e of expected) expect(w.helix([...e.args, '--agent', agent]).status).toBe(0);
      const calls = w.calls().filter((c) => c.kind !== 'execute-bead-help' && c.kind !== 'version');
      expect(calls.every((c) => c.kind === (program === 'ddx' ? 'agent-run' : program))).toBe(true);
      expect(calls.map((c) => c.action)).toEqual(expected.map((e) => e.action));
      calls.forEach((call, i) => {
        const prompt = World.promptOf(call);
        expect(prompt).toContain(expected[i]!.phrase);
        expect(prompt).toContain(`/opt/helix-library/actions/${expected[i]!.file}`);
      });
    }
  });

  it('for implementation, inside helix run, with its target line', () => {
    const w = new World({ env: { HELIX_LIBRARY_ROOT: '/opt/helix-library' } });
    const b = w.bead({ title: 'task', acceptance: 'done' });
    w.helix(['run', '--max-cycles', '1']);
    const [call] = w.calls();
    expect(call!.action).toBe('implementation');
    const prompt = World.promptOf(call!);
    expect(prompt).toContain('implementation action');
    expect(prompt).toContain('/opt/helix-library/actions/implementation.md');
    expect(prompt).toContain(`Implementation target: ${b.id}`);
  });
});
