// A night as its event log tells it, for the report's renderers (report-html.test.ts, trace.test.ts):
// two slots, a landed bead, a bead whose verification failed and then landed, a bead given up with
// a limit in between, an infrastructure wait, memories, a blocker — and a title, a reason and an
// output line that try to inject HTML.
import { nightOf } from '../../../src/supervisor/core/night.js';
import type { EventBody, HelixEvent } from '../../../src/supervisor/core/run-events.js';

export const T0 = Date.parse('2026-12-01T22:00:00Z');

/** Events at T0 + seconds, in order. */
export const log = (...items: Array<[number, EventBody]>): HelixEvent[] => items.map(([s, body]) => ({ v: 1, t: new Date(T0 + s * 1000).toISOString(), run: 'helix-20261201-220000', ...body }) as HelixEvent);

export const HOSTILE_TITLE = '<script>alert(1)</script> & "quotes"';
export const HOSTILE_REASON = '"><img src=x onerror=alert(2)>';
export const HOSTILE_OUTPUT = '</pre><iframe src="file:///etc/passwd">';

const ended = (bead: string, attempt: number, slot: number, outcome: 'landed' | 'verification_failed' | 'failed' | 'limit', seconds: number, extra: Partial<Extract<EventBody, { type: 'attempt_end' }>> = {}): EventBody => ({
  type: 'attempt_end', bead, attempt, slot, outcome, reason: outcome === 'landed' ? null : `${outcome} reason`, seconds, tokens: 1000 * attempt, cost_usd: 0.01 * attempt, ...extra,
});

export function sampleEvents(): HelixEvent[] {
  return log(
    [0, { type: 'run_start', pid: 4242, ready: 3, open: 3, agent: 'claude', root: '/home/me/project', jobs: 2 }],
    [1, { type: 'claim', bead: 'hx-a', attempt: 1, slot: 1, title: 'write a' }],
    [1, { type: 'memory_injected', bead: 'hx-a', names: ['mem-strict-mode', 'mem-unrelated'] }],
    [2, { type: 'claim', bead: 'hx-b', attempt: 1, slot: 2, title: HOSTILE_TITLE }],
    [5, { type: 'phase', bead: 'hx-a', phase: 'build' }],
    [40, { type: 'phase', bead: 'hx-a', phase: 'verify' }],
    [39, { type: 'agent_done', bead: 'hx-a', action: 'build', agent: 'claude', rc: 0, seconds: 34, tokens: 1000, cost_usd: 0.01 }],
    [60, ended('hx-a', 1, 1, 'landed', 59, { log: { first: 10, last: 19 } })],
    [60, { type: 'memory_credited', bead: 'hx-a', names: ['mem-strict-mode', 'mem-unrelated'], outcome: 'success', helped: ['mem-strict-mode'], failed: [], left_alone: ['mem-unrelated'] }],
    [90, ended('hx-b', 1, 2, 'verification_failed', 88, { reason: HOSTILE_REASON, output: ['not ok 2 - the answer', HOSTILE_OUTPUT], log: { first: 21, last: 30 } })],
    [91, { type: 'claim', bead: 'hx-c', attempt: 1, slot: 1, title: 'write c' }],
    [100, { type: 'limit', agent: 'claude', kind: 'usage', bead: 'hx-c', resets_at: null, resume_at: new Date(T0 + 400_000).toISOString(), detail: '5-hour limit reached' }],
    [100, ended('hx-c', 1, 1, 'limit', 9)],
    [400, { type: 'limit_resume', agent: 'claude', waited_seconds: 300 }],
    [401, { type: 'claim', bead: 'hx-b', attempt: 2, slot: 2 }],
    [402, { type: 'claim', bead: 'hx-c', attempt: 2, slot: 1 }],
    [420, { type: 'unavailable', cause: 'infrastructure', what: 'DDx', detail: 'index.lock exists', bead: 'hx-c', wait_seconds: 30 }],
    [420, ended('hx-c', 2, 1, 'failed', 18)],
    [480, ended('hx-b', 2, 2, 'landed', 79, { log: { first: 40, last: 52 } })],
    [481, { type: 'backoff', bead: 'hx-c', attempt: 3, seconds: 0, reason: 'failed reason', last: true }],
    [482, { type: 'blockers', beads: [{ id: 'hx-c', title: 'write c', reason: 'failed 2 times', last_failure: 'failed reason', output: [] }], report: '/home/me/project/.helix-logs/blockers.md' }],
    [483, { type: 'stop', reason: 'completed', exit: 0, detail: 'helix: stopping after check returned STOP', spent: { cost_usd: 0.06, tokens: 6000, unknown_cost_calls: 0 }, report_html: null }],
  );
}

export const sampleNight = () => nightOf(sampleEvents());
