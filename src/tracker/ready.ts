// Readiness (docs/contract/cli.md §5), with DDx's rules: ready = open and every dependency closed, whatever
// its type (an unknown or lost dependency never counts as closed; DDx store.go readyFiltered uses
// DepIDs()); blocked = open with an unclosed dependency. `execution` readiness also drops what the
// supervisor must not build: epics (structural containers, as DDx's `ready --execution`),
// `execution-eligible: false`, superseded beads and a future retry time under either DDx key.
// Beads a live DDx worker lease holds (current DDx leaves them `open`) are never ready.
import { type Bead, RETRY_AFTER_KEYS, blockingDependencyId, dependencyList, hasUnreadableDependencies, issueTypeOf, priorityOf, timeOf } from './bead.js';

export interface ReadyOptions {
  /** Also exclude epics, `execution-eligible: false`, superseded beads and future retry-after times. */
  execution?: boolean;
  /**
   * As current DDx's `ddx bead ready` reads it (measured on ae663ca012: its plain list and
   * `--execution` are the same): no `execution-eligible: false`, nothing superseded, no future
   * `work-retry-after`, no epic with children (a container) — but a childless epic stays, and the
   * old `execute-loop-retry-after` is not read. (DDx also lists an `in_progress` bead whose lease
   * went stale, and lifts a cooldown once origin's HEAD moved: helix does not follow those.)
   */
  asCurrentDdx?: boolean;
  now?: Date;
  /** Ids held by someone else's live claim outside the file (DDx worker leases). */
  held?: ReadonlySet<string>;
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
    if (!closed.has(blockingDependencyId(dep))) return false;
  }
  return true;
}

/** The latest future retry time under either retry key, or undefined when none is pending. */
export function retryAfterOf(bead: Bead, now: Date = new Date()): { key: string; at: number } | undefined {
  let found: { key: string; at: number } | undefined;
  for (const key of RETRY_AFTER_KEYS) {
    const at = timeOf(bead[key]);
    if (at !== undefined && at > now.getTime() && (!found || at > found.at)) found = { key, at };
  }
  return found;
}

/**
 * Eligible by governance: not `execution-eligible: false`, not superseded. A retry time is not
 * governance — it is DDx's (or helix's) schedule — so the fingerprint reads this, not the next one.
 */
export function isEligibleByGovernance(bead: Bead): boolean {
  if (bead['execution-eligible'] === false || bead['execution-eligible'] === 'false') return false;
  const superseded = bead['superseded-by'];
  return !(typeof superseded === 'string' ? superseded.trim() !== '' : superseded != null && superseded !== false);
}

export function isExecutionEligible(bead: Bead, now: Date = new Date()): boolean {
  return isEligibleByGovernance(bead) && retryAfterOf(bead, now) === undefined;
}

const isEpic = (bead: Bead) => issueTypeOf(bead) === 'epic';

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

/**
 * What readiness needs of a bead that the file alone says is ready (open, every dependency closed)
 * to decide at read time: leases and the clock change between reads, the file does not. The ready
 * cache (src/cli/ready-cache.ts) keeps these per bead, so both paths decide with readyNow.
 */
export interface ReadyFacts {
  id: string;
  epic: boolean;
  /** Not `execution-eligible: false`, not superseded (isEligibleByGovernance). */
  eligible: boolean;
  /** The latest time under either retry key, past or future, in ms; absent when there is none. */
  retryAt?: number;
  /** The time under `work-retry-after` alone (current DDx reads no other). */
  workRetryAt?: number;
  /** An epic some bead names as its parent: a container current DDx does not list as ready. */
  container?: boolean;
}

/** The ids some bead names as its parent. */
export function parentIds(beads: Bead[]): Set<string> {
  const parents = new Set<string>();
  for (const bead of beads) if (typeof bead.parent === 'string' && bead.parent) parents.add(bead.parent);
  return parents;
}

export function readyFactsOf(bead: Bead, parents?: ReadonlySet<string>): ReadyFacts {
  const facts: ReadyFacts = { id: bead.id, epic: isEpic(bead), eligible: isEligibleByGovernance(bead) };
  if (facts.epic && parents?.has(bead.id)) facts.container = true;
  for (const key of RETRY_AFTER_KEYS) {
    const at = timeOf(bead[key]);
    if (at !== undefined && (facts.retryAt === undefined || at > facts.retryAt)) facts.retryAt = at;
  }
  const work = timeOf(bead['work-retry-after']);
  if (work !== undefined) facts.workRetryAt = work;
  return facts;
}

