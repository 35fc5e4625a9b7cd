// `helix report [run-id] [--trace]` (src/cli/commands/report.ts) and the page every run writes as it
// ends (shell/run-end.ts), against real runs of bin/helix with the stub agents: the page beside the
// run's log with an element per attempt of its event log, the trace, an earlier run by its id, the
// refusals, and the run's own page named in its stop event, its last line and its notification.
// The page in a real browser: scripts/test-report-browser.mjs.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bead } from '../../helpers/bead.js';
import { Project, helixLines, recordingNotifier } from '../../run/stub-project.js';

const RUN = ['run', '--summary', '--no-auto-align', '--no-auto-review'];
const CLOSES = { run: [['helix', 'tracker', 'close', '{{id}}']], result: { tokens: 321, cost_usd: 0.05 } };
const FAILS = { result: { status: 'execution_failed', outcome: 'error', exit_code: 1 }, exit: 1 };

/** A project whose run lands one bead and gives up on another after its 4 attempts. */
function night(): Project {
  return new Project({
    beads: [bead({ id: 'hx-000000aa', title: 'land <b>me</b>' }), bead({ id: 'hx-000000bb', title: 'never lands' })],
    script: { responses: Array.from({ length: 4 }, () => ({ when: 'execute-bead', ids: ['hx-000000bb'], ...FAILS })), defaults: { 'execute-bead': CLOSES } },
  });
}

const events = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
const attemptElements = (html: string) => html.match(/<g class="attempt[^>]*data-attempt="/g)?.length ?? 0;

describe('helix report', () => {
  it("writes the last run's page beside its log, with an element per attempt of its event log, and prints its path; --trace its trace-event JSON", () => {
    const p = night();
    expect(p.helix(RUN).status).toBe(0);
    const [log] = p.logFiles('helix-').filter((f) => f.endsWith('.events.ndjson'));
    const r = p.helix(['report']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    const page = log!.replace(/\.events\.ndjson$/, '.report.html');
    expect(r.stdout).toBe(`${page}\n`);
    const html = readFileSync(page, 'utf8');
    const claims = events(log!).filter((e) => e.type === 'claim');
    expect(claims).toHaveLength(5);
    expect(attemptElements(html)).toBe(claims.length);
    expect(html).toContain('land &lt;b&gt;me&lt;/b&gt;');
    expect(html).toContain('<h2>Blockers (1 bead)</h2>');

    const t = p.helix(['report', '--trace']);
    expect(t.status, t.stderr).toBe(0);
    expect(t.stdout).toBe(`${log!.replace(/\.events\.ndjson$/, '.trace.json')}\n`);
    const trace = JSON.parse(readFileSync(t.stdout.trim(), 'utf8')) as { traceEvents: Array<Record<string, unknown>> };
    const slices = trace.traceEvents.filter((e) => e.cat === 'attempt');
    expect(slices.map((e) => e.name).sort()).toEqual(['failed', 'failed', 'failed', 'failed', 'landed']);
    expect(slices.every((e) => e.ph === 'X' && typeof e.ts === 'number' && typeof e.dur === 'number')).toBe(true);
    expect(trace.traceEvents.filter((e) => e.ph === 'M' && e.name === 'thread_name').map((e) => (e.args as { name: string }).name)).toEqual(['slot 1', 'pauses']);
  });

  it('a run id draws that run, not the last one', () => {
    const p = night();
    expect(p.helix(RUN).status).toBe(0);
    const first = p.logFiles('helix-').find((f) => f.endsWith('.events.ndjson'))!;
    // a second run (nothing left to build): the last run is now another
    p.writeBeads([]);
    expect(p.helix(RUN).status).toBe(0);
    const id = basename(first).replace(/\.events\.ndjson$/, '');
    const r = p.helix(['report', id]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${first.replace(/\.events\.ndjson$/, '.report.html')}\n`);
    expect(attemptElements(readFileSync(r.stdout.trim(), 'utf8'))).toBe(5);
  });

  it('with no run yet: one line, exit 3', () => {
    const p = new Project({ beads: [] });
    const r = p.helix(['report']);
    expect(r).toMatchObject({ status: 3, stdout: '', stderr: 'helix report: no run has written an event log here yet (run `helix run` first)\n' });
  });

  it('a run id that names no run: one line, exit 3; one that is not a run id (a path): one line, exit 7; nothing written', () => {
    const p = new Project({ beads: [] });
    const missing = p.helix(['report', 'helix-20200101-000000']);
    expect(missing.status).toBe(3);
    expect(missing.stderr).toMatch(/^helix report: no run here has the event log \/.*\/\.helix-logs\/helix-20200101-000000\.events\.ndjson\n$/);
    const path = p.helix(['report', '../../etc/passwd']);
    expect(path.status).toBe(7);
    expect(path.stderr).toMatch(/^helix report: "\.\.\/\.\.\/etc\/passwd" is not a run id [^\n]*\n$/);
    expect(existsSync(join(p.root, '.helix-logs'))).toBe(false);
  });
});

describe('the run writes its page as it ends', () => {
  it('names it in the stop event, on its last line and to the notifier; the page shows the whole night, the stop included', () => {
    const p = night();
    const notes = recordingNotifier(p);
    const r = p.helix(RUN, notes.env);
    expect(r.status, r.stderr).toBe(0);
    const log = p.logFiles('helix-').find((f) => f.endsWith('.events.ndjson'))!;
    const page = log.replace(/\.events\.ndjson$/, '.report.html');
    const stop = events(log).at(-1)!;
    expect(stop).toMatchObject({ type: 'stop', report_html: page });
    expect(helixLines(r.stderr).at(-1)).toBe(`helix: run report written to ${page}`);
    expect(notes.events().find((e) => e.type === 'stop')).toMatchObject({ report_html: page });
    const html = readFileSync(page, 'utf8');
    expect(attemptElements(html)).toBe(events(log).filter((e) => e.type === 'claim').length);
    expect(html).toContain('<dt>ended</dt><dd>completed (exit 0) — helix: stopping after check returned STOP</dd>');
  });

  it('a page that cannot be written is one line: the run ends as it would have, its stop event says null', () => {
    // the build puts a folder where the page goes (the log is open by then)
    const inTheWay = ['sh', '-c', 'for f in .helix-logs/*.events.ndjson; do mkdir -p "${f%.events.ndjson}.report.html/in-the-way"; done'];
    const p = new Project({ beads: [bead({ id: 'hx-000000aa' })], script: { defaults: { 'execute-bead': { ...CLOSES, run: [...CLOSES.run, inTheWay] } } } });
    const r = p.helix(RUN);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^helix: could not write the run report: cannot write \/\S+\.report\.html: (EISDIR|ENOTEMPTY|EEXIST)$/m);
    expect(r.stderr).not.toContain('run report written');
    const log = p.logFiles('helix-').find((f) => f.endsWith('.events.ndjson'))!;
    expect(events(log).at(-1)).toMatchObject({ type: 'stop', reason: 'completed', report_html: null });
    // no temp file left beside it
    expect(readdirSync(join(p.root, '.helix-logs')).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });
});
