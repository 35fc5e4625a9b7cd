// Was an attempt a completion? (docs/contract/cli.md §6.4): drift on every fingerprint field, the
// execute-bead result, the tracker state and the exit code decide; the skip reason names how it failed.
import { describe, expect, it } from 'vitest';
import type { ExecuteBeadResult } from '../../../src/agents/index.js';
import { type Bead, fingerprintOf } from '../../../src/tracker/index.js';
import { type DispatchAssessment, type SettleFacts, type SettledOutcome, assessDispatch, assessMember, ddxParkOf, feedbackOf, intractableReason, judgeAttempt, settleAttempt, settleFailedClose, settleMember, verifyCommandOf } from '../../../src/supervisor/core/judge.js';
import { bead } from '../../helpers/bead.js';

const base = () => bead({ id: 'hx-a', 'spec-id': 'S-1', parent: 'hx-epic', dependencies: [{ issue_id: 'hx-a', depends_on_id: 'hx-dep', type: 'blocks' }] });

function result(fields: Partial<ExecuteBeadResult> = {}): ExecuteBeadResult {
  return {
    bead_id: 'hx-a',
    base_rev: 'a',
    result_rev: 'b',
    outcome: 'merged',
    status: 'success',
    detail: '',
    session_id: 's',
    duration_ms: 1,
    tokens: 0,
    cost_usd: 0,
    exit_code: 0,
    ...fields,
  } as ExecuteBeadResult;
}

/** When the judge re-reads the bead: a fixed moment (a park's time is read against it). */
const JUDGED_AT = new Date('2026-11-26T12:00:00Z');

function assess(after: Bead | undefined, facts: { exitCode?: number; timedOut?: boolean; result?: ExecuteBeadResult; closer?: 'helix' | 'ddx' } = {}) {
  const before = base();
  return assessDispatch({
    before: fingerprintOf(before),
    after,
    afterFingerprint: after ? fingerprintOf(after) : undefined,
    exitCode: facts.exitCode ?? 0,
    timedOut: facts.timedOut ?? false,
    now: JUDGED_AT,
    result: facts.result,
    closer: facts.closer,
  });
}

describe('queue drift', () => {
  const drifts: Array<[string, Partial<Bead>, string]> = [
    ['spec-id', { 'spec-id': 'S-2' }, 'spec-id'],
    ['parent', { parent: 'hx-other' }, 'parent'],
    ['superseded-by', { 'superseded-by': 'hx-new' }, 'superseded-by'],
    ['replaces', { replaces: 'hx-old' }, 'replaces'],
    ['a dependency added', { dependencies: [{ issue_id: 'hx-a', depends_on_id: 'hx-dep', type: 'blocks' }, { issue_id: 'hx-a', depends_on_id: 'hx-more', type: 'blocks' }] }, 'dependencies'],
    ['a dependency removed', { dependencies: [] }, 'dependencies'],
    ['execution eligibility', { 'execution-eligible': false }, 'execution-eligible'],
  ];
  for (const [name, change, field] of drifts) {
    it(`${name} changing during the attempt is drift, even when the bead was closed`, () => {
      expect(assess({ ...base(), status: 'in_progress', ...change })).toEqual(expect.objectContaining({ kind: 'drift', changes: expect.arrayContaining([field]) }));
      expect(assess({ ...base(), status: 'closed', ...change }, { result: result() })).toMatchObject({ kind: 'drift' });
    });
  }

  it('a bead that vanished is drift; title, notes and labels changing is not', () => {
    expect(assess(undefined)).toEqual({ kind: 'drift', changes: ['removed'] });
    expect(assess({ ...base(), status: 'closed', title: 'renamed', notes: 'n', labels: ['x'] })).toMatchObject({ kind: 'verify' });
  });
});

