// `helix log [-f]` (src/cli/commands/log.ts) against real runs of bin/helix with the stub agents:
// the run's event log as lines, and following a run as it goes until its stop event (or until
// its process is gone without one).
import { writeFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished } from 'vitest';
import { bead } from '../../helpers/bead.js';
import { Project, waitUntil } from '../../run/stub-project.js';

const RUN = ['run', '--summary', '--no-auto-align', '--no-auto-review'];

describe('helix log', () => {
  it("prints the last run's events, one line each, in order: start, claim, dispatch, agent done, close, …, stop", () => {
    const p = new Project({ beads: [bead({ id: 'hx-000000aa' })], script: { defaults: { 'execute-bead': { run: [['helix', 'tracker', 'close', '{{id}}']], result: { tokens: 321, cost_usd: 0.05 } } } } });
    expect(p.helix(RUN).status).toBe(0);
    const r = p.helix(['log']);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.map((l) => l.split(' ')[1])).toEqual(['run_start', 'claim', 'dispatch', 'phase', 'agent_done', 'close', 'attempt_end', 'stop']);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d run_start pid=\d+ ready=1 open=1 agent=\w+ root=\//);
    expect(lines[4]).toMatch(/ agent_done bead=hx-000000aa action=build agent=\w+ rc=0 seconds=\d+ tokens=321 cost_usd=0.05$/);
    expect(lines[7]).toMatch(/ stop reason=completed exit=0 detail=helix: stopping after check returned STOP spent=\{"cost_usd":0.05,"tokens":321,"unknown_cost_calls":\d+\} cpu_ms=[1-9]\d* report_html=\/\S+\.report\.html root=\S+$/);
  });

  it('with no run yet: one line, exit 3', () => {
    const p = new Project({ beads: [] });
    const r = p.helix(['log']);
    expect(r.status).toBe(3);
    expect(r.stderr).toBe('helix log: no run has written an event log here yet (run `helix run` first)\n');
  });

  it('-f follows the current run with bead n of m, elapsed and spend beside each event, and ends with the run', async () => {
    const p = new Project({ beads: [bead({ id: 'hx-000000aa' }), bead({ id: 'hx-000000bb' })] });
    const go = p.path('GO');
    // the first build waits for the test to write GO: the follower is seen following a live run
    const build = { run: [['helix', 'tracker', 'close', '{{id}}']], result: { tokens: 100, cost_usd: 0.25 } };
    p.script({ responses: [{ when: 'execute-bead', waitFor: go, ...build }], defaults: { 'execute-bead': build } });
    const run = p.helixInBackground(RUN);
    await waitUntil(() => p.calls().some((c) => c.kind === 'execute-bead'), 'the first build');
    const follow = p.helixInBackground(['log', '-f']);
    onTestFinished(() => {
      writeFileSync(go, '');
      for (const child of [run.child, follow.child]) if (child.exitCode === null) child.kill('SIGKILL');
    });
    let out = '';
    follow.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await waitUntil(() => out.includes(' dispatch '), 'the follower to print the dispatch');
    expect(out).toMatch(/^\[bead 0 of 2 · \d+s · \$0\.00, 0 tokens\] \d\d:\d\d:\d\d run_start /m);
    expect(out).toMatch(/^\[bead 1 of 2 · \d+s · \$0\.00, 0 tokens\] \d\d:\d\d:\d\d dispatch bead=hx-000000aa /m);
    writeFileSync(go, '');
    expect((await run.done).status).toBe(0);
    const followed = await follow.done;
    expect(followed.status, followed.stderr).toBe(0);
    const last = out.trimEnd().split('\n').pop() ?? '';
    expect(last).toMatch(/^\[bead 2 of 2 · \d+s · \$0\.50, 200 tokens\] \d\d:\d\d:\d\d stop reason=completed exit=0 /);
  });

  it('-f counts the backlog the run can reach: 5 open beads, 3 of them ready at the start, are bead n of 5', () => {
    const dep = (on: string) => [{ issue_id: '', depends_on_id: on, type: 'blocks' }];
    const p = new Project({
      beads: [
        bead({ id: 'hx-000000a1' }), bead({ id: 'hx-000000a2' }), bead({ id: 'hx-000000a3' }),
        bead({ id: 'hx-000000b1', dependencies: dep('hx-000000a1') }), bead({ id: 'hx-000000b2', dependencies: dep('hx-000000a2') }),
      ],
      script: { defaults: { 'execute-bead': { run: [['helix', 'tracker', 'close', '{{id}}']] } } },
    });
    expect(p.helix(['tracker', 'ready', '--json']).stdout.match(/"id"/g)).toHaveLength(3);
    expect(p.helix(RUN).status).toBe(0);
    // the run is over: -f reads its events to the stop event and ends
    const r = p.helix(['log', '-f']);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\[bead 0 of 5 · \d+s · \$0\.00, 0 tokens\] \d\d:\d\d:\d\d run_start pid=\d+ ready=3 open=5 /);
    expect(lines.filter((l) => / claim /.test(l)).map((l) => /^\[bead (\d) of (\d)/.exec(l)?.slice(1).join('/'))).toEqual(['1/5', '2/5', '3/5', '4/5', '5/5']);
  });

  it('-f on a run killed with SIGKILL (no stop event): says so and exits 1', async () => {
    const p = new Project({ beads: [bead({ id: 'hx-000000aa' })], script: { responses: [{ when: 'execute-bead', hang: true }] } });
    const run = p.helixInBackground(RUN);
    await waitUntil(() => p.calls().some((c) => c.kind === 'execute-bead'), 'the build');
    const follow = p.helixInBackground(['log', '-f']);
    onTestFinished(() => {
      for (const c of p.calls()) if (c.pid) try { process.kill(c.pid, 'SIGKILL'); } catch { /* gone */ }
      for (const child of [run.child, follow.child]) if (child.exitCode === null) child.kill('SIGKILL');
    });
    let out = '';
    follow.child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    await waitUntil(() => out.includes(' dispatch '), 'the follower to print the dispatch');
    run.child.kill('SIGKILL');
    const followed = await follow.done;
    expect(followed.status).toBe(1);
    expect(out.trimEnd().split('\n').pop()).toMatch(/^helix log: the run \(pid \d+\) ended without a stop event$/);
  });
});
