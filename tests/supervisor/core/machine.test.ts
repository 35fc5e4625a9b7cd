// The run loop's state machine, played in memory against a scripted world: cycle accounting,
// backoff and skipping, drift, epic focus, the NEXT_ACTION routing table (docs/contract/cli.md §6.6) and the
// typed stops. No processes, no files.
import { describe, expect, it } from 'vitest';
import type { NextAction, UsageLimit } from '../../../src/agents/index.js';
import type { Bead } from '../../../src/tracker/index.js';
import { type MachineState, assertOneNextEvent, initialState, routeNextAction, step } from '../../../src/supervisor/core/machine.js';
import type { MemberOutcome } from '../../../src/supervisor/core/outcome.js';
import { DRIFT_REASON } from '../../../src/supervisor/core/judge.js';
import { completed, failed, play, settings } from './scripted-run.js';
import { bead } from '../../helpers/bead.js';

const stopMessage = (p: ReturnType<typeof play>) => p.of('stop')[0]?.message;

describe('queue drain routing (docs/contract/cli.md §6.6)', () => {
  const cases: Array<{
    name: string;
    checks: Array<NextAction | undefined>;
    autoAlign?: boolean;
    actions?: boolean[];
    exit: number;
    reason: string;
    message: string;
    checkCalls: number;
    ran: string[];
  }> = [
    { name: 'STOP aligns once before stopping, also when nothing was built', checks: ['STOP'], exit: 0, reason: 'completed', message: 'helix: stopping after check returned STOP', checkCalls: 1, ran: ['align:pre-stop'] },
    { name: 'STOP without auto-align stops at once', checks: ['STOP'], autoAlign: false, exit: 0, reason: 'completed', message: 'helix: stopping after check returned STOP', checkCalls: 1, ran: [] },
    { name: 'a failed pre-stop alignment is said and the run still stops with exit 0', checks: ['STOP'], actions: [false], exit: 0, reason: 'completed', message: 'helix: stopping after check returned STOP', checkCalls: 1, ran: ['align:pre-stop'] },
    { name: 'WAIT stops and never tries a build', checks: ['WAIT'], exit: 0, reason: 'blocked', message: 'helix: stopping after check returned WAIT', checkCalls: 1, ran: [] },
    { name: 'GUIDANCE stops and never tries a build', checks: ['GUIDANCE'], exit: 0, reason: 'blocked', message: 'helix: stopping after check returned GUIDANCE', checkCalls: 1, ran: [] },
    { name: 'no NEXT_ACTION is an error', checks: [undefined], exit: 1, reason: 'error', message: 'helix: unable to determine NEXT_ACTION from check output', checkCalls: 1, ran: [] },
    {
      name: 'BUILD twice with nothing selectable trips the breaker: check exactly twice, then orphan recovery, then stop',
      checks: ['BUILD', 'BUILD', 'STOP'],
      exit: 0,
      reason: 'blocked',
      message: 'helix: no selectable issues after orphan recovery — stopping',
      checkCalls: 2,
      ran: [],
    },
    { name: 'DESIGN runs design and re-checks; DESIGN again stops', checks: ['DESIGN', 'DESIGN'], exit: 0, reason: 'completed', message: 'helix: stopping after check returned DESIGN', checkCalls: 2, ran: ['design:drain'] },
    { name: 'POLISH runs polish and re-checks; POLISH again stops', checks: ['POLISH', 'POLISH'], exit: 0, reason: 'completed', message: 'helix: stopping after check returned POLISH', checkCalls: 2, ran: ['polish:drain'] },
    { name: 'BACKFILL runs backfill inline and re-checks; BACKFILL again stops', checks: ['BACKFILL', 'BACKFILL'], exit: 0, reason: 'completed', message: 'helix: stopping after check returned BACKFILL', checkCalls: 2, ran: ['backfill:drain'] },
    { name: 'DESIGN then STOP: one design pass, the pre-stop alignment, then a clean stop', checks: ['DESIGN', 'STOP'], exit: 0, reason: 'completed', message: 'helix: stopping after check returned STOP', checkCalls: 2, ran: ['design:drain', 'align:pre-stop'] },
    { name: 'a failed design after drain exits 1', checks: ['DESIGN'], actions: [false], exit: 1, reason: 'error', message: 'helix: design failed after queue drain', checkCalls: 1, ran: ['design:drain'] },
    { name: 'a failed polish after drain exits 1', checks: ['POLISH'], actions: [false], exit: 1, reason: 'error', message: 'helix: polish failed after queue drain', checkCalls: 1, ran: ['polish:drain'] },
    { name: 'ALIGN auto-aligns once and re-checks; ALIGN again stops', checks: ['ALIGN', 'ALIGN'], exit: 0, reason: 'completed', message: 'helix: stopping after check returned ALIGN', checkCalls: 2, ran: ['align:drain'] },
    { name: 'ALIGN without auto-align stops at once', checks: ['ALIGN'], autoAlign: false, exit: 0, reason: 'completed', message: 'helix: stopping after check returned ALIGN', checkCalls: 1, ran: [] },
    { name: 'a failed auto-align exits 1', checks: ['ALIGN'], actions: [false], exit: 1, reason: 'error', message: 'helix: post-drain alignment failed', checkCalls: 1, ran: ['align:drain'] },
    { name: 'BACKFILL that fails exits 1', checks: ['BACKFILL'], actions: [false], exit: 1, reason: 'error', message: 'helix: backfill failed after queue drain', checkCalls: 1, ran: ['backfill:drain'] },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const p = play({ beads: [], checks: c.checks, actions: c.actions }, settings({ autoAlign: c.autoAlign ?? true }));
      expect(p.state.stop).toEqual({ exitCode: c.exit, reason: c.reason });
      expect(stopMessage(p)).toBe(c.message);
      expect(p.of('runCheck')).toHaveLength(c.checkCalls);
      expect(p.of('runAction').map((a) => `${a.action}:${a.purpose}`)).toEqual(c.ran);
      expect(p.of('attempt')).toHaveLength(0);
    });
  }

  it('the BUILD breaker retries when orphan recovery freed beads', () => {
    const p = play({ beads: [], checks: ['BUILD', 'BUILD', 'STOP'], breakerRecovery: { readyBefore: 0, readyAfter: 2 } });
    expect(p.lines).toContain('helix: orphan recovery freed issues (0 → 2 ready), retrying');
    expect(p.of('recoverOrphans').map((r) => r.why)).toEqual(['start', 'build-breaker']);
    expect(p.of('runCheck')).toHaveLength(3);
    expect(stopMessage(p)).toBe('helix: stopping after check returned STOP');
  });

  it('WAIT with ready work never reaches an attempt: the check only runs on an empty queue', () => {
    const p = play({ beads: [bead({ id: 'hx-1' })], checks: ['WAIT'] });
    expect(p.of('attempt').map((a) => a.bead.id)).toEqual(['hx-1']);
    expect(p.of('runCheck')).toHaveLength(1);
    const afterCheck = p.effects.slice(p.effects.findIndex((e) => e.type === 'runCheck'));
    expect(afterCheck.some((e) => e.type === 'attempt' || e.type === 'readQueue')).toBe(false);
  });

  it('STOP after a completed build aligns once before stopping (and not with auto-align off)', () => {
    const withAlign = play({ beads: [bead({ id: 'hx-1' })], checks: ['STOP'] });
    expect(withAlign.of('runAction').map((a) => `${a.action}:${a.purpose}`)).toEqual(['align:pre-stop']);
    expect(withAlign.state.stop).toEqual({ exitCode: 0, reason: 'completed' });
    expect(stopMessage(withAlign)).toBe('helix: stopping after check returned STOP');

    const without = play({ beads: [bead({ id: 'hx-1' })], checks: ['STOP'] }, settings({ autoAlign: false }));
    expect(without.of('runAction')).toEqual([]);

    const alignFails = play({ beads: [bead({ id: 'hx-1' })], checks: ['STOP'], actions: [false] });
    expect(alignFails.state.stop).toEqual({ exitCode: 0, reason: 'completed' });
    expect(alignFails.lines).toContain('helix: pre-stop alignment failed');
  });

  it('a build between two DESIGN answers means the second one is not a repeat', () => {
    let state = initialState();
    state = routeNextAction(state, 'DESIGN', settings()).state;
    const b = bead({ id: 'hx-1' });
    state = step(state, { type: 'attempted', bead: b, outcome: { kind: 'completed', salvaged: false }, durationSec: 1, tokens: 0 }, settings()).state;
    const again = routeNextAction(state, 'DESIGN', settings());
    expect(again.state.stop).toBeUndefined();
    expect(again.effects).toEqual([{ type: 'say', level: 'narrative', text: 'helix: queue drained, running design' }, { type: 'runAction', action: 'design', purpose: 'drain' }]);
    // and without the build in between it is a repeat
    const repeated = routeNextAction(routeNextAction(initialState(), 'DESIGN', settings()).state, 'DESIGN', settings());
    expect(repeated.state.stop).toEqual({ exitCode: 0, reason: 'completed' });
  });
});

