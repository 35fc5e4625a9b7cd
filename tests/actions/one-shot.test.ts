// The one-shot actions (docs/contract/cli.md §2, §8): align under its governing bead, design/plan and polish
// with --rounds, backfill's trailers and report file, experiment's clean-worktree rule, and the
// prompt every action hands its agent. Black-box: the real CLI, stub agents, temp git repos.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { World } from './stub-world.js';

const governingBeads = (w: World) => w.beads().filter((b) => (b.labels ?? []).includes('action:align'));
const DEFAULT_AREAS = ['area:ui', 'area:api', 'area:data', 'area:infra', 'area:cli'];
const GOVERNING_LABELS = ['helix', 'phase:review', 'kind:planning', 'action:align'];
const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();
const deadPid = () => String(spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' }).pid);

describe('helix align: the governing bead (docs/contract/bash-interface.md §5)', () => {
  it('is created as `align: <scope>` with the Bash labels, description and acceptance, left open for the agent, and closed when the alignment finishes', () => {
    const w = new World();
    const first = w.helix(['align']);
    expect(first.status).toBe(0);
    const [governing] = governingBeads(w);
    expect(governing).toMatchObject({
      title: 'align: repo',
      issue_type: 'task',
      labels: [...GOVERNING_LABELS, ...DEFAULT_AREAS],
      // the alignment finished: helix closed it (docs/contract/cli.md §6.5), no claim left on it
      status: 'closed',
      'execution-eligible': false,
      description: 'Top-down reconciliation review for repo.\nScope: repo.\nScope areas: ui, api, data, infra, cli.',
      acceptance: 'Alignment review complete; all gaps classified; execution issues created for real gaps; traceability matrix produced',
    });
    expect(governing).not.toHaveProperty('spec-id');
    expect(governing).not.toHaveProperty('claimed-pid');
    const prompt = World.promptOf(w.calls()[0]!);
    expect(prompt).toContain(`\nReview scope: repo.\nGoverning alignment bead: ${governing!.id} (created by the wrapper entrypoint; claim and reuse it instead of creating a duplicate governing bead).\n`);
  });

  it('an open one is claimed for the alignment and named as claimed; the finished alignment closes it, a failed one leaves it open and unclaimed', () => {
    const w = new World({ responses: [{ when: 'align', exit: 3 }] });
    const id = w.bead({ title: 'align: repo', labels: ['kind:planning', 'action:align'] }).id;
    expect(w.helix(['align']).status).toBe(3);
    expect(World.promptOf(w.calls()[0]!)).toContain(
      `Governing alignment bead: ${id} (claimed by the wrapper entrypoint; treat Phase 0.5 as already satisfied unless tracker metadata drifted materially).`,
    );
    expect(governingBeads(w)[0]).toMatchObject({ id, status: 'open' });
    expect(governingBeads(w)[0]).not.toHaveProperty('claimed-pid');
    expect(w.helix(['align']).status).toBe(0);
    expect(governingBeads(w).map((b) => [b.id, b.status])).toEqual([[id, 'closed']]);
  });

  it('while a live process holds it, it is refused with the owner named, exit 1, no agent call, the bead untouched', () => {
    const w = new World();
    const holder = spawn('sleep', ['30']);
    try {
      const id = w.bead({ title: 'align: repo', labels: ['kind:planning', 'action:align'] }).id;
      w.store.mutate((d) => d.change(id, (b) => {
        b.status = 'in_progress';
        b.owner = 'helix';
        b['claimed-pid'] = String(holder.pid);
        b['claimed-at'] = new Date().toISOString();
      }));
      const before = JSON.stringify(governingBeads(w)[0]);
      const r = w.helix(['align']);
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(`helix: alignment already active for repo under owner helix (${id}); refusing duplicate dispatch\n`);
      expect(w.calls()).toHaveLength(0);
      expect(JSON.stringify(governingBeads(w)[0])).toBe(before);
    } finally {
      holder.kill();
    }
  });

  it('without an owner the refusal names none; a live holder is refused whatever the claim’s age', () => {
    const w = new World();
    const holder = spawn('sleep', ['30']);
    try {
      const id = w.bead({ title: 'align: repo', labels: ['kind:planning', 'action:align'] }).id;
      w.store.mutate((d) => d.change(id, (b) => {
        b.status = 'in_progress';
        b['claimed-pid'] = String(holder.pid);
        b['claimed-at'] = hoursAgo(48);
      }));
      const r = w.helix(['align']);
      expect(r.status).toBe(1);
      expect(r.stderr).toBe(`helix: alignment already active for repo (${id}); refusing duplicate dispatch\n`);
      expect(w.calls()).toEqual([]);
    } finally {
      holder.kill();
    }
  });

  it('an orphaned one (claimer dead, claim older than HELIX_ORPHAN_THRESHOLD) is reclaimed and named as claimed', () => {
    const w = new World();
    const pid = deadPid();
    const id = w.bead({ title: 'align: repo', labels: ['kind:planning', 'action:align', 'area:keep'] }).id;
    w.store.mutate((d) => d.change(id, (b) => {
      b.status = 'in_progress';
      b.owner = 'someone';
      b['claimed-pid'] = pid;
      b['claimed-at'] = hoursAgo(3);
    }));
    const r = w.helix(['align']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^helix: alignment bead ${id} for repo is orphaned \\(age=\\d+s, pid=${pid}\\); reclaiming$`, 'm'));
    expect(World.promptOf(w.calls()[0]!)).toContain(`Governing alignment bead: ${id} (claimed by the wrapper entrypoint;`);
    // existing labels first, the missing ones added; the alignment finished: closed, no claim left
    expect(governingBeads(w)[0]).toMatchObject({ status: 'closed', labels: ['kind:planning', 'action:align', 'area:keep', 'helix', 'phase:review', ...DEFAULT_AREAS] });
    expect(governingBeads(w)[0]).not.toHaveProperty('claimed-pid');
    // HELIX_ORPHAN_THRESHOLD decides what is old enough
    const fresh = new World({ env: { HELIX_ORPHAN_THRESHOLD: '86400' } });
    const freshId = fresh.bead({ title: 'align: repo', labels: ['kind:planning', 'action:align'] }).id;
    fresh.store.mutate((d) => d.change(freshId, (b) => {
      b.status = 'in_progress';
      b['claimed-pid'] = pid;
      b['claimed-at'] = hoursAgo(3);
    }));
    expect(fresh.helix(['align']).status).toBe(1);
  });

  it('is found by its exact title: an agent’s `align: src/x` bead is not taken for the repo scope, and is reused for its own', () => {
    const w = new World();
    const agentMade = w.bead({ title: 'align: src/x', labels: ['kind:planning', 'action:align'] }).id;
    expect(w.helix(['align']).status).toBe(0);
    expect(governingBeads(w).map((b) => b.title).sort()).toEqual(['align: repo', 'align: src/x']);
    expect(World.promptOf(w.calls()[0]!)).not.toContain(agentMade);
    expect(w.helix(['align', 'src/x']).status).toBe(0);
    expect(World.promptOf(w.calls()[1]!)).toContain(`Governing alignment bead: ${agentMade} (claimed by the wrapper entrypoint;`);
    expect(World.promptOf(w.calls()[1]!)).toContain('Review scope: src/x.');
    expect(governingBeads(w).filter((b) => b.title === 'align: src/x')).toHaveLength(1);
  });

  it('area labels: the backquoted `area:*` tokens of concerns.md for repo; path rules, area scopes and artifact ids for others', () => {
    const w = new World();
    w.file('docs/helix/01-frame/concerns.md', '# Concerns\n\n- `area:api` owns the HTTP layer; see `area:data`.\n- again `area:api` and area:bare\n');
    w.git('add', '.');
    w.git('commit', '-q', '-m', 'concerns');
    for (const scope of ['repo', 'docs/demos/intro', './scripts/x.sh', 'area:payments', 'FEAT-12', 'workflows/phases/artifacts']) {
      expect(w.helix(['align', scope]).status).toBe(0);
    }
    const byTitle = new Map(governingBeads(w).map((b) => [b.title, b]));
    const areas = (scope: string) => (byTitle.get(`align: ${scope}`)?.labels ?? []).slice(GOVERNING_LABELS.length);
    expect(areas('repo')).toEqual(['area:api', 'area:data']);
    expect(areas('docs/demos/intro')).toEqual(['area:demo', 'area:docs']);
    expect(areas('./scripts/x.sh')).toEqual(['area:cli']);
    expect(areas('area:payments')).toEqual(['area:payments']);
    expect(areas('FEAT-12')).toEqual([]);
    expect(areas('workflows/phases/artifacts')).toEqual(['area:workflow', 'area:artifacts']);
    expect(byTitle.get('align: FEAT-12')).toMatchObject({ 'spec-id': 'FEAT-12', description: 'Top-down reconciliation review for FEAT-12.\nScope: FEAT-12.' });
    expect(byTitle.get('align: docs/demos/intro')?.description).toBe('Top-down reconciliation review for docs/demos/intro.\nScope: docs/demos/intro.\nScope areas: demo, docs.');
  });

  it('a bead the agent closed stays closed, and the next alignment creates a new one', () => {
    const closeIt = ['sh', '-c', 'id=$(helix tracker list --label action:align --status in_progress --json | node -e "process.stdout.write(JSON.parse(require(\'fs\').readFileSync(0))[0].id)") && helix tracker close "$id"'];
    const w = new World({ responses: [{ when: 'align', run: [['sh', '-c', 'helix tracker update "$(helix tracker list --label action:align --json | node -e "process.stdout.write(JSON.parse(require(\'fs\').readFileSync(0))[0].id)")" --claim'], closeIt] }] });
    expect(w.helix(['align']).status).toBe(0);
    expect(governingBeads(w).map((b) => b.status)).toEqual(['closed']);
    expect(w.helix(['align']).status).toBe(0);
    expect(governingBeads(w).map((b) => b.status).sort()).toEqual(['closed', 'closed']);
  });

  it('--dry-run changes nothing and the prompt asks the agent to create or claim the bead', () => {
    const w = new World();
    const r = w.helix(['align', '--dry-run']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Governing alignment bead: create or claim the relevant kind:planning,action:align bead before proceeding.');
    expect(governingBeads(w)).toEqual([]);
    expect(w.calls()).toEqual([]);
  });

  it('the exit status is the agent’s (§5.4)', () => {
    const w = new World({ responses: [{ when: 'align', exit: 5 }] });
    const r = w.helix(['align']);
    expect(r.status).toBe(5);
    expect(governingBeads(w).map((b) => b.status)).toEqual(['open']);
  });
});

describe('helix design / plan and polish', () => {
  it('design passes --rounds (default 5) into the plan prompt; plan is its alias; the exit status is the agent’s', () => {
    const w = new World({ responses: [{ when: 'plan', stdout: 'PLAN_STATUS: IN_PROGRESS\n' }, { when: 'plan', exit: 2 }] });
    expect(w.helix(['design']).status).toBe(0);
    const r = w.helix(['plan', 'SPEC-2', '--rounds', '3']);
    expect(r.status).toBe(2);
    // a flag value helix cannot read is a validation error (exit 7), whatever the Bash CLI did
    expect(w.helix(['design', '--rounds', 'zero']).status).toBe(7);
    const prompts = w.calls().map(World.promptOf);
    expect(prompts).toHaveLength(2);
    expect(prompts[0]).toContain('\nPlan scope: repo.\nRefinement rounds: 5.\n');
    expect(prompts[1]).toContain('\nPlan scope: SPEC-2.\nRefinement rounds: 3.\n');
  });

  it('polish passes --rounds (default 6); without a scope the prompt says all open issues', () => {
    const w = new World({ responses: [{ when: 'polish', stdout: 'POLISH_STATUS: CONVERGED\n' }] });
    const r = w.helix(['polish']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('POLISH_STATUS: CONVERGED\n');
    expect(w.helix(['polish', 'area:api', '--rounds', '2']).status).toBe(0);
    const prompts = w.calls().map(World.promptOf);
    expect(prompts[0]).toContain('\nPolish scope: all open issues.\nMaximum refinement rounds: 6.\n');
    expect(prompts[1]).toContain('\nPolish scope: area:api.\nMaximum refinement rounds: 2.\n');
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
    expect(World.promptOf(w.calls()[0]!)).toContain('\nBackfill scope: repo.\n');
  });

  it('GUIDANCE_NEEDED is a success too', () => {
    const w = new World({ responses: [answer(['BACKFILL_STATUS: GUIDANCE_NEEDED', 'BACKFILL_REPORT: r.md', 'RESEARCH_EPIC: none'])] });
    w.file('r.md', 'x\n');
    const r = w.helix(['backfill', 'src/']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('helix: research epic=none');
  });

  const failures: Array<{ name: string; lines: string[]; message: string; writeReport?: boolean }> = [
    { name: 'BLOCKED', lines: ['BACKFILL_STATUS: BLOCKED', 'BACKFILL_REPORT: r.md'], message: 'helix: backfill report=r.md\n', writeReport: true },
    { name: 'a missing BACKFILL_STATUS', lines: ['BACKFILL_REPORT: r.md'], message: 'helix: backfill output missing BACKFILL_STATUS trailer', writeReport: true },
    { name: 'a missing BACKFILL_REPORT', lines: ['BACKFILL_STATUS: COMPLETE'], message: 'helix: backfill output missing BACKFILL_REPORT trailer' },
    { name: 'a report file that does not exist', lines: ['BACKFILL_STATUS: COMPLETE', 'BACKFILL_REPORT: docs/nowhere.md'], message: 'helix: declared backfill report does not exist: docs/nowhere.md' },
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
  it('refuses tracked changes, staged or not, with the three Bash lines, and runs no agent; untracked files do not count', () => {
    const w = new World();
    w.file('tracked.txt', 'one\n');
    w.git('add', 'tracked.txt');
    w.git('commit', '-q', '-m', 'tracked');
    const lines = 'helix: worktree has uncommitted changes\nhelix: please commit your changes before starting an experiment\nhelix: experiment needs a clean worktree to safely branch and revert\n';
    w.file('tracked.txt', 'two\n');
    const unstaged = w.helix(['experiment', 'make it faster']);
    expect(unstaged).toMatchObject({ status: 1, stderr: lines });
    w.git('add', 'tracked.txt');
    expect(w.helix(['experiment', 'make it faster'])).toMatchObject({ status: 1, stderr: lines });
    expect(w.calls()).toHaveLength(0);
    w.git('commit', '-q', '-m', 'two');
    w.file('scratch.txt', 'untracked\n');
    expect(w.helix(['experiment', 'make it faster']).status).toBe(0);
    expect(w.calls()).toHaveLength(1);
  });

  it('runs on a clean worktree, even after other helix commands wrote their logs; --close reaches the prompt', () => {
    const w = new World();
    expect(w.helix(['review']).status).toBe(0);
    expect(existsSync(join(w.repo, '.helix-logs'))).toBe(true);
    const r = w.helix(['experiment', 'make it faster', '--close']);
    expect(r.status).toBe(0);
    const prompt = World.promptOf(w.calls()[1]!);
    expect(prompt).toContain('\nExperiment target: make it faster.\nCLOSE SESSION: Execute Phase 3 (Session Close) — squash-merge the experiment branch, update ratchet floors, and close the issue. Do not run another iteration.\n');
    // without --close there is no CLOSE SESSION line; without a target the prompt says how to pick one
    expect(w.helix(['experiment']).status).toBe(0);
    const plain = World.promptOf(w.calls()[2]!);
    expect(plain).toContain('\nExperiment target: auto-select from ready phase:iterate issues.\nFollow the action exactly.');
    expect(plain).not.toContain('CLOSE SESSION');
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
        // through ddx the harness is a program DDx runs: it must be installed (issue 30)
        programs: program === 'ddx' ? ['ddx', agent] : [program],
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
    expect(prompt).toContain(`Implementation target: ${b.id}.\n`);
  });
});