describe('completion', () => {
  it('a success result on a still-claimed bead: helix verifies and closes it', () => {
    expect(assess({ ...base(), status: 'in_progress' }, { result: result() })).toEqual({ kind: 'verify', helixCloses: true, salvaged: false });
  });

  it('the agent closed the bead itself: verify only', () => {
    expect(assess({ ...base(), status: 'closed' })).toEqual({ kind: 'verify', helixCloses: false, salvaged: false });
  });

  it('a non-zero exit with the bead closed is SALVAGED', () => {
    expect(assess({ ...base(), status: 'closed' }, { exitCode: 1 })).toEqual({ kind: 'verify', helixCloses: false, salvaged: true });
    expect(assess({ ...base(), status: 'closed' }, { exitCode: 1, result: result({ status: 'execution_failed', outcome: 'error' }) })).toEqual({ kind: 'verify', helixCloses: false, salvaged: true });
  });

  it('a failing result or exit with the bead open is an agent failure', () => {
    expect(assess({ ...base(), status: 'in_progress' }, { exitCode: 1 })).toEqual({ kind: 'failed', failure: 'agent-failed', detail: 'agent exited with code 1' });
    expect(assess({ ...base(), status: 'in_progress' }, { exitCode: 1, result: result({ status: 'execution_failed', outcome: 'error', detail: 'boom' }) })).toEqual({
      kind: 'failed',
      failure: 'agent-failed',
      detail: 'execution_failed: boom',
    });
    expect(assess({ ...base(), status: 'in_progress' }, { result: result({ status: 'structural_validation_failed', outcome: 'error' }) })).toMatchObject({ failure: 'agent-failed' });
  });

  it('a preserved outcome is never landed, whatever the status says (DDx v0.6.1: preserved + success for --no-merge)', () => {
    const preserved = result({ status: 'success', outcome: 'preserved', detail: '--no-merge specified', preserve_ref: 'refs/ddx/iterations/hx-1/x' });
    expect(assess({ ...base(), status: 'in_progress' }, { result: preserved })).toEqual({
      kind: 'preserved',
      detail: 'DDx preserved the work without merging it (status success: --no-merge specified (kept under refs/ddx/iterations/hx-1/x))',
    });
    expect(assess({ ...base(), status: 'in_progress' }, { result: result({ status: 'post_run_check_failed', outcome: 'preserved' }) })).toMatchObject({ kind: 'preserved' });
    // current DDx's `ddx try` prints no outcome: its preserved status says it
    expect(assess({ ...base(), status: 'open' }, { exitCode: 1, closer: 'ddx', result: { bead_id: 'hx-a', status: 'preserved_needs_review' } })).toMatchObject({ kind: 'preserved' });
  });

  it('a status helix does not know is reported by its name, not as an invalid result', () => {
    expect(assess({ ...base(), status: 'in_progress' }, { result: result({ status: 'quantum_flux', outcome: 'merged' }) })).toEqual({
      kind: 'failed',
      failure: 'no-completion',
      detail: 'DDx status "quantum_flux" is not one helix knows (quantum_flux)',
      unknown: true,
    });
  });

  it.each(['ratchet_failed', 'push_failed', 'no_evidence_produced', 'land_retry', 'review_block'])('DDx status %s is understood: not landed, no agent failure', (status) => {
    expect(assess({ ...base(), status: 'in_progress' }, { result: result({ status, outcome: 'no-changes' }) })).toMatchObject({ kind: 'failed', failure: 'no-completion' });
  });

  it('on `ddx try` DDx closes: success with the bead left open is not a completion', () => {
    expect(assess({ ...base(), status: 'open' }, { closer: 'ddx', result: { bead_id: 'hx-a', status: 'success' } })).toEqual({
      kind: 'failed',
      failure: 'no-completion',
      detail: 'DDx reported success but left the bead open',
    });
    expect(assess({ ...base(), status: 'closed' }, { closer: 'ddx', result: { bead_id: 'hx-a', status: 'success' } })).toEqual({ kind: 'verify', helixCloses: false, salvaged: false });
  });

  it('exit 0 without the bead done is a no-completion failure', () => {
    expect(assess({ ...base(), status: 'in_progress' })).toEqual({ kind: 'failed', failure: 'no-completion', detail: 'agent exited 0 but the bead is still in_progress' });
    expect(assess({ ...base(), status: 'in_progress' }, { result: result({ status: 'no_changes', outcome: 'no-changes' }) })).toMatchObject({ kind: 'failed', failure: 'no-completion' });
  });

  it('a timed-out agent that did not close the bead failed', () => {
    expect(assess({ ...base(), status: 'in_progress' }, { exitCode: 124, timedOut: true })).toEqual({ kind: 'failed', failure: 'agent-failed', detail: 'agent timed out' });
  });
});