describe('cycle accounting', () => {
  it('--max-cycles counts completed cycles only: failures do not use up the budget', () => {
    const p = play(
      {
        beads: [bead({ id: 'hx-a' }), bead({ id: 'hx-b' }), bead({ id: 'hx-c' })],
        attempts: { 'hx-a': [failed('agent-failed'), completed()] },
      },
      settings({ maxCycles: 2 }),
    );
    expect(p.of('attempt').map((a) => a.bead.id)).toEqual(['hx-a', 'hx-a', 'hx-b']);
    expect(p.state).toMatchObject({ attempted: 3, completed: 2 });
    expect(p.state.stop).toEqual({ exitCode: 0, reason: 'completed' });
    expect(stopMessage(p)).toBe('helix: reached max cycles (2)');
    expect(p.of('runCheck')).toHaveLength(0);
  });

  it('cycle numbers follow attempts and the summary line shows done/attempted and tokens', () => {
    const p = play({
      beads: [bead({ id: 'hx-a' }), bead({ id: 'hx-b' })],
      attempts: { 'hx-a': [failed('agent-failed'), completed(1, 40)], 'hx-b': [completed(1, 2)] },
    });
    expect(p.of('attempt').map((c) => [c.cycle, c.bead.id])).toEqual([[1, 'hx-a'], [2, 'hx-a'], [3, 'hx-b']]);
    expect(p.lines).toContain('cycle 1: FAILED (hx-a attempt 1): agent exited with code 1');
    expect(p.lines).toContain('cycle 2: hx-a → COMPLETE (1/2 done, 40 tokens)');
    expect(p.lines).toContain('cycle 3: hx-b → COMPLETE (2/3 done, 42 tokens)');
    expect(p.state.tokens).toBe(42);
  });

  it('a passed-over bead is not an attempt and is not chosen again in the same pass', () => {
    const p = play({ beads: [bead({ id: 'hx-a' }), bead({ id: 'hx-b' })], attempts: { 'hx-a': [{ kind: 'passed-over', reason: 'claimed elsewhere' }] } });
    expect(p.of('attempt').map((a) => a.bead.id)).toEqual(['hx-a', 'hx-b', 'hx-a']);
    expect(p.state).toMatchObject({ attempted: 2, completed: 2 });
  });

  it('periodic alignment runs every --review-every completed cycles', () => {
    const p = play({ beads: ['1', '2', '3', '4'].map((n) => bead({ id: `hx-${n}` })) }, settings({ reviewEvery: 2, autoAlign: false }));
    expect(p.of('runAction').map((a) => a.purpose)).toEqual(['periodic', 'periodic']);
    const failing = play({ beads: ['1', '2'].map((n) => bead({ id: `hx-${n}` })), actions: [false] }, settings({ reviewEvery: 2 }));
    expect(failing.state.stop).toEqual({ exitCode: 1, reason: 'error' });
    expect(stopMessage(failing)).toBeUndefined();
    expect(failing.lines).toContain('helix: periodic alignment after 2 cycles');
    expect(failing.lines.at(-1)).toBe('helix: periodic alignment failed after 2 cycles');
  });
});

