// The small writes the run makes on a bead besides claiming and closing it: its notes (helix's
// block on `ddx try`, why an attempt failed), a reopen, the crash-recovery record of injected
// memories, the blocked mark. Each runs under the tracker lock; one that fails is said and the run
// goes on — none of them decides an outcome.
import { type Bead, INJECTED_KEY, releaseDeadDdxClaim, reopenBead } from '../../tracker/index.js';
import { parkCooldownMs } from '../core/policy.js';
import { ORPHANS, RUN, UPKEEP } from '../text/lines.js';
import { markBeadBlocked } from './blockers.js';
import { processTag } from './claimer-calls.js';
import { withNotesBlock, withoutNotesBlock } from '../text/ddx-notes.js';
import type { BeadStore } from '../../tracker/index.js';
import type { EventBody } from '../core/run-events.js';
import type { Say } from '../text/lines.js';

/** What a bead write needs of the run: the tracker, the clock, and a line to say when it fails. */
export interface BeadWrites {
  store: BeadStore;
  now(): Date;
  say(line: Say): void;
}

/** Rewrites a bead's notes under the lock (helix's block in or out, a note appended). */
export function editNotes(run: BeadWrites, id: string, edit: (notes: string) => string): void {
  try {
    run.store.mutate((d) => {
      const current = d.get(id);
      if (!current) return;
      const before = typeof current.notes === 'string' ? current.notes : '';
      const after = edit(before);
      if (after !== before) d.change(id, (b) => { b.notes = after; });
    });
  } catch (error) {
    run.say(UPKEEP.couldNotUpdateNotes(id, (error as Error).message));
  }
}

/** Reopens a bead that is closed — the agent closed it, but it was not completed (notes say why). */
export function reopen(run: BeadWrites, id: string, reason: string): void {
  try {
    if (run.store.read().byId.get(id)?.status === 'closed') run.store.mutate((d) => reopenBead(d, id, { reason, now: run.now() }));
  } catch (error) {
    run.say(UPKEEP.couldNotReopen(id, (error as Error).message));
  }
}

/**
 * The run whose `ddx try` works on a bead, by its process tag (claimer-calls.ts): on current DDx the
 * claim is DDx's, and DDx overwrites `.ddx/run-state.json` during the attempt, so the bead itself
 * says whose attempt it is. A run killed during the attempt leaves it; the next one's recovery
 * reads it (recovery.ts).
 */
export const TRY_RUN_KEY = 'helix-try-run';

/** Before `ddx try`: helix's notes block in, and the run's tag on the bead, in one write. */
export function startTryAttempt(run: BeadWrites, id: string, notes: string): void {
  const tag = processTag();
  try {
    run.store.mutate((d) => {
      const current = d.get(id);
      if (!current) return;
      d.change(id, (b) => {
        b.notes = withNotesBlock(typeof b.notes === 'string' ? b.notes : '', notes);
        if (tag) b[TRY_RUN_KEY] = tag;
      });
    });
  } catch (error) {
    run.say(UPKEEP.couldNotUpdateNotes(id, (error as Error).message));
  }
}

/**
 * After `ddx try`: the notes block out again. A `ddx try` that ended still holding the bead (in
 * progress under owner `ddx`: killed, or crashed) is gone, so its claim is released now as DDx's
 * Release does and the bead can go again in this run; a claim whose lease names a process that
 * still runs is left for the next run's recovery (recovery.ts). The run's tag stays until the
 * attempt is settled (clearTryRun): a run stopped or killed before that — DDx may have landed and
 * closed the bead, which helix has not verified after landing — leaves it for the next run.
 */
export function endTryAttempt(run: BeadWrites, id: string): void {
  try {
    const released = run.store.mutate((d) => {
      const current = d.get(id);
      if (!current) return false;
      const notes = typeof current.notes === 'string' ? current.notes : '';
      // only a lease that names a dead ddx: a ddx try still finishing (a stop) keeps its claim for the next run
      const freed = releaseDeadDdxClaim(d, id, run.store.leaseDir, undefined, { needLease: true });
      if (withoutNotesBlock(notes) !== notes) d.change(id, (b) => { b.notes = withoutNotesBlock(notes); });
      return freed;
    });
    if (released) run.say(ORPHANS.ddxTryClaimReleased(id, released.pid));
  } catch (error) {
    run.say(UPKEEP.couldNotUpdateNotes(id, (error as Error).message));
  }
}

