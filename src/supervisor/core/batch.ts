// A cycle's batch members (related ready beads claimed beside the primary for one direct prompt),
// counted after the attempt, and the COMPLETE and drift lines a primary and its members share.
import type { Effect, MachineState, Step } from './machine-types.js';
import type { MemberVerdict } from './outcome.js';
import { DRIFT_REASON } from './judge.js';
import { MAX_ATTEMPTS } from './policy.js';
import { line } from './steps.js';
import { blockIntractable } from './failure.js';
import { RUN } from '../text/lines.js';

export const completeLine = (cycle: number, id: string, s: MachineState): Effect => line(RUN.completeSummary(cycle, id, s.completed, s.attempted, s.tokens));

export const driftLines = (id: string, changes: string[]): Effect[] =>
  changes.includes('removed') ? [line(RUN.driftVanished(id))] : [line(RUN.drift(id)), line(RUN.driftChanges(changes))];


/**
 * Counts a cycle's batch members: each completed member is a completed bead (its own COMPLETE
 * line, same cycle number); a drifted one is skipped like a drifted primary; a closed one that
 * failed verification is a failed attempt on it (blocked after MAX_ATTEMPTS, no backoff sleep: the
 * loop does not retry it next). It stays out of SYSTEMIC_FAILURE, which counts beads the loop
 * chose, and one shared verify run must not count as three distinct failures. A released member
 * counts nothing: it was optional work.
 */
export function settleMembers(state: MachineState, batch: MemberVerdict[], primaryId: string, cycle: number): Step {
  let next = state;
  const effects: Effect[] = [];
  for (const { bead, outcome } of batch) {
    switch (outcome.kind) {
      case 'completed':
        next = { ...next, completed: next.completed + 1 };
        effects.push(line(RUN.batchMemberClosed(bead.id, primaryId)), completeLine(cycle, bead.id, next));
        break;
      case 'released':
        effects.push(line(RUN.batchMemberReleased(bead.id)));
        break;
      case 'drift':
        next = { ...next, skipped: [...next.skipped, { id: bead.id, title: bead.title, reason: DRIFT_REASON }] };
        effects.push(...driftLines(bead.id, outcome.changes), line(RUN.skippingAfterDrift(bead.id)));
        break;
      case 'failed': {
        const count = (next.failures[bead.id]?.count ?? 0) + 1;
        next = { ...next, failures: { ...next.failures, [bead.id]: { count, last: 'no-completion' } } };
        effects.push(line(RUN.batchMemberFailed(bead.id, count, outcome.detail)));
        if (count >= MAX_ATTEMPTS) {
          const blocked = blockIntractable(next, bead, 'no-completion', count);
          next = blocked.state;
          effects.push(...blocked.effects);
        }
        break;
      }
    }
  }
  return { state: next, effects };
}