describe('backoff and skipping', () => {
  const fourFailures = (kind: 'agent-failed' | 'no-completion') => ({
    beads: [bead({ id: 'hx-bad', title: 'stubborn' }), bead({ id: 'hx-ok' })],
    attempts: { 'hx-bad': [failed(kind), failed(kind), failed(kind), failed(kind), completed()] },
  });

  it('sleeps 5, 10, 20, 40 s after the four failures, then blocks the bead as intractable', () => {
    const p = play(fourFailures('agent-failed'));
    expect(p.of('sleep').map((s) => s.seconds)).toEqual([5, 10, 20, 40]);
    expect(p.of('attempt').filter((a) => a.bead.id === 'hx-bad')).toHaveLength(4);
    expect(p.state.skipped).toEqual([{ id: 'hx-bad', title: 'stubborn', reason: 'intractable after 4 attempts with exponential backoff', lastDetail: 'agent exited with code 1' }]);
    expect(p.of('markBlocked')).toEqual([{ type: 'markBlocked', id: 'hx-bad', reason: 'intractable after 4 attempts with exponential backoff' }]);
    expect(p.lines).toContain('BLOCKED hx-bad after 4 attempts');
    // every backoff is a line and an event, the one after the 4th attempt too (helix log -f is never silent)
    expect(p.of('record').map((r) => r.event).filter((e) => e.type === 'backoff')).toEqual([
      { type: 'backoff', bead: 'hx-bad', attempt: 2, seconds: 5, reason: 'agent exited with code 1' },
      { type: 'backoff', bead: 'hx-bad', attempt: 3, seconds: 10, reason: 'agent exited with code 1' },
      { type: 'backoff', bead: 'hx-bad', attempt: 4, seconds: 20, reason: 'agent exited with code 1' },
      { type: 'backoff', bead: 'hx-bad', attempt: 5, seconds: 40, reason: 'agent exited with code 1', last: true },
    ]);
    expect(p.lines).toContain('backoff 40s after attempt 4 for hx-bad, the last');
    expect(p.lines).toContain('helix: backoff 40s after attempt 4 for hx-bad, the last; then it is skipped');
    // the loop moves on to other work
    expect(p.of('attempt').at(-1)?.bead.id).toBe('hx-ok');
    expect(p.state).toMatchObject({ attempted: 5, completed: 1 });
  });

  it('names a bead that kept exiting 0 without completing differently', () => {
    const p = play(fourFailures('no-completion'));
    expect(p.state.skipped.map((s) => s.reason)).toEqual(['failed to complete after 4 attempts with exponential backoff']);
  });

  it('HELIX_BACKOFF_SLEEP overrides every backoff sleep (0 in tests)', () => {
    const p = play(fourFailures('agent-failed'), settings({ backoffOverride: 0 }));
    expect(p.of('sleep').map((s) => s.seconds)).toEqual([0, 0, 0, 0]);
    expect(p.state.skipped).toHaveLength(1);
  });

  it('recovers orphans after every failed attempt', () => {
    const p = play(fourFailures('agent-failed'));
    expect(p.of('recoverOrphans').map((r) => r.why)).toEqual(['start', 'failure', 'failure', 'failure', 'failure']);
  });

  it('a bead that recovers after three failures is completed, not skipped', () => {
    const p = play({ beads: [bead({ id: 'hx-a' })], attempts: { 'hx-a': [failed('agent-failed'), failed('agent-failed'), failed('agent-failed'), completed()] } });
    expect(p.state.skipped).toEqual([]);
    expect(p.state).toMatchObject({ attempted: 4, completed: 1 });
    expect(p.of('sleep').map((s) => s.seconds)).toEqual([5, 10, 20]);
  });

  it('blocks the focused parent epic with its intractable child', () => {
    const p = play({
      beads: [bead({ id: 'hx-epic', issue_type: 'epic', title: 'the epic' }), bead({ id: 'hx-c1', parent: 'hx-epic' }), bead({ id: 'hx-c2', parent: 'hx-epic' })],
      attempts: { 'hx-c1': [failed('agent-failed'), failed('agent-failed'), failed('agent-failed'), failed('agent-failed')] },
    });
    expect(p.state.skipped.map((s) => [s.id, s.title, s.reason])).toEqual([
      ['hx-c1', 'bead hx-c1', 'intractable after 4 attempts with exponential backoff'],
      ['hx-epic', 'the epic', 'child hx-c1 intractable after 4 attempts'],
    ]);
    expect(p.of('markBlocked').map((m) => m.id)).toEqual(['hx-c1', 'hx-epic']);
  });
});

