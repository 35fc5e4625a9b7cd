// The end of every run (shell/run-end.ts) through a real RunContext with its event log: the
// run-complete line, each skipped bead said, marked blocked and in the blocker report with the
// systemic memories, the blockers and stop events, the night's page beside the log (a page that
// cannot be written is one line and the run ends as it would have) and run-state's stop reason.
// (The governing bead of an alignment a run ends in the middle of is released on the way out:
// tests/run/alignment.test.ts holds that end to end, wherever in the shell the release lives.)
import { mkdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { MemoryPort } from '../../../src/supervisor/shell/memory-port.js';
import { parseEvents } from '../../../src/supervisor/shell/events.js';
import { reportPaths } from '../../../src/supervisor/shell/report.js';
import { finishRun, systemicMemories } from '../../../src/supervisor/shell/run-end.js';
import { readRunState } from '../../../src/supervisor/shell/run-state.js';
import { bead } from '../../helpers/bead.js';
import { runWorld } from './run-world.js';

const events = (path: string) => parseEvents(readFileSync(path, 'utf8')).events;

async function endedWorld(memory?: MemoryPort) {
  const w = await runWorld({ beads: [bead({ id: 'hx-1', title: 'Renamed since' }), bead({ id: 'hx-2' })], events: true, ...(memory ? { memory } : {}) });
  await w.run.record.record({ type: 'run_start', pid: process.pid, ready: 2, agent: 'codex', root: w.project.root });
  w.run.state = { ...w.run.state, attempted: 3, completed: 1, skipped: [{ id: 'hx-1', title: 'Old title', reason: 'failed 3 times', lastDetail: 'npm test exited 1', output: ['FAIL x.test.ts'] }] };
  return w;
}

describe('finishRun', () => {
  it('says the run complete and each blocker, marks it blocked, writes the blocker report, the events and the page', async () => {
    const w = await endedWorld();
    await finishRun(w.run, 'completed', { interrupted_by: null }, ['codex cannot reach the network'], 0, '');
    const at = w.stderr.indexOf('helix: ═══ run complete: 3 attempted, 1 completed, 1 skipped, 0 tokens ═══');
    expect(at).toBeGreaterThan(0);
    expect(w.stderr[at - 1]).toBe('');
    const report = w.stderr.find((l) => l.startsWith('helix: blocker report written to '))!.replace('helix: blocker report written to ', '');
    expect(w.stderr.slice(at + 1)).toEqual([
      'helix: BLOCKERS (1 issue):',
      'helix:   hx-1 — failed 3 times',
      // the title as the tracker has it now
      'helix:     Renamed since',
      'helix:     last failure: npm test exited 1',
      'helix:   systemic: codex cannot reach the network',
      `helix: blocker report written to ${report}`,
      `helix: run report written to ${reportPaths(w.run.record.path!).html}`,
    ]);
    expect(readFileSync(report, 'utf8')).toContain('**Reason:** failed 3 times');
    expect(w.project.bead('hx-1').labels).toEqual(expect.arrayContaining(['helix', 'blocked']));
    expect(w.project.bead('hx-2').labels).toBeUndefined();
    const [, blockers, stop] = events(w.run.record.path!);
    expect(blockers).toMatchObject({ type: 'blockers', beads: [{ id: 'hx-1', reason: 'failed 3 times', last_failure: 'npm test exited 1', output: ['FAIL x.test.ts'] }], report });
    expect(stop).toMatchObject({ type: 'stop', reason: 'completed', exit: 0, report_html: reportPaths(w.run.record.path!).html, cpu_ms: expect.any(Number) });
    expect(readFileSync(reportPaths(w.run.record.path!).html, 'utf8')).toContain('hx-1');
    expect(readRunState(w.run.store.dir)).toMatchObject({ stop_reason: 'completed', current_issue: null, interrupted_by: null, skipped_count: 1 });
  });

  it('a page that cannot be written is one line; the stop event names none', async () => {
    const w = await endedWorld();
    mkdirSync(reportPaths(w.run.record.path!).html); // a folder where the page would go
    await finishRun(w.run, 'error', {}, [], 1, 'helix: something broke');
    expect(w.stderr.at(-1)).toMatch(/^helix: could not write the run report: /);
    expect(events(w.run.record.path!).at(-1)).toMatchObject({ type: 'stop', reason: 'error', exit: 1, detail: 'helix: something broke', report_html: null });
  });
});

describe('systemicMemories', () => {
  it('asks the memory only when something was skipped, and a memory that fails gives none', async () => {
    let asked = 0;
    const memory = { systemic: async () => (asked++, ['x keeps failing']) } as unknown as MemoryPort;
    const quiet = await runWorld({ memory });
    expect(await systemicMemories(quiet.run)).toEqual([]);
    expect(asked).toBe(0);
    const w = await endedWorld(memory);
    expect(await systemicMemories(w.run)).toEqual(['x keeps failing']);
    const failing = await endedWorld({ systemic: async () => { throw new Error('database is locked'); } } as unknown as MemoryPort);
    expect(await systemicMemories(failing.run)).toEqual([]);
  });
});
