// Orphan recovery (docs/contract/bash-interface.md §3, docs/contract/cli.md §7): at a run's start,
// after a failed attempt and on the BUILD breaker, every stale helix claim is released — each bead
// re-read under the lock just before (it may have closed or been claimed afresh meanwhile) — and
// the in-progress helix beads left alone are reported with why. What it finds is reported as it
// happens, as data; the supervisor words it (text/lines.ts ORPHANS).
import { type Bead, claimedPidOf, timeOf } from './bead.js';
import { type ReleasedOrphan, type UnsettledInjection, hasUnsettledInjections, releaseOrphan, takeUnsettledInjections } from './orphans.js';
import { isPidAlive, thisMachine } from './process.js';
import { type StaleClaim, type StaleClaimFacts, isHelixClaim, staleClaims } from './stale.js';
import type { BeadStore } from './bead-store.js';

/** What recovery finds, in the order it finds it. */
export type OrphanRecoveryEvent =
  | { kind: 'found'; count: number }
  /** Left alone: its claimer still runs on this machine. */
  | { kind: 'claimer-alive'; id: string; pid: number }
  /** Left alone: claimed `ageSec` ago, younger than the threshold. */
  | { kind: 'too-fresh'; id: string; ageSec: number; thresholdSec: number }
  /** Left alone: its claimer is gone, but a process of its calls still runs; the threshold applies. */
  | { kind: 'calls-alive'; id: string; pid: number; ageSec: number; thresholdSec: number }
  /**
   * Released: `why` its claimant is gone; `aheadSec` when the claim was dated in the future;
   * `instant` when it was younger than the threshold but nothing of its claimer was left.
   */
  | { kind: 'reclaimed'; id: string; ageSec: number; pid: number | undefined; why: StaleClaim['why']; aheadSec?: number; instant?: true }
  | { kind: 'recovered'; count: number };

/** A released orphan, with the memory names its interrupted attempt injected (taken off in the same write). */
export type RecoveredOrphan = UnsettledInjection;

/**
 * Unclaims every stale helix claim and reports each step to `report`. Returns what it recovered,
 * and the names `tracker doctor --fix` kept from claims it released (their feedback is owed too).
 * Another host's claim cannot be checked from here: it is left alone without a word.
 */
export function recoverOrphanedClaims(
  store: BeadStore,
  now: Date,
  thresholdSec: number,
  report: (event: OrphanRecoveryEvent) => void,
  callsGone?: StaleClaimFacts['callsGone'],
): RecoveredOrphan[] {
  const facts: StaleClaimFacts = { now, thresholdSec, ...(callsGone ? { callsGone } : {}) };
  const beads = store.read().beads;
  const unsettled = hasUnsettledInjections(beads) ? store.mutate(takeUnsettledInjections) : [];
  const inProgress = beads.filter((b) => b.status === 'in_progress' && isHelixClaim(b));
  if (inProgress.length === 0) return unsettled;
  report({ kind: 'found', count: inProgress.length });
  const staleIds = new Set(staleClaims(beads, facts).map((s) => s.id));
  for (const bead of inProgress.filter((b) => !staleIds.has(b.id))) reportLeftAlone(bead, facts, report);
  const recovered: RecoveredOrphan[] = [];
  for (const id of staleIds) {
    const released: ReleasedOrphan | undefined = store.mutate((d) => releaseOrphan(d, id, facts, 'now'));
    if (!released) continue;
    recovered.push({ bead: released.bead, injected: released.injected });
    const { stale } = released;
    const ageSec = Number.isFinite(stale.ageSec) ? stale.ageSec : 0;
    report({ kind: 'reclaimed', id: stale.id, ageSec, pid: stale.pid, why: stale.why, ...(stale.aheadSec !== undefined ? { aheadSec: stale.aheadSec } : {}), ...(stale.instant ? { instant: true as const } : {}) });
  }
  if (recovered.length > 0) report({ kind: 'recovered', count: recovered.length });
  return [...unsettled, ...recovered];
}

function reportLeftAlone(bead: Bead, facts: StaleClaimFacts, report: (event: OrphanRecoveryEvent) => void): void {
  const { now, thresholdSec } = facts;
  const pid = claimedPidOf(bead);
  const machine = bead['claimed-machine'];
  if (typeof machine === 'string' && machine && machine !== thisMachine()) return;
  if (pid !== undefined && isPidAlive(pid)) {
    report({ kind: 'claimer-alive', id: bead.id, pid });
    return;
  }
  const claimedAt = timeOf(bead['claimed-at']) ?? timeOf(bead.updated_at);
  if (claimedAt === undefined) return;
  const ageSec = Math.max(0, Math.floor((now.getTime() - claimedAt) / 1000));
  // the claimer is gone and the instant rule could judge it: something of its calls still runs
  const judged = facts.callsGone && pid !== undefined && typeof bead['claimed-pid-start'] === 'string' && bead['claimed-pid-start'] !== '';
  if (judged && pid !== undefined) report({ kind: 'calls-alive', id: bead.id, pid, ageSec, thresholdSec });
  else report({ kind: 'too-fresh', id: bead.id, ageSec, thresholdSec });
}
