// HELIX_NOTIFY in the loop, end to end: the program (an argument array, never a shell string)
// gets one JSON event on stdin at the moments a person must hear about — here GUIDANCE, a blocker
// report and the run's end — and a notifier that hangs, fails or is missing costs the run at most
// notify.ts's bound and one line, never its outcome.
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bead } from '../helpers/bead.js';
import { Project, recordingNotifier } from './stub-project.js';

const RUN = ['run', '--summary', '--no-auto-align', '--no-auto-review'];
const FAIL = { result: { status: 'execution_failed', outcome: 'error', exit_code: 1, detail: 'boom' }, exit: 1 };

describe('HELIX_NOTIFY', () => {
  it('GUIDANCE ends the run: the notifier hears the stop, with the line that said why', () => {
    const p = new Project({ beads: [], script: { defaults: { check: { stdout: 'NEXT_ACTION: GUIDANCE\n' } } } });
    const n = recordingNotifier(p);
    const r = p.helix(RUN, n.env);
    expect(r.status, r.stderr).toBe(0);
    expect(n.events()).toEqual([
      expect.objectContaining({ v: 1, type: 'stop', reason: 'blocked', exit: 0, detail: 'helix: stopping after check returned GUIDANCE', spent: expect.objectContaining({ tokens: expect.any(Number) }) }),
    ]);
  });

  it('a bead skipped as intractable: the blocker report, then the stop', () => {
    const p = new Project({ beads: [bead({ id: 'hx-000000aa', title: 'Stubborn' })], script: { defaults: { 'execute-bead': FAIL } } });
    const n = recordingNotifier(p);
    const r = p.helix(RUN, n.env);
    expect(r.status, r.stderr).toBe(0);
    const [blockers, stop] = n.events();
    expect(blockers).toMatchObject({ type: 'blockers', beads: [{ id: 'hx-000000aa', reason: 'intractable after 4 attempts with exponential backoff' }], report: expect.stringMatching(/blockers-\d{8}-\d{6}\.md$/) });
    expect(stop).toMatchObject({ type: 'stop' });
    expect(n.events()).toHaveLength(2);
  });

  it('a notifier that hangs is killed after its bound and the run ends as it would have; one that is missing or exits 1 is one line each', () => {
    const p = new Project({ beads: [], script: { defaults: { check: { stdout: 'NEXT_ACTION: WAIT\n' } } } });
    const hang = p.path('hang.mjs');
    writeFileSync(hang, 'setInterval(() => {}, 1000);\n');
    const quiet = p.helix(['run', '--quiet', '--no-auto-align'], { HELIX_NOTIFY: JSON.stringify([process.execPath, hang]) });
    expect(quiet.status).toBe(0);
    expect(quiet.stderr).toContain('helix: HELIX_NOTIFY: did not finish within 5s: killed; the run goes on\n');
    const missing = p.helix(['run', '--quiet', '--no-auto-align'], { HELIX_NOTIFY: '/nonexistent/notifier --flag' });
    expect(missing.status).toBe(0);
    expect(missing.stderr).toContain('helix: HELIX_NOTIFY: not found; the run goes on\n');
    const failing = p.helix(['run', '--quiet', '--no-auto-align'], { HELIX_NOTIFY: JSON.stringify([process.execPath, '-e', 'process.exit(1)']) });
    expect(failing.status).toBe(0);
    expect(failing.stderr).toContain('helix: HELIX_NOTIFY: exited 1; the run goes on\n');
  });

  it('a shell string is refused in one line, never run by a shell', () => {
    const p = new Project({ beads: [], script: { defaults: { check: { stdout: 'NEXT_ACTION: WAIT\n' } } } });
    const marker = p.path('ran');
    const r = p.helix(['run', '--quiet', '--no-auto-align'], { HELIX_NOTIFY: `touch ${marker}; echo "x"` });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^helix: HELIX_NOTIFY: HELIX_NOTIFY is never run by a shell: .*; the run goes on$/m);
    expect(() => readFileSync(marker)).toThrow();
  });
});