describe('intractableReason', () => {
  it('words the skip by how the last attempt failed', () => {
    expect(intractableReason('agent-failed', 4)).toBe('intractable after 4 attempts with exponential backoff');
    expect(intractableReason('no-completion', 4)).toBe('failed to complete after 4 attempts with exponential backoff');
  });
});

describe('assessMember (a batch member after the dispatch)', () => {
  const member = (after: Bead | undefined) => assessMember({ before: fingerprintOf(base()), after, afterFingerprint: after ? fingerprintOf(after) : undefined });

  it('drift is judged as for the primary, closed or not', () => {
    expect(member(undefined)).toEqual({ kind: 'drift', changes: ['removed'] });
    expect(member({ ...base(), status: 'closed', replaces: 'hx-old' })).toEqual({ kind: 'drift', changes: ['replaces'] });
    expect(member({ ...base(), status: 'in_progress', parent: 'hx-other' })).toEqual({ kind: 'drift', changes: ['parent'] });
  });

  it('closed by the agent → verify; anything else (still claimed, released by hand) → release', () => {
    expect(member({ ...base(), status: 'closed', title: 'renamed' })).toEqual({ kind: 'verify' });
    expect(member({ ...base(), status: 'in_progress' })).toEqual({ kind: 'release' });
    expect(member({ ...base(), status: 'open' })).toEqual({ kind: 'release' });
  });
});

describe('DDx parked the bead: a failed attempt, never drift', () => {
  const now = new Date('2026-11-26T18:41:40Z');
  const open = { id: 'hx-1', title: 't', status: 'open', priority: 2, issue_type: 'task' };
  // as ae663ca012 left the bead after execution_failed
  const parked = { ...open, 'work-retry-after': '2026-11-27T00:41:39Z', 'work-cooldown-base-rev': 'abc', 'work-last-status': 'execution_failed' };

  it('a retry time does not change the fingerprint', () => {
    expect(fingerprintOf(parked, now)).toEqual(fingerprintOf(open, now));
  });

  it('the failure carries DDx\'s status, detail and park', () => {
    const assessment = assessDispatch({
      before: fingerprintOf(open, now), after: parked, afterFingerprint: fingerprintOf(parked, now), exitCode: 2, timedOut: false,
      result: { bead_id: 'hx-1', status: 'execution_failed', detail: 'exit status 1' }, closer: 'ddx', now,
    });
    expect(assessment).toEqual({ kind: 'failed', failure: 'agent-failed', detail: 'execution_failed: exit status 1; DDx parked it until 2026-11-27T00:41:39.000Z (work-retry-after)' });
  });

  it('DDx marking the bead execution-ineligible during its own attempt is its park, not drift; someone else\'s is drift', () => {
    const ineligible = { ...open, 'execution-eligible': false };
    const facts = { before: fingerprintOf(open, now), after: ineligible, afterFingerprint: fingerprintOf(ineligible, now), exitCode: 2, timedOut: false, now };
    expect(assessDispatch({ ...facts, result: { bead_id: 'hx-1', status: 'execution_failed' }, closer: 'ddx' }).kind).toBe('failed');
    expect(assessDispatch({ ...facts, result: undefined, closer: 'helix' }).kind).toBe('drift');
  });

  it('names each park DDx makes', () => {
    expect(ddxParkOf({ ...open, status: 'proposed', 'needs-human-reason': 'no_evidence_produced' }, now)).toBe('DDx moved it to proposed for a human (no_evidence_produced)');
    expect(ddxParkOf({ ...open, 'work-retry-after': '2026-11-26T18:00:00Z' }, now)).toBeUndefined(); // over
  });
});

// ── settling an attempt: each judgement of the dispatch, with the verification's result, maps to one
// outcome and the tracker writes the runner performs ──

const id = 'hx-a';
const open = (): Bead => bead({ id, status: 'in_progress' });
const closed = (fields: Partial<Bead> = {}): Bead => bead({ id, status: 'closed', ...fields });
const facts = (assessment: DispatchAssessment, over: Partial<SettleFacts> = {}): SettleFacts => ({ id, after: open(), assessment, closer: 'helix', ...over });
const passed = { passed: true, detail: '' };
const refused = { passed: false, detail: 'make test exited 2: boom' };

