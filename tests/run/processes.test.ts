// The run as a process among processes: the run mutex against a second run, SIGTERM mid-cycle,
// the agent timeout killing the agent's whole process group, and start/stop. Synchronised on
// marker files the stub agents write, never on fixed sleeps.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Project, RUN_COMPLETE, pidAlive, waitUntil } from './stub-project.js';
import { bead } from '../helpers/bead.js';

const markerOf = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as { pid: number; childPid: number | null };
const deadPid = () => spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' }).pid as number;
const CLAIM_KEYS = ['claimed-pid', 'claimed-at', 'claim-token', 'claimed-machine', 'owner'];

describe('a run in progress', () => {
  it('a second run exits 2 naming the first; SIGTERM then releases the claim, kills the agent, prints run complete, exits non-zero', async () => {
    const p = new Project({ beads: [bead({ id: 'hx-000000aa' })] });
    const marker = p.path('agent-started.json');
    p.script({ responses: [{ when: 'execute-bead', marker, spawnChild: true, hang: true }] });
    const first = p.helixInBackground(['run', '--summary']);
    await waitUntil(() => existsSync(marker), 'the agent to start');

    const pidFile = readFileSync(join(p.root, '.ddx', 'helix.pid'), 'utf8').trim().split(' ');
    expect(Number(pidFile[0])).toBe(first.child.pid);
    const claimed = p.bead('hx-000000aa');
    expect(claimed).toMatchObject({ status: 'in_progress', owner: 'helix', 'claimed-pid': String(first.child.pid) });

    const second = p.helix(['run', '--summary']);
    expect(second.status).toBe(2);
    expect(second.stderr.trim()).toBe(`helix run: already running (pid=${first.child.pid}, started=${pidFile[1]})`);
    expect(p.bead('hx-000000aa')).toEqual(claimed);
    // a refused run is counted in run-state (docs/contract/bash-interface.md §2.2)
    expect(p.runState().parallel_run_denied_count).toBe(1);

    first.child.kill('SIGTERM');
    const result = await first.done;
    expect(result.status).not.toBe(0);
    // The cut-short attempt counts as attempted, not completed (docs/contract/cli.md §6.8).
    expect(RUN_COMPLETE.exec(result.stderr)?.slice(1, 3)).toEqual(['1', '0']);
    const released = p.bead('hx-000000aa');
    expect(released.status).toBe('open');
    for (const key of CLAIM_KEYS) expect(released).not.toHaveProperty(key);
    expect(existsSync(join(p.root, '.ddx', 'helix.pid'))).toBe(false);
    expect(p.runState()).toMatchObject({ stop_reason: 'stopped', interrupted_by: 'SIGTERM', current_issue: null });
    const agent = markerOf(marker);
    await waitUntil(() => !pidAlive(agent.pid) && !pidAlive(agent.childPid as number), 'the agent and its child to die', 10_000);
  });

  it('HELIX_AGENT_TIMEOUT kills the agent and its children; the attempt counts as failed and the run goes on', async () => {
    const p = new Project({ beads: [bead({ id: 'hx-000000aa' })] });
    const marker = p.path('agent.json');
    // the retry only prints a success result (helix closes the bead), so it stays well inside the limit
    p.script({ responses: [{ when: 'execute-bead', marker, spawnChild: true, hang: true }, { when: 'execute-bead', result: {} }] });
    const r = p.helix(['run', '--summary'], { HELIX_AGENT_TIMEOUT: '3' });
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/cycle 1: FAILED/);
    expect(r.stderr).toMatch(/cycle 2: hx-000000aa → COMPLETE \(1\/2 done/);
    const agent = markerOf(marker);
    expect(agent.childPid).toEqual(expect.any(Number));
    await waitUntil(() => !pidAlive(agent.pid) && !pidAlive(agent.childPid as number), 'the timed-out agent and its child to die', 10_000);
    expect(p.bead('hx-000000aa').status).toBe('closed');
  });
});

