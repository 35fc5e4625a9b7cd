// A run killed with SIGKILL while its agent works leaves its claim behind. Before the next run
// starts, the kernel hands the dead run's pid to another, unrelated process — a bare "is the pid
// alive" check would then keep the orphan claimed for ever (until the 2 h age limit). The claim
// records the claimant's start time (`claimed-pid-start`), so the next run sees the pid was reused,
// reclaims the bead and does the work.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HELIX_BIN, cleanEnv } from '../helpers/cli.js';
import { Project, waitUntil } from '../run/stub-project.js';
import { bead } from '../helpers/bead.js';
import { beadState, generic, lineMatching, markerPids, processesLeft, report } from './fault-checks.js';

const TARGET = 'hx-000000aa';

function startRun(p: Project): { child: ChildProcess; done: Promise<NodeJS.Signals | null> } {
  const child = spawn(process.execPath, [HELIX_BIN, 'run', '--summary'], { cwd: p.root, env: { ...cleanEnv(), ...p.env }, stdio: 'ignore' });
  return { child, done: new Promise((resolve) => child.on('close', (_status, signal) => resolve(signal))) };
}

describe('a killed run whose pid is reused before the next run', () => {
  it('the next run reclaims the orphan (pid reused, not alive) and does the work', async () => {
    const p = new Project({ beads: [bead({ id: TARGET, title: 'Target' })] });
    const marker = p.path('agent.json');
    // the first attempt hangs in the agent; the next run's attempt succeeds
    p.script({ responses: [{ when: 'execute-bead', marker, spawnChild: true, hang: true }] });
    const run = startRun(p);
    await waitUntil(() => existsSync(marker), 'the agent to start');
    const killedPid = run.child.pid!;
    run.child.kill('SIGKILL');
    expect(await run.done).toBe('SIGKILL');
    const left = await processesLeft(markerPids(marker), true, 1);
    expect(left.after, left.text).toBe(0);

    const orphan = p.bead(TARGET);
    expect(orphan.status).toBe('in_progress');
    expect(orphan['claimed-pid']).toBe(String(killedPid));
    expect(typeof orphan['claimed-pid-start']).toBe('string');

    // the dead run's pid now belongs to a live process that is not helix (same pid number, in
    // effect: the claim is rewritten to name a live process, keeping the dead run's start time)
    const stranger = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const text = readFileSync(p.beadsFile, 'utf8').replace(`"claimed-pid":"${killedPid}"`, `"claimed-pid":"${stranger.pid}"`);
      writeFileSync(p.beadsFile, text);
      expect(p.bead(TARGET)['claimed-pid']).toBe(String(stranger.pid));

      const next = p.helix(['run']);
      expect(next.status, next.stderr).toBe(0);
      const line = lineMatching(next.stderr, /reclaiming orphaned/);
      expect(line).toMatch(new RegExp(`^helix: reclaiming orphaned ${TARGET} \\(age=\\d+s, pid=${stranger.pid} reused; no process of its agent calls left\\)$`));
      expect(p.bead(TARGET).status).toBe('closed');
      report({
        group: 'signals',
        scenario: 'SIGKILL during the agent, then the pid reused by another process',
        exit: 'killed',
        bead: beadState(orphan),
        processes: left.text,
        recovery: `next run: ${beadState(p.bead(TARGET))}`,
        line: generic(line, p.root),
      });
    } finally {
      stranger.kill('SIGKILL');
    }
  });
});
