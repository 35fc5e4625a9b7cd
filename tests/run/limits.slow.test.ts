// Usage and rate limits in the loop, end to end through bin/helix with the stub agents: a build
// that ends on a limit is not an attempt of its bead (no backoff, no failure, no label, no note,
// the claim released); the run waits — until the reset the agent named, interruptible — says so
// in one line, and goes on; past --max-wait it stops with reason `limit` and exit 20. The same
// moments reach the event log and HELIX_NOTIFY.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bead } from '../helpers/bead.js';
import { Project, RUN_COMPLETE, waitUntil, recordingNotifier } from './stub-project.js';

const DIRECT = { executeBeadHelp: false };
const QUIET_RUN = ['run', '--summary', '--no-auto-align', '--no-auto-review'];
const CLAIM_KEYS = ['claimed-pid', 'claimed-at', 'claim-token', 'claimed-machine', 'owner'];

/** The run's event log, as run-state names it. */
function eventLog(p: Project): Array<Record<string, unknown>> {
  const path = String(p.runState().events);
  return readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

function expectUntouched(p: Project, id: string) {
  const b = p.bead(id);
  for (const key of CLAIM_KEYS) expect(b).not.toHaveProperty(key);
  expect(b.labels ?? []).not.toContain('blocked');
  expect(b.notes ?? '').toBe('');
  expect(b).not.toHaveProperty('work-retry-after');
}

describe('a build that ends on a usage or rate limit', () => {
  it('codex names a reset ("try again in 0.2s"): the run waits it out, says when it resumes, and the bead is then done — one attempt, no failure', () => {
    const p = new Project({
      beads: [bead({ id: 'hx-000000aa' })],
      script: { ...DIRECT, responses: [{ when: 'implementation', turnFailed: 'rate limit exceeded: Rate limit reached on tokens per min (TPM). Please try again in 0.2s.', exit: 1 }] },
    });
    const notes = recordingNotifier(p);
    const r = p.helix([...QUIET_RUN, '--agent', 'codex'], notes.env);
    expect(r.status, r.stderr).toBe(0);
    expect(p.buildCalls()).toHaveLength(2);
    expect(p.bead('hx-000000aa').status).toBe('closed');
    const pause = r.stderr.split('\n').filter((l) => l.includes('limit on hx-000000aa'));
    expect(pause).toHaveLength(1);
    expect(pause[0]).toMatch(/^helix: \[\d\d:\d\d:\d\d\] codex rate limit on hx-000000aa \(not counted as an attempt; claim released\): waiting until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z — rate limit exceeded: /);
    expect(r.stderr).toMatch(/resuming after waiting \d+s for the codex limit/);
    expect(r.stderr).not.toMatch(/FAILED|attempt 2 for|BLOCKED/);
    expect(r.stderr.match(RUN_COMPLETE)?.slice(1, 4)).toEqual(['1', '1', '0']);
    expect(p.runState()).toMatchObject({ attempted_cycles: 1, completed_cycles: 1, stop_reason: 'completed' });
    const types = eventLog(p).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['run_start', 'claim', 'dispatch', 'agent_done', 'limit', 'limit_resume', 'close', 'stop']));
    expect(types.indexOf('limit')).toBeLessThan(types.indexOf('limit_resume'));
    expect(notes.events().map((e) => e.type)).toEqual(['limit', 'limit_resume', 'stop']);
    expect(notes.events()[0]).toMatchObject({ v: 1, agent: 'codex', kind: 'rate' });
  });

  it('DDx reports a provider rate limit and --max-wait 0: the run stops at once with reason limit and exit 20; the bead is as it was', () => {
    const p = new Project({
      beads: [bead({ id: 'hx-000000aa' }), bead({ id: 'hx-000000bb' })],
      script: { responses: [{ when: 'execute-bead', result: { status: 'execution_failed', outcome: 'error', exit_code: 1, failure_mode: 'provider_rate_limit', detail: 'rate-limited beyond budget' }, exit: 1 }] },
    });
    const notes = recordingNotifier(p);
    const r = p.helix(['run', '--summary', '--max-wait', '0'], notes.env);
    expect(r.status, r.stderr).toBe(20);
    expect(p.buildCalls()).toHaveLength(1);
    expect(r.stderr).toMatch(/^helix: stopping: LIMIT: ddx rate limit: --max-wait 0 waits for none \(rate-limited beyond budget\)$/m);
    expect(r.stderr.match(RUN_COMPLETE)?.slice(1, 4)).toEqual(['0', '0', '0']);
    expectUntouched(p, 'hx-000000aa');
    expect(p.bead('hx-000000aa').status).toBe('open');
    expect(p.runState()).toMatchObject({ stop_reason: 'limit', attempted_cycles: 0 });
    const stop = eventLog(p).find((e) => e.type === 'stop');
    expect(stop).toMatchObject({ reason: 'limit', exit: 20 });
    // the limit (no resume: the run stops instead), then the stop
    expect(notes.events().map((e) => e.type)).toEqual(['limit', 'stop']);
    expect(notes.events()[0]).toMatchObject({ agent: 'ddx', kind: 'rate', resets_at: null, resume_at: null });
  });

  it('a streak of limits that would wait past --max-wait stops the run (exit 20) after the waits that fit', () => {
    const limited = { when: 'implementation', turnFailed: 'rate limit exceeded: Please try again in 0.3s.', exit: 1 };
    const p = new Project({ beads: [bead({ id: 'hx-000000aa' })], script: { ...DIRECT, responses: [limited, limited, limited] } });
    // each wait is 0.3 s + 1 s margin: the first fits in 2 s, the second would not
    const r = p.helix([...QUIET_RUN, '--agent', 'codex', '--max-wait', '2s']);
    expect(r.status, r.stderr).toBe(20);
    expect(p.buildCalls()).toHaveLength(2);
    expect(r.stderr.split('\n').filter((l) => l.includes('waiting until'))).toHaveLength(1);
    expect(r.stderr).toMatch(/stopping: LIMIT: codex rate limit: it resets at .*, beyond --max-wait 2s/);
    expectUntouched(p, 'hx-000000aa');
  });

  it('claude with a subscription window: waits for its resetsAt, and helix stop (SIGTERM) ends the wait at once, the claim released', async () => {
    const p = new Project({
      beads: [bead({ id: 'hx-000000aa' })],
      script: { ...DIRECT, responses: [{ when: 'implementation', limit429: { message: "You've hit your limit · resets 3am", resetsInSeconds: 3600 }, exit: 1 }] },
    });
    const bg = p.helixInBackground([...QUIET_RUN, '--agent', 'claude']);
    await waitUntil(() => bg.stderrSoFar().includes('waiting until'), 'the limit line');
    const line = bg.stderrSoFar().split('\n').find((l) => l.includes('waiting until')) ?? '';
    expect(line).toContain('claude usage limit on hx-000000aa');
    const resume = Date.parse(/waiting until (\S+)/.exec(line)?.[1] ?? '');
    expect(resume - Date.now()).toBeGreaterThan(3_500_000); // the named reset plus a minute
    bg.child.kill('SIGTERM');
    const r = await bg.done;
    expect(r.status).toBe(143);
    expect(p.buildCalls()).toHaveLength(1);
    expectUntouched(p, 'hx-000000aa');
    expect(p.runState()).toMatchObject({ attempted_cycles: 0, interrupted_by: 'SIGTERM' });
  });

  it('the drain check on a limit: the run waits and checks again, instead of stopping on a failed check', () => {
    const p = new Project({ beads: [], script: { ...DIRECT, responses: [{ when: 'check', turnFailed: 'rate limit exceeded: Please try again in 0.2s.', exit: 1 }] } });
    const r = p.helix([...QUIET_RUN, '--agent', 'codex']);
    expect(r.status, r.stderr).toBe(0);
    expect(p.checkCalls()).toHaveLength(2);
    expect(r.stderr).toMatch(/codex rate limit on the check \(checked again after the wait\): waiting until /);
    expect(r.stderr).not.toContain('check failed after queue drain');
    expect(p.runState()).toMatchObject({ stop_reason: 'completed' });
  });

  it('a drain action on a limit: the run waits and runs the action again, instead of counting it failed', () => {
    const p = new Project({
      beads: [],
      script: { ...DIRECT, responses: [{ when: 'check', stdout: 'NEXT_ACTION: POLISH\n' }, { when: 'polish', turnFailed: 'rate limit exceeded: Please try again in 0.2s.', exit: 1 }] },
    });
    const r = p.helix([...QUIET_RUN, '--agent', 'codex']);
    expect(r.status, r.stderr).toBe(0);
    expect(p.calls().filter((c) => c.action === 'polish')).toHaveLength(2);
    expect(r.stderr).toMatch(/codex rate limit on the polish action \(run again after the wait\): waiting until /);
    expect(p.runState()).toMatchObject({ stop_reason: 'completed' });
  });

  it('helix build on a limit: not an attempt, one line with the reset, exit 20, the bead as it was', () => {
    const p = new Project({ beads: [bead({ id: 'hx-000000aa' })], script: { ...DIRECT, responses: [{ when: 'implementation', turnFailed: "You've hit your usage limit. Try again at Nov 29th, 2026 7:41 PM.", exit: 1 }] } });
    const r = p.helix(['build', '--summary', '--agent', 'codex']);
    expect(r.status, r.stderr).toBe(20);
    expect(r.stderr).toMatch(/^helix: build of hx-000000aa not attempted \(claim released\): codex usage limit, resets at 2026-11-\d\dT\d\d:\d\d:00\.000Z: You've hit your usage limit\. /m);
    expectUntouched(p, 'hx-000000aa');
  });

  it('a model that merely writes "rate limit" in a failing answer hit no limit: it is a failed attempt as before', () => {
    const p = new Project({
      beads: [bead({ id: 'hx-000000aa' })],
      script: { ...DIRECT, responses: [{ when: 'implementation', stdout: "You've hit your usage limit. try again in 0.1s\n", exit: 1 }] },
    });
    const r = p.helix([...QUIET_RUN, '--agent', 'codex', '--max-wait', '0']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('LIMIT');
    expect(r.stderr).toMatch(/cycle 1: FAILED/);
  });
});