describe('the run mutex', () => {
  it('six runs started together: exactly one runs, the other five exit 2 naming it', async () => {
    const p = new Project();
    const marker = p.path('check.json');
    p.script({ responses: [{ when: 'check', marker, hang: true }] });
    const runs = Array.from({ length: 6 }, () => p.helixInBackground(['run', '--summary']));
    await waitUntil(() => existsSync(marker), 'one run to reach check');
    const holder = Number(readFileSync(join(p.root, '.ddx', 'helix.pid'), 'utf8').split(' ')[0]);
    const winner = runs.find((run) => run.child.pid === holder) as (typeof runs)[number];
    expect(winner).toBeDefined();
    const losers = runs.filter((run) => run !== winner);
    for (const loser of losers) {
      const result = await loser.done;
      expect(result.status).toBe(2);
      expect(result.stderr).toContain(`helix run: already running (pid=${winner.child.pid}, started=`);
    }
    winner.child.kill('SIGTERM');
    expect((await winner.done).stderr).toMatch(RUN_COMPLETE);
    expect(p.checkCalls()).toHaveLength(1);
  });

  it('a pid file left by a dead run is replaced, and the run goes ahead', () => {
    const p = new Project({ beads: [bead({ id: 'hx-000000aa' })] });
    writeFileSync(join(p.root, '.ddx', 'helix.pid'), `${deadPid()} 2026-01-01T00:00:00Z\n`);
    const r = p.helix(['run', '--summary']);
    expect(r.status).toBe(0);
    expect(p.bead('hx-000000aa').status).toBe('closed');
    expect(existsSync(join(p.root, '.ddx', 'helix.pid'))).toBe(false);
  });
});

describe('interrupts', () => {
  it('SIGINT while check runs: exit 130, run complete printed, pid file removed', async () => {
    const p = new Project();
    const marker = p.path('check.json');
    p.script({ responses: [{ when: 'check', marker, hang: true }] });
    const run = p.helixInBackground(['run', '--summary']);
    await waitUntil(() => existsSync(marker), 'check to start');
    run.child.kill('SIGINT');
    const result = await run.done;
    expect(result.status).toBe(130);
    // No attempt was in flight (the queue was empty; check is not an attempt).
    expect(RUN_COMPLETE.exec(result.stderr)?.slice(1, 3)).toEqual(['0', '0']);
    expect(existsSync(join(p.root, '.ddx', 'helix.pid'))).toBe(false);
    await waitUntil(() => !pidAlive(markerOf(marker).pid), 'the check agent to die', 5000);
  });

  it('SIGTERM during a backoff sleep ends the run without waiting the sleep out', async () => {
    const p = new Project({ beads: [bead({ id: 'hx-000000aa' })] });
    p.script({ responses: [{ when: 'execute-bead', result: { status: 'execution_failed', outcome: 'error', exit_code: 1 }, exit: 1 }] });
    // a 10-minute backoff: the test's own timeout fails it if the sleep is not interruptible
    const run = p.helixInBackground(['run'], { HELIX_BACKOFF_SLEEP: '600' });
    await waitUntil(() => run.stderrSoFar().includes('helix: attempt 2 for hx-000000aa (backoff 600s)'), 'the backoff to start');
    run.child.kill('SIGTERM');
    const result = await run.done;
    expect(result.status).not.toBe(0);
    // The failed attempt was counted when it ended; the backoff adds none.
    expect(RUN_COMPLETE.exec(result.stderr)?.slice(1, 3)).toEqual(['1', '0']);
    expect(p.bead('hx-000000aa').status).toBe('open');
    expect(p.bead('hx-000000aa')).not.toHaveProperty('claimed-pid');
  });
});