/** The read-time half of readiness: no live lease holds it; for execution, a buildable, unparked bead. */
export function readyNow(facts: ReadyFacts, options: ReadyOptions & { now: Date }): boolean {
  if (options.held?.has(facts.id)) return false;
  const future = (at: number | undefined) => at !== undefined && at > options.now.getTime();
  // a retry time in the future under either key parks it (retryAfterOf)
  if (options.execution) return !facts.epic && facts.eligible && !future(facts.retryAt);
  if (options.asCurrentDdx) return facts.eligible && !facts.container && !future(facts.workRetryAt);
  return true;
}

/** The file's half: open beads with every dependency closed, in ready order. */
export function readyByFile(beads: Bead[]): Bead[] {
  const closed = closedIds(beads);
  return sortReadyOrder(beads.filter((b) => b.status === 'open' && dependenciesClosed(b, closed)));
}

export function readyBeads(beads: Bead[], options: ReadyOptions = {}): Bead[] {
  const decide = { ...options, now: options.now ?? new Date() };
  const parents = options.asCurrentDdx ? parentIds(beads) : undefined;
  return readyByFile(beads).filter((b) => readyNow(readyFactsOf(b, parents), decide));
}

/**
 * Open epics whose dependencies are closed, in ready order. Epics are not execution work, but the
 * supervisor still looks at them to focus one and work its children (docs/contract/cli.md §6.2).
 */
export function readyEpics(beads: Bead[], options: Omit<ReadyOptions, 'execution'> = {}): Bead[] {
  const closed = closedIds(beads);
  const now = options.now ?? new Date();
  return sortReadyOrder(
    beads.filter((b) => b.status === 'open' && isEpic(b) && !options.held?.has(b.id) && dependenciesClosed(b, closed) && isExecutionEligible(b, now)),
  );
}

/** DDx's `blocker` object in `ddx bead blocked --json` (types.go Blocker). */
export interface Blocker {
  kind: 'dependency' | 'retry-cooldown' | 'blocked-status';
  next_eligible_at?: string;
  unclosed_dep_ids?: string[];
  last_status?: string;
  last_detail?: string;
  reason?: string;
}

const stringField = (bead: Bead, ...keys: string[]): string | undefined => {
  for (const key of keys) {
    const value = bead[key];
    if (typeof value === 'string' && value) return value;
  }
  return undefined;
};

/**
 * What `blocked` lists, as DDx v0.6.1's BlockedAll does (store.go): open beads waiting on an
 * unclosed dependency first in rank, then open beads parked by a retry cool-down, each with its
 * `blocker`; a bead in DDx's `blocked` status (current DDx) is listed with its external reason.
 */
export function blockedEntries(beads: Bead[], now: Date = new Date()): Array<{ bead: Bead; blocker: Blocker }> {
  const closed = closedIds(beads);
  const entries: Array<{ bead: Bead; blocker: Blocker }> = [];
  for (const bead of sortReadyOrder(beads)) {
    if (bead.status === 'blocked') {
      entries.push({ bead, blocker: { kind: 'blocked-status', reason: stringField(bead, 'lifecycle-external-blocker-reason') ?? '' } });
      continue;
    }
    if (bead.status !== 'open') continue;
    if (!dependenciesClosed(bead, closed)) {
      const unclosed = hasUnreadableDependencies(bead) ? [] : dependencyList(bead).map(blockingDependencyId).filter((id) => !closed.has(id));
      entries.push({ bead, blocker: { kind: 'dependency', unclosed_dep_ids: unclosed } });
      continue;
    }
    const retry = retryAfterOf(bead, now);
    if (retry) {
      const blocker: Blocker = { kind: 'retry-cooldown', next_eligible_at: new Date(retry.at).toISOString().replace(/\.\d+Z$/, 'Z') };
      const lastStatus = stringField(bead, 'work-last-status', 'execute-loop-last-status');
      const lastDetail = stringField(bead, 'work-last-detail', 'execute-loop-last-detail');
      if (lastStatus) blocker.last_status = lastStatus;
      if (lastDetail) blocker.last_detail = lastDetail;
      entries.push({ bead, blocker });
    }
  }
  return entries;
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

export function statusCounts(beads: Bead[], options: Pick<ReadyOptions, 'held'> = {}): StatusCounts {
  const count = (status: string) => beads.filter((b) => b.status === status).length;
  return {
    total: beads.length,
    open: count('open'),
    in_progress: count('in_progress'),
    closed: count('closed'),
    ready: readyBeads(beads, options).length,
    blocked: blockedBeads(beads).length,
  };
}
