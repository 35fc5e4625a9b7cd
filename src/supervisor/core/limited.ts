// A call that ended on a usage or rate limit (agents/usage-limit.ts): not an attempt of its bead,
// not a failed check or action. The run waits (limit-wait.ts decides how long) and asks for the
// same work again, or stops with reason `limit` (exit 20) when the wait would pass --max-wait.
import { EXIT } from '../../errors.js';
import type { Event, MachineState, Step } from './machine-types.js';
import { afterWait, limitWait } from './limit-wait.js';
import type { SupervisorSettings } from './policy.js';
import { line, stop } from './steps.js';
import { type LimitSubject, RUN } from '../text/lines.js';

/**
 * A build call that ended on a usage or rate limit: the bead's claim was released and nothing
 * counts against it. The run waits (core/limit-wait.ts decides how long) and reads the queue
 * again, or stops with reason `limit` when the wait would go past --max-wait.
 */
export function afterLimit(state: MachineState, event: Extract<Event, { type: 'limited' }>, settings: SupervisorSettings): Step {
  const { limit, at } = event;
  const decision = limitWait(limit, state.limitStreak, at, settings.maxWaitMs);
  const resetsAt = limit.resetsAt !== undefined ? new Date(limit.resetsAt).toISOString() : null;
  const base = { type: 'limit' as const, agent: limit.agent, kind: limit.kind, bead: event.bead?.id ?? null, resets_at: resetsAt, detail: limit.detail };
  if (decision.action === 'stop') {
    const stopped = stop(state, EXIT.limitWait, 'limit', RUN.limitStop(decision.line));
    return { state: stopped.state, effects: [{ type: 'record', event: { ...base, resume_at: null } }, ...stopped.effects] };
  }
  const resumeAt = new Date(decision.resumeAt).toISOString();
  const seconds = decision.ms / 1000;
  return {
    state: { ...state, limitStreak: afterWait(state.limitStreak, decision.ms), passedOver: [] },
    effects: [
      line(RUN.limitPause(limit.agent, limit.kind, limitSubject(event), resumeAt, limit.detail)),
      { type: 'record', event: { ...base, resume_at: resumeAt } },
      { type: 'sleep', seconds },
      { type: 'say', ...RUN.limitResume(limit.agent, seconds), afterPause: true },
      { type: 'record', event: { type: 'limit_resume', agent: limit.agent, waited_seconds: Math.round(seconds) } },
      event.again ?? { type: 'readQueue' },
    ],
  };
}

/** What the limit stopped: a build's bead, the drain check, or an action or review to run again. */
function limitSubject(event: Extract<Event, { type: 'limited' }>): LimitSubject {
  if (event.bead) return { bead: event.bead.id };
  const again = event.again;
  if (!again) return { check: true };
  return { again: again.type === 'runAction' ? `the ${again.action} action` : `the ${again.kind} review of ${again.beadId}` };
}
