// `helix run` end to end: the queue drains through the stub `ddx agent execute-bead`, then check
// decides (docs/contract/cli.md §6.6). Real CLI, real git repo, real bead file; only the agents are stubs.
import { describe, expect, it } from 'vitest';
import { Project, RUN_COMPLETE } from './stub-project.js';
import { bead } from '../helpers/bead.js';

describe('helix run: drain then check', () => {
  it('drains the ready queue, runs check, and stops cleanly on STOP', () => {
    const a = bead({ id: 'hx-0000000a', acceptance: 'a works' });
    const b = bead({ id: 'hx-0000000b', dependencies: [{ issue_id: 'hx-0000000b', depends_on_id: 'hx-0000000a', type: 'blocks' }] });
    const p = new Project({ beads: [a, b] });
    const r = p.helix(['run']);
    expect(r.stderr).toContain('helix: stopping after check returned STOP');
    expect(r.status).toBe(0);
    expect(p.buildCalls().map((c) => c.id)).toEqual(['hx-0000000a', 'hx-0000000b']);
    expect(p.buildCalls()[0]?.env.HELIX_SELECTED_ISSUE).toBe('hx-0000000a');
    expect(p.statuses('hx-0000000a', 'hx-0000000b')).toEqual(['closed', 'closed']);
    expect(p.checkCalls()).toHaveLength(1);
    // a build happened since the last alignment: align once before stopping
    expect(p.calls().filter((c) => c.action === 'align')).toHaveLength(1);
    expect(r.stderr.match(RUN_COMPLETE)?.slice(1)).toEqual(['2', '2', '0', '0']);
    expect(p.runState()).toMatchObject({ stop_reason: 'completed', completed_cycles: 2, attempted_cycles: 2, current_issue: null });
  });

  for (const answer of ['WAIT', 'GUIDANCE'] as const) {
    it(`${answer}: stops with exit 0 and never tries a build`, () => {
      const p = new Project({ beads: [bead({ id: 'hx-00000001', status: 'closed' })], script: { responses: [{ when: 'check', stdout: `Looked around.\n**NEXT_ACTION:** \`${answer}\`\n` }] } });
      const r = p.helix(['run']);
      expect(r.status).toBe(0);
      expect(r.stderr).toContain(`helix: stopping after check returned ${answer}`);
      expect(p.buildCalls()).toEqual([]);
      expect(p.checkCalls()).toHaveLength(1);
      expect(p.runState().stop_reason).toBe('blocked');
      expect(r.stderr).toMatch(RUN_COMPLETE);
    });
  }

  it('unparseable check output: exit 1 with the contract message', () => {
    const p = new Project({ script: { defaults: { check: { stdout: 'I think we should probably build more things.\nNEXT_ACTION: BUILD|DESIGN|STOP\n' } } } });
    const r = p.helix(['run']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('helix: unable to determine NEXT_ACTION from check output');
    expect(r.stderr).toMatch(RUN_COMPLETE);
    expect(p.runState().stop_reason).toBe('error');
  });

  it('BUILD twice with nothing selectable: check exactly twice, then orphan recovery, then a clean stop', () => {
    const p = new Project({ script: { defaults: { check: { stdout: 'NEXT_ACTION: BUILD\n' } } } });
    const r = p.helix(['run']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('helix: no selectable issues after orphan recovery — stopping');
    expect(p.checkCalls()).toHaveLength(2);
    expect(p.buildCalls()).toEqual([]);
  });

  it('--max-cycles counts completed cycles only', () => {
    const beads = ['1', '2', '3'].map((n) => bead({ id: `hx-0000000${n}` }));
    const p = new Project({
      beads,
      script: { responses: [{ when: 'execute-bead', result: { status: 'execution_failed', outcome: 'error', exit_code: 1 }, exit: 1 }] },
    });
    const r = p.helix(['run', '--max-cycles', '2']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('helix: reached max cycles (2)');
    expect(p.buildCalls().map((c) => c.id)).toEqual(['hx-00000001', 'hx-00000001', 'hx-00000002']);
    expect(p.statuses('hx-00000001', 'hx-00000002', 'hx-00000003')).toEqual(['closed', 'closed', 'open']);
    expect(r.stderr.match(RUN_COMPLETE)?.slice(1, 3)).toEqual(['3', '2']);
    expect(p.checkCalls()).toEqual([]);
  });

  it('runs with an empty queue in a project that has no tracker folder yet', () => {
    const p = new Project();
    const r = p.helix(['run'], { HELIX_TRACKER_DIR: `${p.root}/fresh/.ddx` });
    expect(r.stderr).toContain('helix: stopping after check returned STOP');
    expect(r.status).toBe(0);
  });
});