describe('settleAttempt', () => {
  const table: Array<[string, SettleFacts, ReturnType<typeof settleAttempt>]> = [
    [
      'drift on a bead still in progress releases the claim',
      facts({ kind: 'drift', changes: ['priority'] }),
      { outcome: { kind: 'drift', changes: ['priority'] }, trackerOps: [{ op: 'release', id }] },
    ],
    [
      'drift on a vanished bead only forgets the claim',
      facts({ kind: 'drift', changes: ['removed'] }, { after: undefined }),
      { outcome: { kind: 'drift', changes: ['removed'] }, trackerOps: [{ op: 'stop-holding', id }] },
    ],
    [
      'drift on a superseded bead the agent closed reopens it',
      facts({ kind: 'drift', changes: ['superseded-by'] }, { after: closed({ 'superseded-by': 'hx-b' }) }),
      { outcome: { kind: 'drift', changes: ['superseded-by'] }, trackerOps: [{ op: 'reopen', id, reason: 'queue drift: stale close after supersession' }, { op: 'stop-holding', id }] },
    ],
    [
      'drift on a bead DDx closed itself (ddx try) reopens it',
      facts({ kind: 'drift', changes: ['spec-id'] }, { after: closed(), closer: 'ddx' }),
      { outcome: { kind: 'drift', changes: ['spec-id'] }, trackerOps: [{ op: 'reopen', id, reason: 'queue drift: DDx closed it, but its governance fields changed during execution' }] },
    ],
    [
      'drift on a bead closed by the agent keeps the close and releases',
      facts({ kind: 'drift', changes: ['spec-id'] }, { after: closed() }),
      { outcome: { kind: 'drift', changes: ['spec-id'] }, trackerOps: [{ op: 'release', id }] },
    ],
    [
      'a failed agent releases the claim',
      facts({ kind: 'failed', failure: 'agent-failed', detail: 'agent exited with code 1' }),
      { outcome: { kind: 'failed', failure: 'agent-failed', detail: 'agent exited with code 1' }, trackerOps: [{ op: 'release', id }] },
    ],
    [
      'a result DDx kept aside releases the claim and says so',
      facts({ kind: 'preserved', detail: 'preserved on hx-a/attempt-1' }),
      {
        outcome: { kind: 'failed', failure: 'no-completion', detail: 'preserved on hx-a/attempt-1' },
        trackerOps: [{ op: 'release', id }],
        notice: { level: 'always', text: 'helix: hx-a not landed: preserved on hx-a/attempt-1' },
      },
    ],
    [
      'a result DDx kept aside on a closed bead reopens it',
      facts({ kind: 'preserved', detail: 'preserved' }, { after: closed() }),
      {
        outcome: { kind: 'failed', failure: 'no-completion', detail: 'preserved' },
        trackerOps: [{ op: 'reopen', id, reason: 'not landed: preserved' }, { op: 'stop-holding', id }],
        notice: { level: 'always', text: 'helix: hx-a not landed: preserved' },
      },
    ],
    [
      'verified and landed: helix closes with DDx’s commit and session',
      facts({ kind: 'verify', helixCloses: true, salvaged: false }, { verification: passed, landed: { commit: 'abc', session: 's-1' } }),
      { outcome: { kind: 'completed', salvaged: false }, trackerOps: [{ op: 'close', id, commit: 'abc', session: 's-1' }, { op: 'stop-holding', id }] },
    ],
    [
      'no verify command and closed by the agent: completed, salvaged as judged',
      facts({ kind: 'verify', helixCloses: false, salvaged: true }, { after: closed() }),
      { outcome: { kind: 'completed', salvaged: true }, trackerOps: [{ op: 'stop-holding', id }] },
    ],
    [
      'failed verification on a bead the agent closed reopens it',
      facts({ kind: 'verify', helixCloses: false, salvaged: false }, { after: closed(), verification: refused }),
      {
        outcome: { kind: 'failed', failure: 'no-completion', detail: 'verification failed: make test exited 2: boom', refuted: true },
        trackerOps: [{ op: 'reopen', id, reason: 'verification failed: make test exited 2: boom' }, { op: 'stop-holding', id }],
      },
    ],
    [
      'failed verification on a bead helix would close releases it',
      facts({ kind: 'verify', helixCloses: true, salvaged: false }, { verification: refused }),
      // the reason goes in the notes: the retry's prompt shows it
      { outcome: { kind: 'failed', failure: 'no-completion', detail: 'verification failed: make test exited 2: boom', refuted: true }, trackerOps: [{ op: 'release', id, note: 'verification failed: make test exited 2: boom' }] },
    ],
  ];
  it.each(table)('%s', (_name, input, expected) => {
    expect(settleAttempt(input)).toEqual(expected);
  });

  it('a close the tracker refuses settles as a failed attempt that releases the claim', () => {
    expect(settleFailedClose(id, 'lock timeout')).toEqual({
      outcome: { kind: 'failed', failure: 'no-completion', detail: 'could not close: lock timeout' },
      trackerOps: [{ op: 'release', id }],
    });
  });
});

