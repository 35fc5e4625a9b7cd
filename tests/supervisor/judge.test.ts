// Was an attempt a completion? (docs/contract/cli.md §6.4): drift on every fingerprint field, the
// execute-bead result, the tracker state and the exit code decide; the skip reason names how it failed.
import { describe, expect, it } from 'vitest';
import type { ExecuteBeadResult } from '../../src/agents/index.js';
import { type Bead, fingerprintOf } from '../../src/tracker/index.js';
import { assessDispatch, assessMember, intractableReason } from '../../src/supervisor/core/judge.js';
import { bead } from './builders.js';

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

function assess(after: Bead | undefined, facts: { exitCode?: number; timedOut?: boolean; result?: ExecuteBeadResult; closer?: 'helix' | 'ddx' } = {}) {
  const before = base();
  return assessDispatch({
    before: fingerprintOf(before),
    after,
    afterFingerprint: after ? fingerprintOf(after) : undefined,
    exitCode: facts.exitCode ?? 0,
    timedOut: facts.timedOut ?? false,
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
