// `helix log [-f]` (shell/log.ts) on a real project: the run found through run-state's `events`
// key, each event as a line; -f follows the log as it grows until the stop event, or until the run's
// process is gone without one. The "run" is a real child process; what it writes is appended by the
// test when the follower has printed the line before (no sleeps), and polled every 10 ms.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventBody } from '../../../src/supervisor/core/run-events.js';
import { EventLog, makeEvent } from '../../../src/supervisor/shell/events.js';
import { currentEventLog, followLog, printLog } from '../../../src/supervisor/shell/log.js';
import { writeRunState } from '../../../src/supervisor/shell/run-state.js';
import { tempGitRepo } from '../../helpers/cli.js';

const ENV = { PATH: process.env.PATH };
const STOP: EventBody = { type: 'stop', reason: 'completed', exit: 0, detail: '', spent: { cost_usd: 0.5, tokens: 1200, unknown_cost_calls: 0 } };

function project(pid?: number) {
  const root = tempGitRepo();
  mkdirSync(join(root, '.ddx'));
  writeFileSync(join(root, '.ddx', 'beads.jsonl'), '');
  const path = join(root, '.helix-logs', 'helix-20261128-120000.events.ndjson');
  const log = EventLog.open(path);
  let second = 0;
  const write = (body: EventBody) => log.append(makeEvent('helix-20261128-120000', new Date(Date.UTC(2026, 10, 28, 12, 0, second++)), body));
  return { root, path, write, writeState: () => writeRunState(join(root, '.ddx'), { events: path, ...(pid ? { run_pid: pid } : {}) }) };
}

async function sleeper(): Promise<ChildProcess> {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  await once(child, 'spawn');
  return child;
}

describe('helix log', () => {
  it('refuses, with exit 3 and one line, a project where no run has written an event log', () => {
    const { root } = project();
    expect(() => currentEventLog(root, ENV)).toThrow(expect.objectContaining({ exitCode: 3, message: 'helix log: no run has written an event log here yet (run `helix run` first)' }));
  });

  it('prints every event of the run so far, one line each', () => {
    const p = project();
    p.writeState();
    p.write({ type: 'run_start', pid: 4242, ready: 2, open: 3, agent: 'codex', root: p.root });
    p.write({ type: 'claim', bead: 'hx-1', attempt: 1 });
    expect(printLog(p.root, ENV)).toEqual({ exitCode: 0, stdout: [`12:00:00 run_start pid=4242 ready=2 open=3 agent=codex root=${p.root}`, '12:00:01 claim bead=hx-1 attempt=1'] });
  });
});

describe('helix log -f', () => {
  it("follows the events as the run writes them, each with the run's progress, until its stop event", async () => {
    const run = await sleeper();
    try {
      const p = project(run.pid);
      p.writeState();
      p.write({ type: 'run_start', pid: run.pid!, ready: 2, open: 3, agent: 'codex', root: p.root });
      const printed: string[] = [];
      // the run goes on only once the follower has shown what it wrote before
      const next: EventBody[] = [{ type: 'claim', bead: 'hx-1', attempt: 1 }, STOP];
      const code = await followLog(p.root, ENV, (line) => {
        printed.push(line);
        const body = next.shift();
        if (body) p.write(body);
      }, new AbortController().signal, 10);
      expect(code).toBe(0);
      expect(printed).toEqual([
        expect.stringMatching(/^\[bead 0 of 3 · 0s · \$0\.00, 0 tokens\] 12:00:00 run_start /),
        '[bead 1 of 3 · 1s · $0.00, 0 tokens] 12:00:01 claim bead=hx-1 attempt=1',
        expect.stringMatching(/^\[bead 1 of 3 · 2s · .*\] 12:00:02 stop reason=completed exit=0/),
      ]);
    } finally {
      run.kill('SIGKILL');
    }
  });

  it('ends with 1 and says so when the run is killed without writing its stop event', async () => {
    const run = await sleeper();
    const p = project(run.pid);
    p.writeState();
    p.write({ type: 'run_start', pid: run.pid!, ready: 1, agent: 'codex', root: p.root });
    const printed: string[] = [];
    const exited = once(run, 'exit');
    const code = await followLog(p.root, ENV, (line) => {
      printed.push(line);
      if (printed.length === 1) run.kill('SIGKILL');
    }, new AbortController().signal, 10);
    await exited;
    expect(code).toBe(1);
    expect(printed.at(-1)).toBe(`helix log: the run (pid ${run.pid}) ended without a stop event`);
  });

  it('a reader interrupted while the run goes on ends with 0', async () => {
    const run = await sleeper();
    try {
      const p = project(run.pid);
      p.writeState();
      p.write({ type: 'run_start', pid: run.pid!, ready: 1, agent: 'codex', root: p.root });
      const interrupt = new AbortController();
      const code = await followLog(p.root, ENV, () => interrupt.abort(), interrupt.signal, 10);
      expect(code).toBe(0);
    } finally {
      run.kill('SIGKILL');
    }
  });
});