describe('queue drift', () => {
  it('skips the bead with the drift reason and goes on', () => {
    const p = play({ beads: [bead({ id: 'hx-a', title: 'A' }), bead({ id: 'hx-b' })], attempts: { 'hx-a': [{ kind: 'drift', changes: ['spec-id'] }] } });
    expect(p.lines).toContain('helix: queue drift detected for hx-a; refusing stale completion');
    expect(p.state.skipped).toEqual([{ id: 'hx-a', title: 'A', reason: DRIFT_REASON }]);
    expect(DRIFT_REASON).toBe('queue drift: upstream governance fields changed during execution');
    expect(p.of('attempt').map((a) => a.bead.id)).toEqual(['hx-a', 'hx-b']);
    expect(p.state).toMatchObject({ attempted: 2, completed: 1 });
  });
});

describe('epic focus', () => {
  it('focuses an epic, works its children, closes it, and counts the close as a completed cycle', () => {
    const p = play({
      beads: [bead({ id: 'hx-epic', issue_type: 'epic' }), bead({ id: 'hx-c1', parent: 'hx-epic' }), bead({ id: 'hx-c2', parent: 'hx-epic' }), bead({ id: 'hx-other' })],
    });
    expect(p.lines[0]).toBe('helix: epic focus hx-epic → child hx-c1');
    expect(p.of('attempt').map((a) => a.bead.id)).toEqual(['hx-c1', 'hx-c2', 'hx-other']);
    expect(p.of('closeEpic').map((c) => c.epicId)).toEqual(['hx-epic']);
    expect(p.state).toMatchObject({ attempted: 3, completed: 4, focusedEpic: undefined });
    // the context is rewritten on the epic switch
    expect(p.of('writeContext').length).toBeGreaterThanOrEqual(2);
  });

  it('an epic close can reach --max-cycles', () => {
    const p = play({ beads: [bead({ id: 'hx-epic', issue_type: 'epic' }), bead({ id: 'hx-c1', parent: 'hx-epic' }), bead({ id: 'hx-x' })] }, settings({ maxCycles: 2 }));
    expect(p.state).toMatchObject({ attempted: 1, completed: 2 });
    expect(stopMessage(p)).toBe('helix: reached max cycles (2)');
    expect(p.of('attempt').map((a) => a.bead.id)).toEqual(['hx-c1']);
  });

  it('an epic with an in_progress child stays open', () => {
    const p = play({ beads: [bead({ id: 'hx-epic', issue_type: 'epic' }), bead({ id: 'hx-c1', parent: 'hx-epic', status: 'in_progress' }), bead({ id: 'hx-c2', parent: 'hx-epic', status: 'closed' })] });
    expect(p.of('closeEpic')).toEqual([]);
    expect(p.state.completed).toBe(0);
  });
});

describe('typed stops (docs/contract/cli.md §6.7)', () => {
  it('SYSTEMIC_FAILURE: three distinct beads failing with one category stop the run with exit 1', () => {
    const importError = failed('agent-failed', 'Error: Cannot find module "left-pad"');
    const p = play({
      beads: ['a', 'b', 'c', 'd'].map((n) => bead({ id: `hx-${n}` })),
      attempts: { 'hx-a': [importError, completed()], 'hx-b': [importError, completed()], 'hx-c': [importError] },
    });
    expect(p.state.stop).toEqual({ exitCode: 1, reason: 'systemic_failure' });
    expect(stopMessage(p)).toMatch(/^helix: stopping: SYSTEMIC_FAILURE: 3 beads failed with "import" \(hx-a, hx-b, hx-c\)/);
  });

  it('one bead failing three times for the same reason is not systemic', () => {
    const same = failed('agent-failed', 'TypeError: x is not a function');
    const p = play({ beads: [bead({ id: 'hx-a' })], attempts: { 'hx-a': [same, same, same, completed()] } });
    expect(p.state.stop?.reason).toBe('completed');
  });

  it('HELIX_SYSTEMIC_THRESHOLD changes how many distinct beads it takes', () => {
    const timeout = failed('agent-failed', 'agent timed out');
    const p = play({ beads: ['a', 'b'].map((n) => bead({ id: `hx-${n}` })), attempts: { 'hx-a': [timeout, completed()], 'hx-b': [timeout] } }, settings({ systemicThreshold: 2 }));
    expect(p.state.stop?.reason).toBe('systemic_failure');
  });

  it('VELOCITY_COLLAPSE: the latest of three completed cycles over 5× the first and over 60 s', () => {
    const p = play({
      beads: ['a', 'b', 'c', 'd'].map((n) => bead({ id: `hx-${n}` })),
      attempts: { 'hx-a': [completed(10)], 'hx-b': [completed(12)], 'hx-c': [completed(61)] },
    });
    expect(p.state.stop).toEqual({ exitCode: 1, reason: 'velocity_collapse' });
    expect(stopMessage(p)).toMatch(/^helix: stopping: VELOCITY_COLLAPSE: /);
    expect(p.of('attempt')).toHaveLength(3);
  });

  it('a slowdown over 2× and 30 s is only a warning', () => {
    const p = play({ beads: ['a', 'b', 'c'].map((n) => bead({ id: `hx-${n}` })), attempts: { 'hx-a': [completed(10)], 'hx-b': [completed(10)], 'hx-c': [completed(31)] } });
    expect(p.state.stop?.reason).toBe('completed');
    expect(p.lines.some((l) => l.startsWith('helix: warning: velocity dropping'))).toBe(true);
  });

  it('over 5× but not over 60 s is no collapse', () => {
    const p = play({ beads: ['a', 'b', 'c'].map((n) => bead({ id: `hx-${n}` })), attempts: { 'hx-a': [completed(2)], 'hx-b': [completed(2)], 'hx-c': [completed(59)] } });
    expect(p.state.stop?.reason).toBe('completed');
  });
});

