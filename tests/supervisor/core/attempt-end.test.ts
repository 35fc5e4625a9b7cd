// How an attempt ended, as the event log says it (core/attempt-end.ts): one outcome per claim.
import { describe, expect, it } from 'vitest';
import { attemptEndOf, stoppedAttemptEnd } from '../../../src/supervisor/core/attempt-end.js';
import type { Event } from '../../../src/supervisor/core/machine-types.js';
import { bead } from '../../helpers/bead.js';

const b = bead({ id: 'hx-1', title: 'one' });
const facts = { bead: 'hx-1', attempt: 2, seconds: 12.4, log: { first: 3, last: 9 } };
const attempted = (outcome: Extract<Event, { type: 'attempted' }>['outcome']): Event => ({ type: 'attempted', bead: b, outcome, durationSec: 12, tokens: 500, costUsd: 0.05 });

describe('attempt_end', () => {
  it.each([
    [attempted({ kind: 'completed', salvaged: false }), 'landed', null],
    [attempted({ kind: 'failed', failure: 'no-completion', detail: 'npm test exited 1\nmore', refuted: true, output: ['FAIL x'] }), 'verification_failed', 'npm test exited 1'],
    [attempted({ kind: 'failed', failure: 'agent-failed', detail: 'claude exited 1' }), 'failed', 'claude exited 1'],
    [attempted({ kind: 'drift', changes: ['title'] }), 'drift', 'the bead changed under the attempt: title'],
    [{ type: 'limited', bead: b, limit: { agent: 'claude', kind: 'usage', detail: "You've hit your limit" }, at: 0, tokens: 0 } as Event, 'limit', "claude usage limit: You've hit your limit"],
    [{ type: 'unavailable', bead: b, problem: { kind: 'infrastructure', what: 'DDx could not commit', detail: 'index.lock exists' } } as Event, 'infrastructure', 'DDx could not commit: index.lock exists'],
  ])('%#: %s', (event, outcome, reason) => {
    expect(attemptEndOf(event, facts)).toMatchObject({ type: 'attempt_end', bead: 'hx-1', attempt: 2, outcome, reason, seconds: 12, log: { first: 3, last: 9 } });
  });

  it('carries what verification printed last on a verification failure, and the spend', () => {
    expect(attemptEndOf(attempted({ kind: 'failed', failure: 'no-completion', detail: 'x', refuted: true, output: ['FAIL x'] }), facts)).toMatchObject({ output: ['FAIL x'], tokens: 500, cost_usd: 0.05 });
  });

  it('is not written for a bead passed over before its claim', () => {
    expect(attemptEndOf(attempted({ kind: 'passed-over', reason: 'claimed elsewhere' }), facts)).toBeUndefined();
  });

  it('a stopped attempt says why', () => {
    expect(stoppedAttemptEnd(facts, 'the run was stopped')).toMatchObject({ outcome: 'stopped', reason: 'the run was stopped', attempt: 2 });
  });
});
