// Readiness (contract §5): ready = open and every blocking dependency closed (an unknown
// dependency never counts as closed); blocked = open with an unclosed dependency.
// `execution` readiness also drops beads the supervisor must not build.
import { type Bead, blockingDependencyId, dependencyList, hasUnreadableDependencies, priorityOf, timeOf } from './bead.js';

export interface ReadyOptions {
  /** Also exclude `execution-eligible: false`, superseded beads and future retry-after times. */
  execution?: boolean;
  now?: Date;
}

function closedIds(beads: Bead[]): Set<string> {
  const closed = new Set<string>();
  for (const bead of beads) if (bead.status === 'closed') closed.add(bead.id);
  return closed;
}

/** Every blocking dependency closed; a `dependencies` value that is not a list never counts as closed. */
function dependenciesClosed(bead: Bead, closed: Set<string>): boolean {
  if (hasUnreadableDependencies(bead)) return false;
  // A plain loop: this runs for every open bead on every read, and allocating id lists showed up
  // in the profile of `ready` on large files.
  for (const dep of dependencyList(bead)) {
    const id = blockingDependencyId(dep);
    if (id !== undefined && !closed.has(id)) return false;
  }
  return true;
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

/**
 * Sorts in ready order. The sort keys are computed once per bead: parsing created_at inside the
 * comparator cost tens of milliseconds on a 10K-bead file.
 */
export function sortReadyOrder(beads: Bead[]): Bead[] {
  const keyed = beads.map((bead) => ({ bead, priority: priorityOf(bead), created: timeOf(bead.created_at) ?? Number.POSITIVE_INFINITY }));
  keyed.sort((a, b) => {
    if (a.priority !== b.priority) return a.priority - b.priority;
    if (a.created !== b.created) return a.created < b.created ? -1 : 1;
    return a.bead.id < b.bead.id ? -1 : a.bead.id > b.bead.id ? 1 : 0;
  });
  return keyed.map((k) => k.bead);
}

export function readyBeads(beads: Bead[], options: ReadyOptions = {}): Bead[] {
  const closed = closedIds(beads);
  const now = options.now ?? new Date();
  return sortReadyOrder(
    beads.filter((b) => b.status === 'open' && dependenciesClosed(b, closed) && (!options.execution || isExecutionEligible(b, now))),
  );
}

export function blockedBeads(beads: Bead[]): Bead[] {
  const closed = closedIds(beads);
  return sortReadyOrder(beads.filter((b) => b.status === 'open' && !dependenciesClosed(b, closed)));
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