describe('context refresh', () => {
  it('rewrites .helix/context.md at start and after every 5 completed cycles', () => {
    const p = play({ beads: Array.from({ length: 11 }, (_, i) => bead({ id: `hx-${i + 10}` })) });
    expect(p.state.completed).toBe(11);
    expect(p.of('writeContext')).toHaveLength(3);
  });
});

describe('start', () => {
  it('recovers orphans, writes the context, then reads the queue', () => {
    const first = step(initialState(), { type: 'started' }, settings());
    expect(first.effects).toEqual([{ type: 'recoverOrphans', why: 'start' }]);
    const second = step(first.state, { type: 'orphansRecovered', why: 'start', readyBefore: 0, readyAfter: 0 }, settings());
    expect(second.effects).toEqual([{ type: 'writeContext' }, { type: 'readQueue' }]);
  });
});

describe('SALVAGED', () => {
  it('counts as completed; the COMPLETE line keeps its exact contract shape and SALVAGED is said beside it', () => {
    const p = play({ beads: [bead({ id: 'hx-a' })], attempts: { 'hx-a': [{ kind: 'completed', salvaged: true }] } });
    expect(p.state).toMatchObject({ attempted: 1, completed: 1 });
    const complete = p.of('say').find((s) => s.text.includes('→ COMPLETE'));
    expect(complete).toMatchObject({ level: 'summary', stamped: true, text: 'cycle 1: hx-a → COMPLETE (1/1 done, 0 tokens)' });
    expect(p.of('say')).toContainEqual({ type: 'say', level: 'narrative', text: 'helix: hx-a SALVAGED: the agent failed but the bead is closed and verified' });
  });
});

