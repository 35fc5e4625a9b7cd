// Instant recovery of a dead local claim (issue 31, item 1), with real processes and the default
// HELIX_ORPHAN_THRESHOLD (2 h): a run killed with SIGKILL in the middle of a bead leaves its claim;
// once nothing of that run is left — helix's watchdog stops the agent — the next run reclaims the
// bead at once, in one line, and builds it, and `helix status` says the claimer is gone before it
// does. While a process of the dead claimer's calls still runs (found by the HELIX_CALL_ID tag every
// call carries), the threshold still applies.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { carriesTag, processTagOf } from '../../src/agents/descendants.js';
import { processStartOf } from '../../src/tracker/liveness.js';
import { thisMachine } from '../../src/tracker/process.js';
import { bead } from '../helpers/bead.js';
import { markerPids, processesLeft } from '../faults/fault-checks.js';
import { Project, pidAlive, waitUntil } from './stub-project.js';

const TARGET = 'hx-000000aa';
const T = '\\[\\d\\d:\\d\\d:\\d\\d\\]';

describe('a run killed with SIGKILL in the middle of a bead', () => {
  it('the next run reclaims its claim at once, in one line, and builds the bead; status marks the dead claimer first', async () => {
    const p = new Project({ beads: [bead({ id: TARGET, title: 'Target' }), bead({ id: 'hx-000000bb', deps: [TARGET] })] });
    const marker = p.path('agent.json');
    // the first build hangs in the agent (with a child of its own); the next run's build succeeds
    p.script({ responses: [{ when: 'execute-bead', marker, spawnChild: true, hang: true }] });
    const run = p.helixInBackground(['run', '--summary']);
    await waitUntil(() => existsSync(marker), 'the agent to start');
    // every process of the call carries the run's own tag, named by the identity its claim records
    const runTag = processTagOf(run.child.pid!, processStartOf(run.child.pid!)!);
    expect(markerPids(marker).map((pid) => carriesTag(pid, runTag))).toEqual([true, true]);
    run.child.kill('SIGKILL');
    await run.done;
    // helix's watchdog stops the call's processes: the synchronisation point, not a sleep
    const left = await processesLeft(markerPids(marker), true, 1);
    expect(left.after, left.text).toBe(0);
    const orphan = p.bead(TARGET);
    expect(orphan).toMatchObject({ status: 'in_progress', 'claimed-pid': String(run.child.pid), 'claimed-machine': thisMachine() });

    const status = p.helix(['status']);
    expect(status.stdout).toContain(`  ${TARGET}  Target  (claimer pid ${run.child.pid} is gone: the next run reclaims it)\n`);
    const json = JSON.parse(p.helix(['status', '--json']).stdout) as { claimed_beads: unknown[]; parked_beads: Array<{ id: string; reason: string }> };
    expect(json.claimed_beads).toEqual([{ id: TARGET, pid: run.child.pid, claimer: 'gone', reclaimable: true }]);
    expect(json.parked_beads).toContainEqual(expect.objectContaining({ id: TARGET, reason: 'orphaned-claim' }));

    // the default threshold: nothing in the environment compresses it
    const next = p.helix(['run', '--summary']);
    expect(next.status, next.stderr).toBe(0);
    expect(next.stderr).toMatch(new RegExp(`^helix: reclaiming orphaned ${TARGET} \\(age=\\d+s, pid=${run.child.pid} dead; no process of its agent calls left\\)$`, 'm'));
    expect(next.stderr).not.toMatch(/too fresh/);
    expect(next.stderr).toMatch(new RegExp(`^helix: ${T} cycle 1: ${TARGET} → COMPLETE`, 'm'));
    // its dependent was waiting on it, and is built too
    expect(p.statuses(TARGET, 'hx-000000bb')).toEqual(['closed', 'closed']);
  });
});

describe('a dead claimer with a process of its calls still running', () => {
  it('keeps the threshold while that process runs, and is reclaimed at once after it ends', async () => {
    // a claimer that ran and is gone: its pid and start time, as its claim recorded them
    const claimer = spawn('sleep', ['30'], { stdio: 'ignore' });
    await waitUntil(() => processStartOf(claimer.pid!) !== undefined, 'the claimer to start');
    const start = processStartOf(claimer.pid!)!;
    claimer.kill('SIGKILL');
    await waitUntil(() => !pidAlive(claimer.pid!), 'the claimer to end');
    const claimedAt = new Date(Date.now() - 60_000).toISOString();
    const p = new Project({
      beads: [bead({ id: TARGET, status: 'in_progress', owner: 'helix', labels: ['helix'], 'claimed-pid': String(claimer.pid), 'claimed-pid-start': start, 'claimed-machine': thisMachine(), 'claimed-at': claimedAt })],
    });
    // a job one of its agent calls left behind, carrying the calls' tag
    const job = spawn('sleep', ['30'], { stdio: 'ignore', env: { ...process.env, HELIX_CALL_ID: `${processTagOf(claimer.pid!, start)}:0123456789abcdef` } });
    try {
      await waitUntil(() => job.pid !== undefined && pidAlive(job.pid), 'the job to start');
      const held = p.helix(['run', '--summary', '--no-auto-align']);
      expect(held.status, held.stderr).toBe(0);
      expect(held.stderr).toMatch(new RegExp(`^helix: issue ${TARGET}: its claimer \\(pid ${claimer.pid}\\) is gone but a process of its agent calls still runs; left claimed until it ends or the claim is 7200s old \\(now \\d+s\\)$`, 'm'));
      expect(p.bead(TARGET).status).toBe('in_progress');
      expect(p.buildCalls()).toEqual([]);
    } finally {
      job.kill('SIGKILL');
    }
    await waitUntil(() => !pidAlive(job.pid!), 'the job to end');
    const next = p.helix(['run', '--summary', '--no-auto-align']);
    expect(next.status, next.stderr).toBe(0);
    expect(next.stderr).toMatch(new RegExp(`^helix: reclaiming orphaned ${TARGET} \\(age=\\d+s, pid=${claimer.pid} dead; no process of its agent calls left\\)$`, 'm'));
    expect(p.bead(TARGET).status).toBe('closed');
  });

  it('a claim from another machine is left alone: its processes cannot be seen from here', () => {
    const p = new Project({
      beads: [bead({ id: TARGET, status: 'in_progress', owner: 'helix', labels: ['helix'], 'claimed-pid': '999999', 'claimed-pid-start': 'x:1', 'claimed-machine': 'another-host', 'claimed-at': new Date().toISOString() })],
    });
    const r = p.helix(['run', '--summary', '--no-auto-align']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/reclaiming orphaned/);
    expect(p.bead(TARGET).status).toBe('in_progress');
  });
});
