// Settling an attempt is pure data (judge.ts): each judgement of the dispatch, with the
// verification's result, maps to one outcome and the tracker writes the runner performs.
import { describe, expect, it } from 'vitest';
import type { Bead } from '../../src/tracker/index.js';
import { type DispatchAssessment, type SettleFacts, settleAttempt, settleFailedClose, settleMember } from '../../src/supervisor/core/judge.js';
import { bead } from './builders.js';

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