describe('settleMember', () => {
  it('a member the agent did not close is released as optional work', () => {
    expect(settleMember({ id, after: open(), assessment: { kind: 'release' }, closer: 'helix' })).toEqual({ outcome: { kind: 'released' }, trackerOps: [{ op: 'release', id }] });
  });

  it('a member closed and verified completes; one that fails verification is reopened', () => {
    expect(settleMember({ id, after: closed(), assessment: { kind: 'verify' }, verification: passed, closer: 'helix' })).toEqual({ outcome: { kind: 'completed' }, trackerOps: [{ op: 'stop-holding', id }] });
    expect(settleMember({ id, after: closed(), assessment: { kind: 'verify' }, verification: refused, closer: 'helix' })).toEqual({
      outcome: { kind: 'failed', detail: 'verification failed: make test exited 2: boom' },
      trackerOps: [{ op: 'stop-holding', id }, { op: 'reopen', id, reason: 'verification failed: make test exited 2: boom' }],
    });
  });

  it('a drifted member is released like a drifted primary', () => {
    expect(settleMember({ id, after: open(), assessment: { kind: 'drift', changes: ['priority'] }, closer: 'helix' })).toEqual({
      outcome: { kind: 'drift', changes: ['priority'] },
      trackerOps: [{ op: 'release', id }],
    });
  });
});

// ── the runner's one entry: judgeAttempt, then the verification, then its settle ──

describe('judgeAttempt', () => {
  const judged = (after: Bead | undefined, over: { exitCode?: number; result?: ExecuteBeadResult; verifyCommand?: string; closer?: 'helix' | 'ddx' } = {}) =>
    judgeAttempt({
      id: 'hx-a',
      now: JUDGED_AT,
      before: fingerprintOf(base()),
      after,
      afterFingerprint: after ? fingerprintOf(after) : undefined,
      exitCode: over.exitCode ?? 0,
      timedOut: false,
      result: over.result,
      closer: over.closer ?? 'helix',
      verifyCommand: over.verifyCommand,
    });

  it('asks for the bead’s verify command only when the dispatch can be a completion', () => {
    expect(judged({ ...base(), status: 'closed' }, { verifyCommand: 'make test' }).verify).toBe('make test');
    expect(judged({ ...base(), status: 'closed' }).verify).toBeUndefined();
    expect(judged({ ...base(), status: 'in_progress' }, { verifyCommand: 'make test' }).verify).toBeUndefined();
    // drift: governance changed under the agent, nothing is verified
    expect(judged({ ...base(), 'spec-id': 'S-2', status: 'closed' }, { verifyCommand: 'make test' }).verify).toBeUndefined();
  });

  it('settles with the verification: a refused one reopens what the agent closed, a passed one completes', () => {
    const judgement = judged({ ...base(), status: 'closed' }, { verifyCommand: 'make test' });
    expect(judgement.settle({ passed: true, detail: '' })).toMatchObject({ outcome: { kind: 'completed', salvaged: false }, trackerOps: [{ op: 'stop-holding', id: 'hx-a' }] });
    expect(judgement.settle({ passed: false, detail: 'make test exited 2' })).toMatchObject({
      outcome: { kind: 'failed', failure: 'no-completion', refuted: true },
      trackerOps: [{ op: 'reopen', id: 'hx-a' }, { op: 'stop-holding', id: 'hx-a' }],
    });
  });

  it('closes with DDx’s landed commit and session, and says so when verification refuses landed work', () => {
    const landed = result({ result_rev: 'f1ee2a3df79e378f88b9', session_id: 'sess-1' });
    const judgement = judged({ ...base(), status: 'in_progress' }, { result: landed, verifyCommand: 'make test' });
    expect(judgement.settle({ passed: true, detail: '' }).trackerOps).toEqual([{ op: 'close', id: 'hx-a', commit: 'f1ee2a3df79e378f88b9', session: 'sess-1' }, { op: 'stop-holding', id: 'hx-a' }]);
    expect(judgement.settle({ passed: false, detail: 'x' }).notice?.text).toMatch(/^helix: hx-a: DDx landed f1ee2a3df79e before helix verified it/);
  });

  it('an unknown DDx status fails the attempt with a line every mode shows', () => {
    const judgement = judged({ ...base(), status: 'in_progress' }, { result: result({ status: 'wibble' as ExecuteBeadResult['status'] }) });
    expect(judgement.notice).toEqual({ level: 'always', text: expect.stringMatching(/^helix: hx-a: /) });
    expect(judgement.settle().outcome).toMatchObject({ kind: 'failed' });
  });
});

