// `helix run` after the ready queue drains (docs/contract/cli.md §6.6), black-box: the real CLI with stub
// agents on PATH answering check and the actions it routes to. Each test reads the stubs' call log
// to see which agent calls the run made, in which order.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { World } from './stub-world.js';

const check = (answer: string) => ({ when: 'check', stdout: `Looked at the queue.\n**NEXT_ACTION:** \`${answer}\`\n` });

describe('queue drain routing, black-box', () => {
  it('BUILD twice with nothing selectable: check exactly twice, orphan recovery, then a clean stop', () => {
    const w = new World({ responses: [check('BUILD'), check('BUILD'), check('STOP')] });
    const r = w.helix(['run']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('helix: no selectable issues after orphan recovery — stopping');
    expect(w.actions()).toEqual(['check', 'check']);
  });

  it('BUILD twice with a dead claimer: the breaker recovers the orphan and the run builds it', () => {
    // the claimed bead appears after the run's start-up recovery: the first check files it and
    // claims it for a pid that is not running
    const fileAndClaim = 'id=$(helix tracker create "claimed by a crashed worker" --acceptance done) && helix tracker update "$id" --claim --pid 999999';
    const w = new World({
      responses: [{ when: 'check', run: [['sh', '-c', fileAndClaim]], stdout: 'NEXT_ACTION: BUILD\n' }, check('BUILD'), check('STOP')],
      env: { HELIX_ORPHAN_THRESHOLD: '0' },
    });
    const r = w.helix(['run', '--no-auto-align']);
    expect(r.status).toBe(0);
    const [orphan] = w.beads();
    expect(r.stderr).toContain(`helix: reclaiming orphaned ${orphan!.id}`);
    expect(r.stderr).toContain('helix: orphan recovery freed issues (0 → 1 ready), retrying');
    expect(w.actions()).toEqual(['check', 'check', 'implementation', 'check']);
    expect(orphan!.status).toBe('closed');
  });

  it('DESIGN runs the plan action and re-checks; DESIGN again with no build between stops', () => {
    const w = new World({ responses: [check('DESIGN'), check('DESIGN')] });
    const r = w.helix(['run']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('helix: stopping after check returned DESIGN');
    expect(w.actions()).toEqual(['check', 'plan', 'check']);
    expect(World.promptOf(w.calls()[1]!)).toContain('\nPlan scope: repo.\nRefinement rounds: 5.\n');
    expect(r.stderr).toContain('helix: queue drained, running design\n');
  });

  it('POLISH runs the polish action and re-checks; POLISH again stops', () => {
    const w = new World({ responses: [check('POLISH'), check('POLISH')] });
    const r = w.helix(['run']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('helix: stopping after check returned POLISH');
    expect(w.actions()).toEqual(['check', 'polish', 'check']);
    expect(World.promptOf(w.calls()[1]!)).toContain('\nPolish scope: repo.\nMaximum refinement rounds: 6.\n');
    expect(r.stderr).toContain('helix: queue drained, running polish\n');
  });

  it('POLISH that makes a bead buildable: polish, re-check BUILD, build it, then STOP', () => {
    const w = new World({
      responses: [
        check('POLISH'),
        { when: 'polish', run: [['helix', 'tracker', 'create', 'Refined bead', '--acceptance', 'it works']], stdout: 'POLISH_STATUS: CONVERGED\n' },
        check('BUILD'),
        check('STOP'),
      ],
      env: { HELIX_AUTO_ALIGN: '0' },
    });
    const r = w.helix(['run']);
    expect(r.status).toBe(0);
    expect(w.actions()).toEqual(['check', 'polish', 'check', 'implementation', 'check']);
    expect(r.stderr).toContain('helix: stopping after check returned STOP');
    expect(w.beads().map((b) => [b.title, b.status])).toEqual([['Refined bead', 'closed']]);
  });

  it('a failing design after the drain exits 1 with the reason', () => {
    const w = new World({ responses: [check('DESIGN'), { when: 'plan', stdout: 'PLAN_STATUS: GUIDANCE_NEEDED\n', exit: 3 }] });
    const r = w.helix(['run']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('helix: design: codex exited 3\nhelix: design failed after queue drain\n');
    expect(w.actions()).toEqual(['check', 'plan']);
  });

  it('BACKFILL runs backfill inline, prints its output and re-checks; a second BACKFILL stops', () => {
    const w = new World({
      responses: [
        check('BACKFILL'),
        { when: 'backfill', run: [['sh', '-c', 'mkdir -p docs && echo report > docs/backfill.md']], stdout: 'Reconstructed the docs.\nBACKFILL_STATUS: COMPLETE\nBACKFILL_REPORT: docs/backfill.md\nRESEARCH_EPIC: none\n' },
        check('BACKFILL'),
      ],
    });
    const r = w.helix(['run']);
    expect(r.status).toBe(0);
    // the backfill's answer on stdout, then its lines on stderr (docs/contract/bash-interface.md §2.12, §6)
    expect(r.stdout).toContain('Reconstructed the docs.');
    expect(r.stderr).toContain('helix: queue drained, running backfill\n');
    expect(r.stderr).toContain('helix: research epic=none\nhelix: backfill report=docs/backfill.md\n');
    expect(r.stderr).toContain('helix: stopping after check returned BACKFILL');
    expect(r.stderr).not.toMatch(/run `?helix backfill/);
    expect(w.actions()).toEqual(['check', 'backfill', 'check']);
  });

  it('an inline backfill whose report file does not exist stops the run with exit 1 and says so', () => {
    const w = new World({ responses: [check('BACKFILL'), { when: 'backfill', stdout: 'BACKFILL_STATUS: COMPLETE\nBACKFILL_REPORT: docs/missing.md\n' }] });
    const r = w.helix(['run']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('helix: declared backfill report does not exist: docs/missing.md\n');
    expect(r.stderr).toContain('helix: backfill failed after queue drain\n');
  });

  it('a BLOCKED inline backfill stops the run with exit 1 and says so', () => {
    const w = new World({ responses: [check('BACKFILL'), { when: 'backfill', run: [['sh', '-c', 'echo x > blocked.md']], stdout: 'BACKFILL_STATUS: BLOCKED\nBACKFILL_REPORT: blocked.md\n' }] });
    const r = w.helix(['run']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('helix: backfill report=blocked.md\n');
    expect(r.stderr).toContain('helix: backfill: backfill BLOCKED\nhelix: backfill failed after queue drain\n');
    expect(w.actions()).toEqual(['check', 'backfill']);
  });

  it('ALIGN auto-aligns once, re-checks, and stops on the second ALIGN', () => {
    const w = new World({ responses: [check('ALIGN'), check('ALIGN')] });
    const r = w.helix(['run']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('helix: stopping after check returned ALIGN');
    expect(w.actions()).toEqual(['check', 'align', 'check']);
    // the alignment ran under its governing bead, which is planning work, never a build target
    const [governing] = w.beads();
    expect(r.stderr).toContain('helix: queue drained, running alignment\n');
    expect(World.promptOf(w.calls()[1]!)).toContain(`Governing alignment bead: ${governing!.id} (created by the wrapper entrypoint;`);
    // the alignment finished: helix closed its governing bead (docs/contract/cli.md §6.5)
    expect(governing).toMatchObject({ title: 'align: repo', labels: expect.arrayContaining(['helix', 'phase:review', 'kind:planning', 'action:align']), status: 'closed', 'execution-eligible': false });
    expect(w.helix(['next']).stdout).toBe('no ready issues\n');
  });

  it('ALIGN while another live process holds the governing bead: the run does not align and exits 1 saying why', () => {
    const w = new World({ responses: [check('ALIGN')] });
    const holder = spawn('sleep', ['30']);
    try {
      const governing = w.bead({ title: 'align: repo', labels: ['kind:planning', 'action:align'], set: ['execution-eligible=false'] });
      w.store.mutate((d) => d.change(governing.id, (b) => {
        b.status = 'in_progress';
        b.owner = 'helix';
        b['claimed-pid'] = String(holder.pid);
        b['claimed-at'] = new Date().toISOString();
      }));
      const r = w.helix(['run']);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain(`helix: alignment already active for repo under owner helix (${governing.id}); refusing duplicate dispatch\nhelix: post-drain alignment failed\n`);
      expect(w.actions()).toEqual(['check']);
    } finally {
      holder.kill();
    }
  });

  it('ALIGN with --no-auto-align or HELIX_AUTO_ALIGN=0 stops at once', () => {
    for (const [args, env] of [[['run', '--no-auto-align'], {}], [['run'], { HELIX_AUTO_ALIGN: '0' }]] as const) {
      const w = new World({ responses: [check('ALIGN')] });
      const r = w.helix([...args], env);
      expect(r.status).toBe(0);
      expect(r.stderr).toContain('helix: stopping after check returned ALIGN');
      expect(w.actions()).toEqual(['check']);
    }
  });

  it('WAIT and GUIDANCE stop with exit 0 and never build', () => {
    for (const answer of ['WAIT', 'GUIDANCE']) {
      const w = new World({ responses: [check(answer)] });
      w.bead({ title: 'blocked work', deps: [w.bead({ title: 'external dependency', set: ['execution-eligible=false'] }).id] });
      const r = w.helix(['run']);
      expect(r.status).toBe(0);
      expect(r.stderr).toContain(`helix: stopping after check returned ${answer}`);
      expect(w.actions()).toEqual(['check']);
    }
  });

  it('no NEXT_ACTION in the check output exits 1', () => {
    const w = new World({ responses: [{ when: 'check', stdout: 'I could not decide.\nNEXT_ACTION: BUILD|DESIGN|STOP\n' }] });
    const r = w.helix(['run']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('helix: unable to determine NEXT_ACTION from check output');
  });

  it('STOP aligns once before stopping, also when the run built nothing; not with --no-auto-align', () => {
    const built = new World({ responses: [check('STOP')] });
    built.bead({ title: 'one task', acceptance: 'done' });
    const r = built.helix(['run']);
    expect(r.status).toBe(0);
    expect(built.actions()).toEqual(['implementation', 'check', 'align']);
    expect(r.stderr).toContain('helix: queue empty, running alignment before stopping\n');
    expect(r.stderr).toContain('helix: stopping after check returned STOP');

    const off = new World({ responses: [check('STOP')] });
    off.bead({ title: 'one task', acceptance: 'done' });
    expect(off.helix(['run', '--no-auto-align']).status).toBe(0);
    expect(off.actions()).toEqual(['implementation', 'check']);

    // docs/contract/bash-interface.md §2.11: "including a run that built nothing"
    const idle = new World({ responses: [check('STOP')] });
    expect(idle.helix(['run']).status).toBe(0);
    expect(idle.actions()).toEqual(['check', 'align']);
  });

  it('a failing pre-stop alignment is said, and the run still stops normally with exit 0', () => {
    const w = new World({ responses: [check('STOP'), { when: 'align', exit: 2 }] });
    w.bead({ title: 'one task', acceptance: 'done' });
    const r = w.helix(['run']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('helix: pre-stop alignment failed\nhelix: stopping after check returned STOP\n');
  });

  it('a check agent that exits non-zero is a failure whatever it printed: exit 1', () => {
    const w = new World({ responses: [{ when: 'check', stdout: 'NEXT_ACTION: STOP\n', exit: 3 }] });
    const r = w.helix(['run']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('helix: check failed after queue drain\n');
    expect(w.actions()).toEqual(['check']);
    expect(w.beads()).toEqual([]);
  });
});

describe('periodic alignment every --review-every completed cycles', () => {
  it('aligns after every N completed cycles, counting only completed ones', () => {
    const w = new World({ responses: [{ when: 'implementation', exit: 1 }, check('STOP')] });
    for (const title of ['a', 'b', 'c']) w.bead({ title, acceptance: 'done' });
    const r = w.helix(['run', '--review-every', '2', '--no-auto-align', '--no-auto-review']);
    expect(r.status).toBe(0);
    // the first attempt fails (not counted), then a, b complete → align, then c, then the drain
    expect(w.actions()).toEqual(['implementation', 'implementation', 'implementation', 'align', 'implementation', 'check']);
  });

  it('a failing periodic alignment stops the run with exit 1 and its reason', () => {
    const w = new World({ responses: [{ when: 'align', stderr: 'align broke\n', exit: 4 }] });
    for (const title of ['a', 'b']) w.bead({ title, acceptance: 'done' });
    const r = w.helix(['run', '--review-every', '1', '--no-auto-review']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('helix: periodic alignment after 1 cycle\n');
    expect(r.stderr).toContain('helix: periodic alignment failed after 1 cycle\n');
    expect(w.actions()).toEqual(['implementation', 'align']);
    expect(w.beads().filter((b) => b.status === 'open').map((b) => b.title).sort()).toEqual(['align: repo', 'b']);
  });
});
