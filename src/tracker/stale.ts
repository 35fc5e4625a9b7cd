// The stale-claim rule (docs/contract/cli.md §7), shared by `tracker doctor` and the supervisor's orphan
// recovery: an in_progress bead claimed by helix whose claimer is gone on this machine and whose
// claim is older than HELIX_ORPHAN_THRESHOLD. A claim from another host is never judged here.
// "Gone" is more than a dead pid (issue #12 item 6): a pid now used by another process (its
// start time differs from the one the claim recorded) is gone too, and where the start time
// cannot be checked, a claim whose heartbeat is older than the threshold has lapsed.
// The threshold covers what cannot be seen: an agent the claimer started that may still be
// working. Where it can be seen — the claim recorded its process's start time, so the claimer's
// calls can be found by their tag (`callsGone`, the supervisor's scan of HELIX_CALL_ID) — a claim
// whose claimer is dead or reused and of whose calls no process is left is stale at once
// (issue 31: a crashed run stranded its bead for two hours).
import { type Bead, claimedPidOf, labelsOf, timeOf } from './bead.js';
import { claimerAlive, heartbeatAgeMs, processStartOf } from './liveness.js';
import { isPidAlive, thisMachine } from './process.js';
import { numberFromEnv } from '../numbers.js';

/** Two hours: long enough that a slow agent call is never mistaken for a crash. */
export const DEFAULT_ORPHAN_THRESHOLD_SEC = 7200;

/** A century: any longer threshold means the same, never. */
export const MAX_ORPHAN_THRESHOLD_SEC = 100 * 365 * 24 * 3600;

/** HELIX_ORPHAN_THRESHOLD: whole seconds from 0 to a century; unset → 7200; anything else: exit 7. */
export function orphanThresholdSec(env: NodeJS.ProcessEnv = process.env): number {
  return numberFromEnv(env, 'HELIX_ORPHAN_THRESHOLD', { min: 0, max: MAX_ORPHAN_THRESHOLD_SEC }, DEFAULT_ORPHAN_THRESHOLD_SEC);
}

/** A claim dated further ahead than this is not clock skew but damage (or a clock that jumped). */
export const FUTURE_CLAIM_SKEW_SEC = 300;

export interface StaleClaim {
  id: string;
  ageSec: number;
  /** Stale at once, whatever its age: its claimer is gone and no process of its calls is left. */
  instant?: true;
  /** Seconds the claim's date lies in the future, when it does (past FUTURE_CLAIM_SKEW_SEC). */
  aheadSec?: number;
  pid: number | undefined;
  /** Why the claimer counts as gone: `dead`, `reused` (same pid, another process) or `lapsed` (no heartbeat). */
  why: 'dead' | 'reused' | 'lapsed';
}

export interface StaleClaimFacts {
  now: Date;
  thresholdSec: number;
  isAlive?: (pid: number) => boolean;
  machine?: string;
  /** Process start time of a pid (default: /proc); undefined when it cannot be read. */
  startOf?: (pid: number) => string | undefined;
  /**
   * Whether no process of the calls made by the process `pid` started at `start` is left (the
   * supervisor scans for their tag); without it every claim waits out the threshold.
   */
  callsGone?: (pid: number, start: string) => boolean;
}

export function isHelixClaim(bead: Bead): boolean {
  return bead.owner === 'helix' || bead.assignee === 'helix' || labelsOf(bead).includes('helix');
}

/** Why the claimer of this bead is gone, or undefined while it must be taken as alive. */
export function claimerGone(bead: Bead, facts: StaleClaimFacts): StaleClaim['why'] | undefined {
  const isAlive = facts.isAlive ?? isPidAlive;
  const startOf = facts.startOf ?? processStartOf;
  const pid = claimedPidOf(bead);
  if (pid === undefined || !isAlive(pid)) return 'dead';
  if (!claimerAlive(bead, { isAlive, startOf })) return 'reused';
  const recorded = bead['claimed-pid-start'];
  const verified = typeof recorded === 'string' && recorded !== '' && startOf(pid) !== undefined;
  if (verified) return undefined;
  const heartbeat = heartbeatAgeMs(bead, facts.now);
  return heartbeat !== undefined && heartbeat >= facts.thresholdSec * 1000 ? 'lapsed' : undefined;
}

/** The stale claim for this bead, or undefined when it must be left alone. */
export function staleClaimOf(bead: Bead, facts: StaleClaimFacts): StaleClaim | undefined {
  if (bead.status !== 'in_progress' || !isHelixClaim(bead)) return undefined;
  const machine = bead['claimed-machine'];
  if (typeof machine === 'string' && machine && machine !== (facts.machine ?? thisMachine())) return undefined;
  const why = claimerGone(bead, facts);
  if (!why) return undefined;
  const aheadSec = claimAheadSec(bead, facts.now);
  const claimedAt = timeOf(bead['claimed-at']) ?? timeOf(bead.updated_at);
  // a claim dated in the future has no age to wait out: its date says nothing, as a missing one
  const ageSec = claimedAt === undefined || aheadSec !== undefined ? Number.POSITIVE_INFINITY : Math.floor((facts.now.getTime() - claimedAt) / 1000);
  const instant = why !== 'lapsed' && nothingLeftOf(bead, facts);
  if (ageSec < facts.thresholdSec && !instant) return undefined;
  return { id: bead.id, ageSec, pid: claimedPidOf(bead), why, ...(aheadSec !== undefined ? { aheadSec } : {}), ...(instant && ageSec < facts.thresholdSec ? { instant: true as const } : {}) };
}

/**
 * Whether nothing of a gone claimer is left: its claim recorded its process's start time, and no
 * process of the calls that process made runs (facts.callsGone). False when that cannot be told.
 */
export function nothingLeftOf(bead: Bead, facts: Pick<StaleClaimFacts, 'callsGone'>): boolean {
  const pid = claimedPidOf(bead);
  const start = bead['claimed-pid-start'];
  if (!facts.callsGone || pid === undefined || typeof start !== 'string' || start === '') return false;
  return facts.callsGone(pid, start);
}

/** How far in the future an in_progress bead's claim is dated, past the skew allowed; else undefined. */
export function claimAheadSec(bead: Bead, now: Date): number | undefined {
  if (bead.status !== 'in_progress') return undefined;
  const claimedAt = timeOf(bead['claimed-at']) ?? timeOf(bead.updated_at);
  if (claimedAt === undefined) return undefined;
  const ahead = Math.floor((claimedAt - now.getTime()) / 1000);
  return ahead > FUTURE_CLAIM_SKEW_SEC ? ahead : undefined;
}

export function staleClaims(beads: Bead[], facts: StaleClaimFacts): StaleClaim[] {
  return beads.flatMap((bead) => {
    const stale = staleClaimOf(bead, facts);
    return stale ? [stale] : [];
  });
}
