// What a run that nobody watched tells the person who comes back to it (issue 31, items 5–8 and
// 12), through bin/helix with the stub agents: every failure in one line in every mode —
// `--summary` too — with its reason, each backoff (the one after the 4th attempt too) as a line and
// a `backoff` event, the park and its time, a broken notifier once, the wait a limit needed; the
// blocker report and the notifications with what verification printed last, the bead and the
// project; `--max-cost` that no call could be checked against said before anything runs; a planning
// action that rewrites the queue saved and reported, the run going on.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bead } from '../helpers/bead.js';
import { Project, RUN_COMPLETE, recordingNotifier } from './stub-project.js';

const T = '\\[\\d\\d:\\d\\d:\\d\\d\\]';
const SUMMARY = ['run', '--summary', '--no-auto-align', '--no-auto-review'];
/** A verify command that prints a little and fails: its last lines are the evidence. */
const FAILING_VERIFY = "printf 'running 3 tests\\nok 1\\nnot ok 2 - the answer must be 42\\n'; exit 1";

function events(p: Project): Array<Record<string, unknown>> {
  return readFileSync(String(p.runState().events), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('a bead whose verification keeps failing, with --summary', () => {
  const p = new Project({ beads: [bead({ id: 'hx-000000aa', title: 'Make the answer 42' })] });
  const notes = recordingNotifier(p);
  const r = p.helix(SUMMARY, { HELIX_VERIFY_CMD: FAILING_VERIFY, ...notes.env });

  it('each failed attempt is one FAILED line naming the bead, the attempt and the reason', () => {
    expect(r.status, r.stderr).toBe(0);
    for (const n of [1, 2, 3, 4]) {
      expect(r.stderr).toMatch(new RegExp(`^helix: ${T} cycle ${n}: FAILED \\(hx-000000aa attempt ${n}\\): verification failed: .* exited 1: running 3 tests \\| ok 1 \\| not ok 2 - the answer must be 42$`, 'm'));
    }
  });

  it('every backoff is a line and an event, the one after the last attempt too', () => {
    for (const n of [2, 3, 4]) expect(r.stderr).toMatch(new RegExp(`^helix: ${T} backoff 0s, then attempt ${n} for hx-000000aa$`, 'm'));
    expect(r.stderr).toMatch(new RegExp(`^helix: ${T} backoff 0s after attempt 4 for hx-000000aa, the last$`, 'm'));
    const backoffs = events(p).filter((e) => e.type === 'backoff');
    expect(backoffs.map((e) => [e.attempt, e.last ?? false])).toEqual([[2, false], [3, false], [4, false], [5, true]]);
  });

  it('the park is said with its time, and the blockers say why the last attempt failed', () => {
    const until = String(p.bead('hx-000000aa')['work-retry-after']);
    expect(r.stderr).toContain(`helix: parked hx-000000aa until ${until} (work-retry-after; \`helix tracker unpark hx-000000aa\` clears it)\n`);
    expect(r.stderr).toMatch(/^helix: {5}last failure: verification failed: .* exited 1: running 3 tests \| ok 1 \| not ok 2 - the answer must be 42$/m);
  });

  it('the blocker report carries the project, the last failure and what verification printed last', () => {
    const [report] = p.logFiles('blockers-');
    const text = readFileSync(report as string, 'utf8');
    expect(text).toContain(`Project: ${p.root}\n`);
    expect(text).toMatch(/\*\*Last failure:\*\* verification failed: /);
    expect(text).toContain('**Verification output (last 3 lines):**\n\n```\nrunning 3 tests\nok 1\nnot ok 2 - the answer must be 42\n```\n');
  });

  it('the blockers notification names the bead, its reason, its last failure, the output and the project', () => {
    const blockers = notes.events().find((e) => e.type === 'blockers');
    expect(blockers).toMatchObject({
      root: p.root,
      beads: [
        {
          id: 'hx-000000aa',
          title: 'Make the answer 42',
          reason: 'failed to complete after 4 attempts with exponential backoff',
          last_failure: expect.stringMatching(/^verification failed: /),
          output: ['running 3 tests', 'ok 1', 'not ok 2 - the answer must be 42'],
        },
      ],
    });
    expect(notes.events().find((e) => e.type === 'stop')).toMatchObject({ root: p.root });
  });
});

describe('the one-line failures of an unattended run', () => {
  it('a notifier that cannot run is said once, in --summary too, however many events it missed', () => {
    const p = new Project({ beads: [bead({ id: 'hx-000000aa' })], script: { defaults: { 'execute-bead': { result: { status: 'execution_failed', outcome: 'error', exit_code: 1 }, exit: 1 } } } });
    const r = p.helix(SUMMARY, { HELIX_NOTIFY: '["/nonexistent/notifier"]' });
    expect(r.status, r.stderr).toBe(0);
    // two events a person must hear about (the blockers, the stop): one line
    expect(r.stderr.match(/^helix: HELIX_NOTIFY: .*$/gm)).toEqual(['helix: HELIX_NOTIFY: not found; the run goes on']);
    // through DDx the FAILED line carries DDx's reason (its status and detail)
    expect(r.stderr).toMatch(new RegExp(`^helix: ${T} cycle 1: FAILED \\(hx-000000aa attempt 1\\): execution_failed: \\S.*$`, 'm'));
    const shell = new Project({ beads: [] });
    const refused = shell.helix(SUMMARY, { HELIX_NOTIFY: 'cat >> notified.txt' });
    expect(refused.stderr.match(/^helix: HELIX_NOTIFY: .*$/gm)).toHaveLength(1);
  });

  it('a limit whose first wait is already past --max-wait names the wait it needed, and the limit notification names its bead', () => {
    const p = new Project({ beads: [bead({ id: 'hx-000000aa' })], script: { executeBeadHelp: false, responses: [{ when: 'implementation', limit429: { message: 'API Error: Request rejected (429) · Too many requests' }, exit: 1 }] } });
    const notes = recordingNotifier(p);
    const r = p.helix([...SUMMARY, '--agent', 'claude', '--max-wait', '30s'], notes.env);
    expect(r.status, r.stderr).toBe(20);
    expect(r.stderr).toMatch(/^helix: stopping: LIMIT: claude rate limit: the next wait would be 1m, beyond --max-wait 30s \(.*\)$/m);
    expect(r.stderr).not.toContain('after waiting 0ms');
    expect(notes.events().find((e) => e.type === 'limit')).toMatchObject({ agent: 'claude', bead: 'hx-000000aa', root: p.root });
  });

  it('--max-cost with builds on codex, which reports no cost: said and stopped before the first build (exit 21)', () => {
    const p = new Project({ beads: [bead({ id: 'hx-000000aa' })], script: { executeBeadHelp: false } });
    const r = p.helix([...SUMMARY, '--agent', 'codex', '--max-cost', '5']);
    expect(r.status, r.stderr).toBe(21);
    expect(p.calls().filter((c) => c.program === 'codex')).toEqual([]);
    expect(r.stderr).toContain('helix: stopping: BUDGET: --max-cost $5.00 cannot be checked: the builds run on codex, which reports no cost; nothing was started. Use --max-tokens to cap codex.\n');
    expect(r.stderr.match(RUN_COMPLETE)?.slice(1, 4)).toEqual(['0', '0', '0']);
    expect(p.runState()).toMatchObject({ stop_reason: 'budget' });
    // claude reports its cost: the cap is checked as it goes
    const claude = new Project({ beads: [bead({ id: 'hx-000000aa' })], script: { executeBeadHelp: false } });
    expect(claude.helix([...SUMMARY, '--agent', 'claude', '--max-cost', '5']).status).toBe(0);
  });

  it('with --summary the auto-alignment answer stays in the log: stdout shows no agent text', () => {
    const p = new Project({ beads: [], script: { responses: [{ when: 'align', stdout: 'ALIGNMENT REPORT: 40 lines of gaps\n' }] } });
    const r = p.helix(['run', '--summary', '--no-auto-review']);
    expect(r.status, r.stderr).toBe(0);
    expect(p.calls().filter((c) => c.kind !== 'version').map((c) => c.action)).toEqual(['check', 'align']);
    expect(r.stdout).not.toContain('ALIGNMENT REPORT');
    expect(readFileSync(String(p.runState().log), 'utf8')).toContain('ALIGNMENT REPORT: 40 lines of gaps');
    // normal mode still prints it (docs/contract/bash-interface.md §2.12)
    const normal = new Project({ beads: [], script: { responses: [{ when: 'align', stdout: 'ALIGNMENT REPORT: 40 lines of gaps\n' }] } });
    expect(normal.helix(['run', '--no-auto-review']).stdout).toContain('ALIGNMENT REPORT');
  });
});

describe('a planning action that rewrites the queue', () => {
  it('a polish that replaces the beads: they are saved, one line says so, and the run goes on (was exit 15)', () => {
    const replace = ['sh', '-c', 'printf \'%s\\n\' \'{"id":"hx-000000ff","title":"polished","status":"open","priority":2,"issue_type":"task","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}\' > .ddx/beads.jsonl'];
    const p = new Project({
      beads: [bead({ id: 'hx-000000aa', labels: ['phase:design'] })],
      script: {
        responses: [
          { when: 'check', stdout: 'NEXT_ACTION: POLISH\n' },
          { when: 'polish', run: [replace], stdout: 'POLISH_STATUS: CONVERGED\n' },
          { when: 'check', stdout: 'NEXT_ACTION: BUILD\n' },
        ],
        defaults: { check: { stdout: 'NEXT_ACTION: STOP\n' } },
      },
    });
    // nothing is execution-ready: the queue drains at once and the check asks for a polish
    p.writeBeads([bead({ id: 'hx-000000aa', 'execution-eligible': false })]);
    const r = p.helix(['run', '--summary', '--no-auto-align', '--no-auto-review']);
    expect(r.status, r.stderr).toBe(0);
    const line = r.stderr.split('\n').find((l) => l.includes('lost'));
    expect(line).toMatch(/^helix: the bead file lost 1 bead\(s\) during the \w+ call: hx-000000aa; their last lines are in \S+beads\.lost-\d{8}T\d{6}Z\.jsonl \(`helix tracker import \S+` puts them back\); the polish action rewrote the queue, the run goes on$/);
    const saved = readdirSync(join(p.root, '.ddx')).filter((f) => f.startsWith('beads.lost-'));
    expect(saved).toHaveLength(1);
    expect(existsSync(join(p.root, '.ddx', saved[0]!))).toBe(true);
    // the run went on: checked again, and the new queue was built
    expect(p.calls().filter((c) => c.kind !== 'version').map((c) => c.action ?? c.kind)).toEqual(['check', 'polish', 'check', 'execute-bead', 'check']);
    expect(p.bead('hx-000000ff').status).toBe('closed');
  });
});