describe('start / stop', () => {
  it('stop without a pid file, and with a stale one', () => {
    const p = new Project();
    const none = p.helix(['stop']);
    expect(none.status).toBe(1);
    expect(none.stderr).toBe('helix: no active run (no PID file)\n');

    const dead = deadPid();
    writeFileSync(join(p.root, '.ddx', 'helix.pid'), `${dead} 2026-01-01T00:00:00Z\n`);
    const stale = p.helix(['stop']);
    expect(stale.status).toBe(1);
    expect(stale.stderr).toBe(`helix: stale PID file removed (pid=${dead} was not running)\n`);
    expect(existsSync(join(p.root, '.ddx', 'helix.pid'))).toBe(false);
  });

  it('start reports a background run that could not start', () => {
    const p = new Project({ beads: [bead({ id: 'hx-000000aa' })] });
    const r = p.helix(['start'], { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe('helix: background run exited at once; see .helix-logs/helix-start.out\n');
    expect(readFileSync(join(p.root, '.helix-logs', 'helix-start.out'), 'utf8')).toContain('`ddx`');
    expect(existsSync(join(p.root, '.ddx', 'helix.pid'))).toBe(false);
  });

  it('start refuses while a run is active, with the exit code run gives (2)', () => {
    const p = new Project();
    writeFileSync(join(p.root, '.ddx', 'helix.pid'), `${process.pid} 2026-01-01T00:00:00Z\n`);
    expect(p.helix(['run']).status).toBe(2);
    const r = p.helix(['start']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`helix: run already active (pid=${process.pid}). Use 'helix stop' first.\n`);
  });

  it('start runs in the background with a pid file; status shows it; stop ends it and releases its claim', async () => {
    const p = new Project({ beads: [bead({ id: 'hx-000000aa' })] });
    const marker = p.path('agent.json');
    p.script({ responses: [{ when: 'execute-bead', marker, hang: true }] });
    const started = p.helix(['start']);
    expect(started.status).toBe(0);
    // docs/contract/bash-interface.md §16: the run's own log (it runs with --summary), not a log of `start`
    const runLog = String(p.runState().log);
    expect(started.stderr).toMatch(/^helix: started \(pid=\d+, log=\/.+\/\.helix-logs\/helix-\d{8}-\d{6}\.log\)\n$/);
    expect(started.stderr).toBe(`helix: started (pid=${String(p.runState().pid)}, log=${runLog})\n`);
    await waitUntil(() => existsSync(marker), 'the background run to start its agent');
    const pid = Number(readFileSync(join(p.root, '.ddx', 'helix.pid'), 'utf8').split(' ')[0]);
    expect(pidAlive(pid)).toBe(true);

    const status = p.helix(['status']);
    expect(status.stdout).toContain('Active Run:');
    expect(status.stdout).toContain(`  PID:      ${pid}\n  Started:  `);
    expect(status.stdout).toContain(`  Log:      ${runLog}\n`);
    const json = JSON.parse(p.helix(['status', '--json']).stdout) as Record<string, any>;
    expect(json.active_run).toMatchObject({ pid });
    expect(json.running_bead).toMatchObject({ id: 'hx-000000aa', worker: 'helix' });

    const stopped = p.helix(['stop']);
    expect(stopped.status).toBe(0);
    expect(stopped.stderr).toBe(`helix: stopped (pid=${pid})\n`);
    // recorded as stopped, not as an error: in run-state, in the event log, in status
    expect(p.runState()).toMatchObject({ stop_reason: 'stopped', interrupted_by: 'SIGTERM' });
    expect(p.helix(['log']).stdout).toMatch(/ stop reason=stopped exit=143 /);
    expect(p.helix(['status']).stdout).toContain('  Stop reason: stopped (SIGTERM)\n');
    expect(pidAlive(pid)).toBe(false);
    expect(existsSync(join(p.root, '.ddx', 'helix.pid'))).toBe(false);
    expect(p.bead('hx-000000aa').status).toBe('open');
    const out = readFileSync(join(p.root, '.helix-logs', 'helix-start.out'), 'utf8');
    expect(out).toMatch(RUN_COMPLETE);
    // the background run is a --summary run: the long-form cycle line is not printed
    expect(out).toMatch(/^helix: \[\d\d:\d\d:\d\d\] cycle 1: hx-000000aa \(1 ready\)$/m);
    expect(out).not.toContain('ready=1, cycle=1');
    await waitUntil(() => !pidAlive(markerOf(marker).pid), 'the background agent to die', 5000);
  });
});