describe('an attempt helix’s gate kept from landing (current DDx, issue 32)', () => {
  const blocked = result({ status: 'post_run_check_failed', outcome: undefined, detail: 'pre-merge checks blocked: helix-verify', result_rev: 'r1', preserve_ref: 'refs/ddx/iterations/hx-a/x' });
  const gate = { bead: 'hx-a', diff_head: 'r1', status: 'block' as const, message: 'npm test exited 1: FAIL x', output: ['FAIL x'] };
  const judged = (g?: typeof gate) =>
    judgeAttempt({ id: 'hx-a', now: JUDGED_AT, before: fingerprintOf(base()), after: { ...base(), status: 'open' }, afterFingerprint: fingerprintOf({ ...base(), status: 'open' }), exitCode: 2, timedOut: false, result: blocked, closer: 'ddx', verifyCommand: 'npm test', gate: g });

  it('is a refuted attempt with the verification’s reason, in the notes for the next attempt; nothing is verified again', () => {
    const judgement = judged(gate);
    expect(judgement.verify).toBeUndefined();
    const detail = 'verification failed before landing: npm test exited 1: FAIL x; DDx kept it under refs/ddx/iterations/hx-a/x, not landed';
    expect(judgement.settle()).toEqual({ outcome: { kind: 'failed', failure: 'no-completion', detail, refuted: true, output: ['FAIL x'] }, trackerOps: [{ op: 'release', id: 'hx-a', note: detail }] });
  });

  it('without the gate’s record (another check of the project blocked it) DDx’s own status and detail stand', () => {
    expect(judged().settle()).toMatchObject({ outcome: { kind: 'failed', detail: expect.stringMatching(/^post_run_check_failed: pre-merge checks blocked: helix-verify/) }, trackerOps: [{ op: 'release', id: 'hx-a' }] });
  });
});

describe('feedbackOf: what the injected memories hear', () => {
  const cases: Array<[SettledOutcome, ReturnType<typeof feedbackOf>]> = [
    [{ kind: 'completed', salvaged: false }, { verified: true, refuted: false }],
    [{ kind: 'failed', failure: 'agent-failed', detail: 'boom' }, { verified: false, failureDetail: 'boom', refuted: false }],
    [{ kind: 'failed', failure: 'no-completion', detail: 'verification failed: x', refuted: true }, { verified: false, failureDetail: 'verification failed: x', refuted: true }],
    [{ kind: 'drift', changes: ['priority'] }, undefined],
  ];
  it.each(cases  )('%j → %j', (outcome, heard) => {
    expect(feedbackOf(outcome)).toEqual(heard);
  });
});

describe('verifyCommandOf', () => {
  it('takes the bead’s own command, else HELIX_VERIFY_CMD, else none', () => {
    expect(verifyCommandOf({ ...base(), verify: 'npm test' }, { HELIX_VERIFY_CMD: 'make' })).toBe('npm test');
    expect(verifyCommandOf({ ...base(), verify: '  ' }, { HELIX_VERIFY_CMD: 'make' })).toBe('make');
    expect(verifyCommandOf(base(), {})).toBeUndefined();
  });
});
