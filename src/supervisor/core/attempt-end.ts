// How an attempt ended, as the event log says it (`attempt_end`, docs/events.md): the one outcome
// a board, `helix status` and `helix report` draw an attempt with, read off the event the attempt
// hands the machine.
import type { Event } from './machine-types.js';
import type { AttemptEndOutcome, EventBody } from './run-events.js';
import { reasonLine } from '../text/lines.js';

type AttemptEnd = Extract<EventBody, { type: 'attempt_end' }>;

/** What the attempt was, beside its event: the bead and attempt number it claimed, its build's log block. */
export interface AttemptFacts {
  bead: string;
  attempt: number;
  seconds: number;
  log?: { first: number; last: number };
}

/** The attempt's `attempt_end`; undefined when it claimed nothing (passed over). */
export function attemptEndOf(event: Event, facts: AttemptFacts): AttemptEnd | undefined {
  const ended = outcomeOf(event);
  if (!ended) return undefined;
  const spent = 'tokens' in event ? { tokens: event.tokens ?? 0, cost_usd: event.costUsd ?? null } : { tokens: 0, cost_usd: null };
  return {
    type: 'attempt_end',
    bead: facts.bead,
    attempt: facts.attempt,
    outcome: ended.outcome,
    reason: ended.reason === null ? null : reasonLine(ended.reason),
    seconds: Math.round(facts.seconds),
    ...spent,
    ...(ended.output && ended.output.length > 0 ? { output: ended.output } : {}),
    ...(facts.log ? { log: facts.log } : {}),
  };
}

/** The `attempt_end` of an attempt a signal (or a lost reader) cut short. */
export function stoppedAttemptEnd(facts: AttemptFacts, why: string): AttemptEnd {
  return { type: 'attempt_end', bead: facts.bead, attempt: facts.attempt, outcome: 'stopped', reason: why, seconds: Math.round(facts.seconds), tokens: 0, cost_usd: null, ...(facts.log ? { log: facts.log } : {}) };
}

function outcomeOf(event: Event): { outcome: AttemptEndOutcome; reason: string | null; output?: string[] } | undefined {
  switch (event.type) {
    case 'limited':
      return { outcome: 'limit', reason: `${event.limit.agent} ${event.limit.kind} limit: ${event.limit.detail}` };
    case 'unavailable':
      return { outcome: 'infrastructure', reason: `${event.problem.what}: ${event.problem.detail}` };
    case 'attempted': {
      const outcome = event.outcome;
      if (outcome.kind === 'passed-over') return undefined;
      if (outcome.kind === 'completed') return { outcome: 'landed', reason: null };
      if (outcome.kind === 'drift') return { outcome: 'drift', reason: `the bead changed under the attempt: ${outcome.changes.join(', ')}` };
      return { outcome: outcome.refuted ? 'verification_failed' : 'failed', reason: outcome.detail, ...(outcome.output ? { output: outcome.output } : {}) };
    }
    default:
      return undefined;
  }
}
