// Readiness (contract §5): ready = open and every blocking dependency closed (an unknown
// dependency never counts as closed); blocked = open with an unclosed dependency.
// `execution` readiness also drops beads the supervisor must not build.
import { type Bead, blockingDependencyIds, priorityOf, timeOf } from './bead.js';

export interface ReadyOptions {
  /** Also exclude `execution-eligible: false`, superseded beads and future retry-after times. */
  execution?: boolean;
  now?: Date;
}

function dependenciesClosed(bead: Bead, byId: Map<string, Bead>): boolean {
  return blockingDependencyIds(bead).every((id) => byId.get(id)?.status === 'closed');
}

export function isExecutionEligible(bead: Bead, now: Date = new Date()): boolean {
  if (bead['execution-eligible'] === false || bead['execution-eligible'] === 'false') return false;
  const superseded = bead['superseded-by'];
  if (typeof superseded === 'string' ? superseded.trim() !== '' : superseded != null && superseded !== false) return false;
  const retryAfter = timeOf(bead['execute-loop-retry-after']);
  return retryAfter === undefined || retryAfter <= now.getTime();
}

/** Priority ascending, then created_at, then id: the order every ready list uses. */
export function compareReadyOrder(a: Bead, b: Bead): number {
  const byPriority = priorityOf(a) - priorityOf(b);
  if (byPriority !== 0) return byPriority;
  const ta = timeOf(a.created_at) ?? Number.POSITIVE_INFINITY;
  const tb = timeOf(b.created_at) ?? Number.POSITIVE_INFINITY;
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export function readyBeads(beads: Bead[], options: ReadyOptions = {}): Bead[] {
  const byId = new Map(beads.map((b) => [b.id, b]));
  const now = options.now ?? new Date();
  return beads
    .filter((b) => b.status === 'open' && dependenciesClosed(b, byId) && (!options.execution || isExecutionEligible(b, now)))
    .sort(compareReadyOrder);
}

export function blockedBeads(beads: Bead[]): Bead[] {
  const byId = new Map(beads.map((b) => [b.id, b]));
  return beads.filter((b) => b.status === 'open' && !dependenciesClosed(b, byId)).sort(compareReadyOrder);
}

export interface StatusCounts {
  total: number;
  open: number;
  in_progress: number;
  closed: number;
  ready: number;
  blocked: number;
}

export function statusCounts(beads: Bead[]): StatusCounts {
  const count = (status: string) => beads.filter((b) => b.status === status).length;
  return {
    total: beads.length,
    open: count('open'),
    in_progress: count('in_progress'),
    closed: count('closed'),
    ready: readyBeads(beads).length,
    blocked: blockedBeads(beads).length,
  };
}