describe('batch members (direct prompting claims related ready beads beside the primary)', () => {
  const member = (id: string, outcome: MemberOutcome) => ({ bead: bead({ id }), outcome });

  it('each completed member is a completed bead with its own COMPLETE line; the cycle stays one attempt', () => {
    const p = play({
      beads: [bead({ id: 'hx-p' }), bead({ id: 'hx-s1' }), bead({ id: 'hx-s2' })],
      attempts: { 'hx-p': [{ ...completed(1, 7), batch: [member('hx-s1', { kind: 'completed' }), member('hx-s2', { kind: 'completed' })] }] },
    }, settings({ autoAlign: false }));
    expect(p.of('attempt').map((a) => a.bead.id)).toEqual(['hx-p']);
    expect(p.state).toMatchObject({ attempted: 1, completed: 3, tokens: 7 });
    expect(p.lines.filter((l) => l.includes('→ COMPLETE'))).toEqual([
      'cycle 1: hx-p → COMPLETE (1/1 done, 7 tokens)',
      'cycle 1: hx-s1 → COMPLETE (2/1 done, 7 tokens)',
      'cycle 1: hx-s2 → COMPLETE (3/1 done, 7 tokens)',
    ]);
    // one cycle, one duration: velocity compares cycles, not beads
    expect(p.state.completedDurations).toEqual([1]);
  });

  it('--max-cycles counts completed members: a batch can reach it in one cycle', () => {
    const p = play({
      beads: [bead({ id: 'hx-p' }), bead({ id: 'hx-s1' }), bead({ id: 'hx-later' })],
      attempts: { 'hx-p': [{ ...completed(), batch: [member('hx-s1', { kind: 'completed' })] }] },
    }, settings({ maxCycles: 2 }));
    expect(p.of('attempt').map((a) => a.bead.id)).toEqual(['hx-p']);
    expect(p.state).toMatchObject({ attempted: 1, completed: 2 });
    expect(stopMessage(p)).toBe('helix: reached max cycles (2)');
  });

  it('a member the agent did not close is released work: no attempt, no failure, no skip, and it is picked later', () => {
    const p = play({
      beads: [bead({ id: 'hx-p' }), bead({ id: 'hx-s1' })],
      attempts: { 'hx-p': [{ ...completed(), batch: [member('hx-s1', { kind: 'released' })] }] },
    }, settings({ autoAlign: false }));
    expect(p.state.failures).toEqual({});
    expect(p.state.skipped).toEqual([]);
    expect(p.lines).toContain('helix: batch member hx-s1 not closed this cycle; claim released, no attempt counted');
    expect(p.of('attempt').map((a) => a.bead.id)).toEqual(['hx-p', 'hx-s1']);
    expect(p.state).toMatchObject({ attempted: 2, completed: 2 });
  });

  it('a drifted member is skipped with the drift reason and line, like a drifted primary', () => {
    const p = play({
      beads: [bead({ id: 'hx-p' }), bead({ id: 'hx-s1' })],
      attempts: { 'hx-p': [{ ...completed(), batch: [member('hx-s1', { kind: 'drift', changes: ['spec-id'] })] }] },
    }, settings({ autoAlign: false }));
    expect(p.state.skipped).toEqual([{ id: 'hx-s1', title: 'bead hx-s1', reason: DRIFT_REASON }]);
    expect(p.lines).toContain('helix: queue drift detected for hx-s1; refusing stale completion');
    expect(p.of('attempt').map((a) => a.bead.id)).toEqual(['hx-p']);
    expect(p.state.completed).toBe(1);
  });

  it('a member closed but failing verification is a failed attempt on it: no backoff sleep, no systemic count, blocked after 4', () => {
    const failedMember = member('hx-s1', { kind: 'failed', detail: 'verification failed: npm test exited 1: 3 tests failed' });
    const primaries = ['hx-p1', 'hx-p2', 'hx-p3', 'hx-p4'];
    const p = play({
      beads: [...primaries.map((id) => bead({ id })), bead({ id: 'hx-s1' })],
      attempts: Object.fromEntries(primaries.map((id) => [id, [{ ...completed(), batch: [failedMember] }]])),
    }, settings({ autoAlign: false, systemicThreshold: 2 }));
    expect(p.of('sleep')).toEqual([]);
    expect(p.state.failureCategories).toEqual({});
    expect(p.lines.filter((l) => l.startsWith('helix: batch member hx-s1 attempt'))).toHaveLength(4);
    expect(p.lines).toContain('BLOCKED hx-s1 after 4 non-completing attempts');
    expect(p.lines).toContain('helix: blocking hx-s1 after 4 non-completing attempts');
    expect(p.of('markBlocked')).toEqual([{ type: 'markBlocked', id: 'hx-s1', reason: 'failed to complete after 4 attempts with exponential backoff' }]);
    expect(p.state.skipped.map((s) => s.id)).toEqual(['hx-s1']);
    expect(p.state).toMatchObject({ attempted: 4, completed: 4 });
  });

  it('a non-completing primary with a completed member: said so, the member still counts, the primary backs off', () => {
    const p = play({
      beads: [bead({ id: 'hx-p' }), bead({ id: 'hx-s1' })],
      attempts: { 'hx-p': [{ ...failed('no-completion', 'agent exited 0 but the bead is still in_progress'), batch: [member('hx-s1', { kind: 'completed' })] }, completed()] },
    }, settings({ autoAlign: false }));
    const firstCycle = p.lines.slice(0, p.lines.findIndex((l) => l.startsWith('helix: attempt 2 for hx-p (backoff 5s)')));
    expect(firstCycle.filter((l) => l.startsWith('cycle 1') || l.includes('did not complete'))).toEqual([
      'helix: cycle 1 did not complete a tracked issue; completed cycles remain 1',
      'cycle 1: FAILED (hx-p attempt 1): agent exited 0 but the bead is still in_progress',
      'cycle 1: hx-s1 → COMPLETE (1/1 done, 0 tokens)',
    ]);
    expect(p.of('sleep')).toHaveLength(1);
    expect(p.state).toMatchObject({ attempted: 2, completed: 2 });
    expect(p.state.failures).toEqual({ 'hx-p': { count: 1, last: 'no-completion', detail: 'agent exited 0 but the bead is still in_progress' } });
  });

  it('periodic alignment and context refresh come due when a batch jumps over the multiple', () => {
    const twoMembers = [member('hx-s1', { kind: 'completed' }), member('hx-s2', { kind: 'completed' })];
    const p = play({
      beads: [bead({ id: 'hx-p' }), bead({ id: 'hx-s1' }), bead({ id: 'hx-s2' }), bead({ id: 'hx-q' })],
      attempts: { 'hx-p': [{ ...completed(), batch: twoMembers }] },
    }, settings({ reviewEvery: 2, autoAlign: false }));
    // 0 → 3 passes 2; 3 → 4 reaches 4: two periodic passes, as with one bead per cycle
    expect(p.of('runAction').map((a) => a.purpose)).toEqual(['periodic', 'periodic']);

    const refresh = play({
      beads: ['a', 'b', 'c', 'd', 'p', 's1', 's2'].map((n) => bead({ id: `hx-${n}` })),
      attempts: { 'hx-a': [completed()], 'hx-b': [completed()], 'hx-c': [completed()], 'hx-d': [completed()], 'hx-p': [{ ...completed(), batch: [member('hx-s1', { kind: 'completed' }), member('hx-s2', { kind: 'completed' })] }] },
    }, settings({ autoAlign: false }));
    expect(refresh.state.completed).toBe(7);
    // start + 4 → 7 crossing 5
    expect(refresh.of('writeContext')).toHaveLength(2);
  });

  it('a drifted primary whose member completed goes through completion accounting (max cycles)', () => {
    const p = play({
      beads: [bead({ id: 'hx-p' }), bead({ id: 'hx-s1' }), bead({ id: 'hx-later' })],
      attempts: { 'hx-p': [{ kind: 'drift', changes: ['parent'], batch: [member('hx-s1', { kind: 'completed' })] }] },
    }, settings({ maxCycles: 1 }));
    expect(p.state).toMatchObject({ attempted: 1, completed: 1 });
    expect(p.state.skipped.map((s) => s.id)).toEqual(['hx-p']);
    expect(stopMessage(p)).toBe('helix: reached max cycles (1)');
  });
});