/** The attempt is settled (verified, or judged without landing): the run's tag comes off the bead. */
export function clearTryRun(run: BeadWrites, id: string): void {
  try {
    run.store.mutate((d) => {
      if (d.get(id)?.[TRY_RUN_KEY] !== undefined) d.change(id, (b) => { delete b[TRY_RUN_KEY]; });
    });
  } catch (error) {
    run.say(UPKEEP.couldNotClear(TRY_RUN_KEY, id, (error as Error).message));
  }
}

/** Feedback was given (or can no longer be): drop the crash-recovery record so it is never applied twice. */
export function clearInjected(run: BeadWrites, id: string): void {
  try {
    run.store.mutate((d) => {
      if (d.get(id)?.[INJECTED_KEY] !== undefined) d.change(id, (b) => { delete b[INJECTED_KEY]; });
    });
  } catch (error) {
    run.say(UPKEEP.couldNotClear(INJECTED_KEY, id, (error as Error).message));
  }
}

/** Labels a skipped bead `helix` and `blocked` and notes why (docs/contract/bash-interface.md §12.2). */
export function markBlocked(run: BeadWrites, id: string, reason: string): void {
  try {
    run.store.mutate((d) => {
      if (d.get(id)) d.change(id, (b) => markBeadBlocked(b, reason, run.now()));
    });
  } catch (error) {
    run.say(UPKEEP.couldNotMarkBlocked(id, (error as Error).message));
  }
}

/** DDx's retry cool-down key, the one current DDx writes and reads (tracker/bead.ts RETRY_AFTER_KEYS). */
export const PARK_KEY = 'work-retry-after';
/** How many times helix parked the bead: each park's cool-down doubles (core/policy.ts parkCooldownMs). */
export const PARK_COUNT_KEY = 'helix-park-count';

/** Go's time.RFC3339 of a UTC time, as DDx writes `work-retry-after`: seconds, no fraction, `Z`. */
export const rfc3339 = (time: Date): string => time.toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * Parks a bead skipped as intractable: `work-retry-after` with a cool-down that grows with each
 * park, so neither the next `helix run` nor `ddx work` spends attempts on it until then.
 */
export function parkBead(run: BeadWrites & { event(body: EventBody): void }, id: string, attempts: number): void {
  try {
    let until: string | undefined;
    run.store.mutate((d) => {
      const bead = d.get(id);
      if (!bead) return;
      const previous = typeof bead[PARK_COUNT_KEY] === 'number' ? (bead[PARK_COUNT_KEY] as number) : 0;
      until = rfc3339(new Date(run.now().getTime() + parkCooldownMs(previous)));
      d.change(id, (b) => {
        b[PARK_KEY] = until;
        b[PARK_COUNT_KEY] = previous + 1;
      });
    });
    if (!until) return;
    run.say(RUN.parked(id, until));
    run.event({ type: 'park', bead: id, until, attempts });
  } catch (error) {
    run.say(RUN.couldNotPark(id, (error as Error).message));
  }
}

/** The keys DDx writes when it parks a bead after a failed `ddx try` (ae663ca012 Store.SetExecutionCooldown). */
const DDX_COOLDOWN_KEYS = [PARK_KEY, 'work-cooldown-base-rev', 'work-last-status', 'work-last-detail'] as const;

/**
 * Undoes the park DDx set on a failed attempt that was not the bead's fault (a limit, setup,
 * infrastructure): each cool-down key back to what it was before the attempt, and a
 * `cooldown-cleared` event, as DDx's own `ddx bead cooldown clear` records one. A park that was
 * there before the attempt stays.
 */
export function undoDdxPark(run: BeadWrites, id: string, before: Bead, why: string): void {
  try {
    run.store.mutate((d) => {
      const bead = d.get(id);
      if (!bead || bead[PARK_KEY] === before[PARK_KEY]) return;
      d.change(id, (b) => {
        for (const key of DDX_COOLDOWN_KEYS) {
          if (before[key] === undefined) delete b[key];
          else b[key] = before[key];
        }
        appendEvent(b, { kind: 'cooldown-cleared', summary: `helix: ${why}`, actor: 'helix', source: 'helix run', created_at: run.now().toISOString() });
      });
    });
  } catch (error) {
    run.say(UPKEEP.couldNotClear(PARK_KEY, id, (error as Error).message));
  }
}

/** Appends one event to a bead's `events` list (DDx's shape: kind, summary, body, actor, source, created_at). */
function appendEvent(bead: Bead, event: Record<string, string>): void {
  const events = Array.isArray(bead.events) ? bead.events : [];
  bead.events = [...events, event];
}
