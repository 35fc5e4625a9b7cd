// Alignment across runs (issue 31, items 2 and 3), through bin/helix with the stub agents: "no
// alignment since the last build attempt" is read across runs from run-state, so a drained,
// unchanged repository after an aligned run costs the check only; and no claim on a governing bead
// outlives its run — an alignment that finishes closes its bead, one that fails or is cut short
// leaves it open and unclaimed, and a scope never has more than one governing bead that is not
// closed.
import { describe, expect, it } from 'vitest';
import { bead } from '../helpers/bead.js';
import type { Bead } from '../../src/tracker/index.js';
import { Project } from './stub-project.js';

const RUN = ['run', '--summary', '--no-auto-review'];
const CLAIM_KEYS = ['claimed-pid', 'claimed-at', 'claim-token', 'claimed-machine', 'owner'];

/** The agent calls of the last run: which actions it asked for (the DDx version probe left out). */
function actionsSince(p: Project, before: number): string[] {
  return p.calls().slice(before).filter((c) => c.kind !== 'version').map((c) => c.action ?? c.kind);
}

const governingBeads = (p: Project): Bead[] => p.beads().filter((b) => b.title === 'align: repo');

function expectNoClaim(b: Bead): void {
  for (const key of CLAIM_KEYS) expect(b, `${b.id} ${key}`).not.toHaveProperty(key);
}

describe('no alignment since the last build attempt, across runs', () => {
  it('a drained, unchanged repo after an aligned run costs the check only; a build attempt since makes the next drained run align', () => {
    const p = new Project({ beads: [] });
    const first = p.helix(RUN);
    expect(first.status, first.stderr).toBe(0);
    expect(actionsSince(p, 0)).toEqual(['check', 'align']);

    let before = p.calls().length;
    const second = p.helix(RUN);
    expect(second.status, second.stderr).toBe(0);
    expect(actionsSince(p, before)).toEqual(['check']);
    expect(second.stderr).toContain('helix: stopping after check returned STOP');

    // something to build: the run builds it, and this time aligns before stopping
    p.writeBeads([...p.beads(), bead({ id: 'hx-000000aa' })]);
    before = p.calls().length;
    expect(p.helix(RUN).status).toBe(0);
    expect(actionsSince(p, before)).toEqual(['execute-bead', 'check', 'align']);

    before = p.calls().length;
    expect(p.helix(RUN).status).toBe(0);
    expect(actionsSince(p, before)).toEqual(['check']);
    expect(p.runState()).toMatchObject({ last_alignment: expect.any(String), last_build_attempt: expect.any(String) });
  });

  it('helix align counts as the alignment: the next drained run only checks', () => {
    const p = new Project({ beads: [] });
    expect(p.helix(['align']).status).toBe(0);
    const before = p.calls().length;
    expect(p.helix(RUN).status).toBe(0);
    expect(actionsSince(p, before)).toEqual(['check']);
  });
});

describe('no claim on a governing bead outlives its run', () => {
  it('each alignment closes its governing bead; later ones are never refused as "already active"', () => {
    const p = new Project({ beads: [] });
    for (const n of [1, 2, 3]) {
      // a build between runs, so each drained run aligns again
      p.writeBeads([...p.beads(), bead({ id: `hx-0000000${n}` })]);
      const r = p.helix(RUN);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/already active|alignment failed/);
      const governing = governingBeads(p);
      expect(governing.filter((b) => b.status !== 'closed')).toEqual([]);
      for (const b of governing) expectNoClaim(b);
    }
    expect(p.calls().filter((c) => c.action === 'align')).toHaveLength(3);
    // helix status does not count a bead the user never made as ready
    expect(JSON.parse(p.helix(['status', '--json']).stdout).tracker).toMatchObject({ ready: 0, open: 0 });
  });

  it('helix align three times: each closes its bead, none is refused', () => {
    const p = new Project({ beads: [] });
    for (const n of [1, 2, 3]) {
      const r = p.helix(['align']);
      expect(r.status, `align ${n}: ${r.stderr}`).toBe(0);
    }
    expect(governingBeads(p).map((b) => b.status)).toEqual(['closed', 'closed', 'closed']);
  });

  it('an alignment that fails leaves its bead open and unclaimed, and the next one takes the same bead', () => {
    const p = new Project({ beads: [], script: { responses: [{ when: 'align', stdout: 'could not finish\n', exit: 1 }] } });
    const failed = p.helix(RUN);
    expect(failed.status, failed.stderr).toBe(0);
    expect(failed.stderr).toContain('helix: pre-stop alignment failed');
    const [open] = governingBeads(p);
    expect(open).toMatchObject({ status: 'open' });
    expectNoClaim(open!);
    // the failed alignment is no alignment: the next drained run aligns, under the same bead
    expect(p.helix(RUN).status).toBe(0);
    expect(governingBeads(p)).toEqual([expect.objectContaining({ id: open!.id, status: 'closed' })]);
  });

  it('a run that stops on a limit in the middle of an alignment releases the governing bead it claimed', () => {
    const p = new Project({
      beads: [bead({ id: 'hx-0000a119', title: 'align: repo', labels: ['helix', 'phase:review', 'kind:planning', 'action:align'], 'execution-eligible': false })],
      script: { executeBeadHelp: false, responses: [{ when: 'align', limit429: { message: 'API Error: Request rejected (429)' }, exit: 1 }] },
    });
    const r = p.helix([...RUN, '--agent', 'claude', '--max-wait', '0']);
    expect(r.status, r.stderr).toBe(20);
    const [governing] = governingBeads(p);
    expect(governing).toMatchObject({ id: 'hx-0000a119', status: 'open' });
    expectNoClaim(governing!);
  });
});