describe('decided in the core, not in the runner', () => {
  it('an interrupt during an attempt counts that attempt; one between attempts counts nothing', () => {
    const during = step(initialState(), { type: 'interrupted', attemptInFlight: true, exitCode: 130 }, settings());
    expect(during.state).toMatchObject({ attempted: 1, completed: 0, stop: { exitCode: 130, reason: 'stopped' } });
    expect(during.effects).toEqual([]);
    const between = step(initialState(), { type: 'interrupted', attemptInFlight: false, exitCode: 143 }, settings());
    expect(between.state).toMatchObject({ attempted: 0, stop: { exitCode: 143, reason: 'stopped' } });
  });

  it('an epic the tracker would not close is passed over in this pass and the queue is read again', () => {
    const next = step(initialState(), { type: 'epicCloseFailed', epicId: 'hx-epic' }, settings());
    expect(next.state.passedOver).toEqual(['hx-epic']);
    expect(next.state.completed).toBe(0);
    expect(next.effects.map((e) => (e.type === 'say' ? e.text : e.type))).toEqual(['helix: skipping hx-epic this pass: epic could not be closed', 'readQueue']);
  });

  it('the post-epic review is scoped to the epic’s spec-id, else to the last commit', () => {
    const config = settings({ autoReview: true });
    const review = (epic: Bead) => step(initialState(), { type: 'epicClosed', epic }, config).effects.find((e) => e.type === 'runReview');
    expect(review(bead({ id: 'hx-e', status: 'closed', 'spec-id': 'FEAT-3' }))).toMatchObject({ kind: 'post-epic', scope: 'FEAT-3', beadId: 'hx-e' });
    expect(review(bead({ id: 'hx-e', status: 'closed' }))).toMatchObject({ kind: 'post-epic', scope: 'last-commit' });
    expect(review(bead({ id: 'hx-e', status: 'closed', 'spec-id': '' }))).toMatchObject({ scope: 'last-commit' });
  });

  it('a step that asks for two next events is refused with a clear internal error', () => {
    expect(() => assertOneNextEvent({ type: 'started' }, [{ type: 'readQueue' }, { type: 'runCheck' }])).toThrow(
      "helix internal error: the step on 'started' asked for 2 event-producing effects (readQueue, runCheck); at most one is allowed",
    );
    expect(() => assertOneNextEvent({ type: 'started' }, [{ type: 'writeContext' }, { type: 'sleep', seconds: 1 }, { type: 'readQueue' }])).not.toThrow();
  });
});

describe('routing details (state machine)', () => {
  it('ALIGN auto-aligns once per build interval: again after a build, not twice without one', () => {
    const config = settings();
    const aligned = (state: ReturnType<typeof initialState>) => step(step(state, { type: 'checked', nextAction: 'ALIGN', ok: true }, config).state, { type: 'actionDone', action: 'align', purpose: 'drain', ok: true }, config);
    const first = aligned(initialState());
    expect(first.effects).toEqual([{ type: 'runCheck' }]);
    // ALIGN again with no build between: stop
    expect(step(first.state, { type: 'checked', nextAction: 'ALIGN', ok: true }, config).effects).toEqual([
      { type: 'stop', exitCode: 0, reason: 'completed', message: 'helix: stopping after check returned ALIGN' },
    ]);
    // a build attempt (even a failed one) starts a new interval: ALIGN aligns again
    const built = step(first.state, { type: 'attempted', bead: bead({ id: 'hx-b' }), outcome: { kind: 'failed', failure: 'agent-failed', detail: 'x' }, durationSec: 1, tokens: 0 }, config);
    expect(step(built.state, { type: 'checked', nextAction: 'ALIGN', ok: true }, config).effects).toEqual([
      { type: 'say', level: 'narrative', text: 'helix: queue drained, running alignment' },
      { type: 'runAction', action: 'align', purpose: 'drain' },
    ]);
    // a failed align does not count as aligned, and stops the run
    const failed = step(step(initialState(), { type: 'checked', nextAction: 'ALIGN', ok: true }, config).state, { type: 'actionDone', action: 'align', purpose: 'drain', ok: false, detail: 'codex exited 1' }, config);
    expect(failed.state.alignedSinceBuild).toBe(false);
    expect(failed.state.stop).toEqual({ exitCode: 1, reason: 'error' });
  });

  it('STOP does not align a second time after an ALIGN pass in the same interval', () => {
    const p = play({ beads: [bead({ id: 'hx-s' })], checks: ['ALIGN', 'STOP'] }, settings());
    expect(p.of('runAction').map((a) => `${a.action}:${a.purpose}`)).toEqual(['align:drain']);
    expect(p.of('stop')[0]?.message).toBe('helix: stopping after check returned STOP');
  });

  it('the post-implementation review names the reviewed bead; the post-epic review names the epic and its scope', () => {
    const config = settings({ autoReview: true });
    const task = bead({ id: 'hx-c', parent: 'hx-e' });
    const big = step(initialState(), { type: 'attempted', bead: task, outcome: { kind: 'completed', salvaged: false, change: { scope: 'commit:abc', lines: 500, files: 1 } }, durationSec: 1, tokens: 0 }, config);
    expect(big.effects.filter((e) => e.type === 'runReview')).toEqual([{ type: 'runReview', kind: 'post-implementation', scope: 'commit:abc', cycle: 1, beadId: 'hx-c' }]);
    const small = step(initialState(), { type: 'attempted', bead: task, outcome: { kind: 'completed', salvaged: false, change: { scope: 'last-commit', lines: 99, files: 2 } }, durationSec: 1, tokens: 0 }, config);
    expect(small.effects.some((e) => e.type === 'runReview')).toBe(false);
    const epic = step(big.state, { type: 'epicClosed', epic: bead({ id: 'hx-e', issue_type: 'epic', status: 'closed', 'spec-id': 'SPEC-9' }) }, config);
    expect(epic.effects.filter((e) => e.type === 'runReview')).toEqual([{ type: 'runReview', kind: 'post-epic', scope: 'SPEC-9', cycle: 1, beadId: 'hx-e' }]);
  });

});

