// `helix report` and the page a run writes at its end (shell/report.ts), on a real project: the
// last run's log found through run-state, a named run found in .helix-logs/, a bad name refused
// before any path is made of it, and the run's own page drawn with the stop it is about to write.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventBody } from '../../../src/supervisor/core/run-events.js';
import { EventLog, makeEvent } from '../../../src/supervisor/shell/events.js';
import { readNight, reportPaths, reportRun, reportedEventLog, writeRunReport } from '../../../src/supervisor/shell/report.js';
import { writeRunState } from '../../../src/supervisor/shell/run-state.js';
import { tempGitRepo } from '../../helpers/cli.js';

const ENV = { PATH: process.env.PATH };
const RUN = 'helix-20261128-120000';
const NOW = Date.parse('2026-11-28T12:10:00Z');

function project() {
  const root = tempGitRepo();
  mkdirSync(join(root, '.ddx'));
  writeFileSync(join(root, '.ddx', 'beads.jsonl'), '');
  const path = join(root, '.helix-logs', `${RUN}.events.ndjson`);
  const log = EventLog.open(path);
  let second = 0;
  const at = () => new Date(Date.UTC(2026, 10, 28, 12, 0, second++));
  const write = (body: EventBody) => log.append(makeEvent(RUN, at(), body));
  write({ type: 'run_start', pid: 4242, ready: 1, open: 1, agent: 'codex', root });
  write({ type: 'claim', bead: 'hx-1', attempt: 1, title: 'the first bead' });
  return { root, path, at };
}

const thrown = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    return error as { exitCode: number; message: string };
  }
  throw new Error('nothing was thrown');
};

describe('helix report', () => {
  it("writes the last run's page beside its event log and prints its path; --trace writes the trace", () => {
    const p = project();
    writeRunState(join(p.root, '.ddx'), { events: p.path });
    const html = reportRun(p.root, ENV, { now: NOW });
    expect(html).toEqual({ exitCode: 0, stdout: [join(p.root, '.helix-logs', `${RUN}.report.html`)] });
    expect(readFileSync(html.stdout![0]!, 'utf8')).toMatch(/^<!doctype html>/i);
    expect(readFileSync(html.stdout![0]!, 'utf8')).toContain('the first bead');
    const trace = reportRun(p.root, ENV, { now: NOW, trace: true });
    expect(trace.stdout).toEqual([reportPaths(p.path).trace]);
    expect(JSON.parse(readFileSync(reportPaths(p.path).trace, 'utf8'))).toBeTruthy();
  });

  it('finds a named run in .helix-logs/, with or without the log suffix', () => {
    const p = project();
    expect(reportedEventLog(p.root, ENV, RUN)).toBe(p.path);
    expect(reportedEventLog(p.root, ENV, `${RUN}.events.ndjson`)).toBe(p.path);
    expect(reportRun(p.root, ENV, { runId: RUN, now: NOW }).exitCode).toBe(0);
  });

  it('refuses a run id that is a path (exit 7) and a run that is not there (exit 3), writing nothing', () => {
    const p = project();
    const path = thrown(() => reportRun(p.root, ENV, { runId: '../../etc/passwd', now: NOW }));
    expect(path).toMatchObject({ exitCode: 7, message: expect.stringMatching(/^helix report: "\.\.\/\.\.\/etc\/passwd" is not a run id/) });
    const missing = thrown(() => reportRun(p.root, ENV, { runId: 'helix-20990101-000000', now: NOW }));
    expect(missing).toMatchObject({ exitCode: 3, message: `helix report: no run here has the event log ${join(p.root, '.helix-logs', 'helix-20990101-000000.events.ndjson')}` });
    expect(existsSync(join(p.root, '.helix-logs', 'helix-20990101-000000.report.html'))).toBe(false);
  });

  it("an empty event log is said to hold no event yet", () => {
    const p = project();
    writeFileSync(p.path, '');
    expect(thrown(() => readNight(p.path))).toMatchObject({ exitCode: 3, message: `${p.path} holds no event yet` });
  });
});

describe("the run's own page", () => {
  it('is drawn with the stop the run is about to write folded in last', () => {
    const p = project();
    const stop = makeEvent(RUN, p.at(), { type: 'stop', reason: 'completed', exit: 0, detail: '', spent: { cost_usd: 0, tokens: 0, unknown_cost_calls: 0 } });
    expect(readNight(p.path).stop).toBeUndefined();
    expect(readNight(p.path, [stop]).stop).toBeDefined();
    const file = writeRunReport(p.path, stop);
    expect(file).toBe(reportPaths(p.path).html);
    // the event log itself is untouched: the run writes its stop after the page
    expect(readFileSync(p.path, 'utf8').split('\n').filter(Boolean)).toHaveLength(2);
  });
});