// ── the overnight decisions (issue 24): limits, budgets, parks ──

const overnightBead = bead({ id: 'hx-000000aa', title: 'A' });
const at = Date.parse('2026-11-26T20:00:00Z');
const limit = (over: Partial<UsageLimit> = {}): UsageLimit => ({ agent: 'codex', kind: 'rate', resetsAt: at + 30_000, detail: 'rate limit exceeded', ...over });

describe('a build that ended on a limit', () => {
  it('waits until the reset (+ the margin), says the resume time, then reads the queue; no attempt, no failure', () => {
    const s = step(initialState(), { type: 'limited', bead: overnightBead, limit: limit(), at, tokens: 5 }, settings());
    expect(s.effects.map((e) => e.type)).toEqual(['say', 'record', 'sleep', 'say', 'record', 'readQueue']);
    expect(s.effects[0]).toMatchObject({ level: 'always', text: 'codex rate limit on hx-000000aa (not counted as an attempt; claim released): waiting until 2026-11-26T20:01:30.000Z — rate limit exceeded' });
    expect(s.effects[2]).toEqual({ type: 'sleep', seconds: 90 });
    expect(s.state).toMatchObject({ attempted: 0, failures: {}, skipped: [], limitStreak: { waits: 1, waitedMs: 90_000 }, tokens: 5 });
  });

  it('a drain action or review on a limit is asked for again after the wait, not the queue', () => {
    const again = { type: 'runReview' as const, kind: 'post-implementation' as const, scope: 'commit:abc', cycle: 1, beadId: 'hx-000000aa' };
    const s = step(initialState(), { type: 'limited', limit: limit(), at, again }, settings());
    expect(s.effects.at(-1)).toEqual(again);
    expect(s.effects[0]).toMatchObject({ text: expect.stringContaining('limit on the post-implementation review of hx-000000aa (run again after the wait)') });
  });

  it('past --max-wait: stops with reason limit and exit 20', () => {
    const s = step(initialState(), { type: 'limited', bead: overnightBead, limit: limit({ resetsAt: at + 3 * 3_600_000 }), at }, settings({ maxWaitMs: 3_600_000 }));
    expect(s.state.stop).toEqual({ exitCode: 20, reason: 'limit' });
    expect(s.effects.at(-1)).toMatchObject({ type: 'stop', exitCode: 20, reason: 'limit' });
  });

  it('the streak resets once a build gets through', () => {
    const waited = step(initialState(), { type: 'limited', bead: overnightBead, limit: limit(), at }, settings()).state;
    const after = step(waited, { type: 'attempted', bead: overnightBead, outcome: { kind: 'completed', salvaged: false }, durationSec: 1, tokens: 0 }, settings()).state;
    expect(after.limitStreak).toEqual({ waits: 0, waitedMs: 0 });
  });
});

describe('budgets', () => {
  const queue = (state: MachineState, elapsedMs = 0) => step(state, { type: 'queue', ready: [overnightBead], beads: [overnightBead], elapsedMs }, settings({ budget: { maxTokens: 100, maxDurationMs: 60_000 } }));

  it('the caps are checked at the queue read between attempts: exit 21, reason budget, what was spent', () => {
    const spent = step(initialState(), { type: 'attempted', bead: overnightBead, outcome: { kind: 'completed', salvaged: false }, durationSec: 1, tokens: 150 }, settings()).state;
    expect(queue(initialState()).effects.map((e) => e.type)).toContain('attempt');
    expect(queue(spent).state.stop).toEqual({ exitCode: 21, reason: 'budget' });
    expect(queue(spent).effects.at(-1)).toMatchObject({ message: 'helix: stopping: BUDGET: --max-tokens 100 reached: $0.00 spent (+ 1 agent call of unknown cost), 150 tokens' });
    expect(queue(initialState(), 60_000).state.stop).toEqual({ exitCode: 21, reason: 'budget' });
  });

  it('a budget:<USD> label skips its bead once its spend reaches it, without the backoff', () => {
    const labelled = bead({ id: 'hx-000000bb', title: 'B', labels: ['budget:0.5'] });
    const failed = { kind: 'failed' as const, failure: 'agent-failed' as const, detail: 'boom' };
    const once = step(initialState(), { type: 'attempted', bead: labelled, outcome: failed, durationSec: 1, tokens: 0, costUsd: 0.3 }, settings());
    expect(once.effects.map((e) => e.type)).toContain('sleep');
    const twice = step(once.state, { type: 'attempted', bead: labelled, outcome: failed, durationSec: 1, tokens: 0, costUsd: 0.3 }, settings());
    expect(twice.state.skipped).toEqual([{ id: 'hx-000000bb', title: 'B', reason: 'budget:0.5 reached: $0.60 spent, 0 tokens' }]);
    expect(twice.effects.map((e) => e.type)).not.toContain('sleep');
    expect(twice.effects).toContainEqual({ type: 'markBlocked', id: 'hx-000000bb', reason: 'budget:0.5 reached: $0.60 spent, 0 tokens' });
  });
});

describe('parking', () => {
  it('the fourth failed attempt parks the bead beside blocking it', () => {
    let state = initialState();
    let effects: ReturnType<typeof step>['effects'] = [];
    for (let i = 0; i < 4; i++) ({ state, effects } = step(state, { type: 'attempted', bead: overnightBead, outcome: { kind: 'failed', failure: 'agent-failed', detail: 'boom' }, durationSec: 1, tokens: 0 }, settings()));
    expect(effects).toContainEqual({ type: 'park', id: 'hx-000000aa', attempts: 4 });
  });
});
