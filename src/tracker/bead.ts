// The bead record (docs/contract/cli.md §5) and the accessors every tracker operation shares.
// A bead is kept as the plain JSON object read from the file: keys helix does not know are never
// touched, and keys it changes keep their position, so a rewrite preserves other tools' data.
import { parseNumber, quoted } from '../numbers.js';
import { HelixError } from '../errors.js';
import { STATUSES, type BeadStatus, isStatus } from './lifecycle.js';

export { STATUSES, type BeadStatus } from './lifecycle.js';
export const ISSUE_TYPES = ['task', 'epic', 'bug', 'chore'] as const;
export const DEFAULT_PRIORITY = 2;

export interface Dependency {
  issue_id?: string;
  depends_on_id: string;
  type?: string;
  created_at?: string;
  [key: string]: unknown;
}

export interface Bead {
  id: string;
  title: string;
  status: string;
  priority: number;
  issue_type?: string;
  created_at?: string;
  updated_at?: string;
  labels?: string[];
  parent?: string;
  description?: string;
  acceptance?: string;
  notes?: string;
  owner?: string;
  dependencies?: Array<Dependency | string>;
  [key: string]: unknown;
}

/** The heartbeat key DDx 0.6.x reads (DDx 93be5c8cb2 store.go heartbeatIsStale). */
export const HEARTBEAT_KEY = 'execute-loop-heartbeat-at';
/** The heartbeat key current DDx reads when a bead has no lease file (ae663ca012 store.go heartbeatIsStale). */
export const CURRENT_HEARTBEAT_KEY = 'work-heartbeat-at';

/**
 * Keys a claim writes; unclaim removes them all. `claimed-pid-start` ties the pid to one process
 * (its start time); the two heartbeat keys are what each DDx version reads as a live claim.
 */
export const CLAIM_KEYS = ['claimed-at', 'claimed-pid', 'claimed-machine', 'claimed-pid-start', 'claim-token', HEARTBEAT_KEY, CURRENT_HEARTBEAT_KEY] as const;

/** The retry cool-down keys: DDx 0.6.x wrote the first, current DDx the second (e444cf37fc). */
export const RETRY_AFTER_KEYS = ['execute-loop-retry-after', 'work-retry-after'] as const;

/** Current DDx stamps every record it writes with this schema version (types.go CurrentSchemaVersion). */
export const SCHEMA_VERSION = 1;

export function nowIso(now: Date = new Date()): string {
  return now.toISOString();
}

/**
 * The dependency list as written, or [] when the key holds something other than a list (another
 * tool's damage must not crash every read; `hasUnreadableDependencies` lets readiness be careful).
 */
export function dependencyList(bead: Bead): Array<Dependency | string> {
  return Array.isArray(bead.dependencies) ? bead.dependencies : [];
}

/** True when `dependencies` is present but not a list: its blockers cannot be known. */
export function hasUnreadableDependencies(bead: Bead): boolean {
  return bead.dependencies != null && !Array.isArray(bead.dependencies);
}

/**
 * The id this dependency blocks on. Every dependency type blocks, as in DDx (`DepIDs()` ignores the
 * type). An entry without a readable target blocks on '' — an id no bead has — as DDx's empty
 * dependency does: a lost target must never make a bead ready.
 */
export function blockingDependencyId(dep: unknown): string {
  if (typeof dep === 'string') return dep;
  if (dep && typeof dep === 'object') {
    const id = (dep as Dependency).depends_on_id;
    if (typeof id === 'string') return id;
  }
  return '';
}

/** Ids of the dependencies that must be closed before this bead is ready. */
export function blockingDependencyIds(bead: Bead): string[] {
  const ids: string[] = [];
  for (const dep of dependencyList(bead)) ids.push(blockingDependencyId(dep));
  return ids;
}

/** Every dependency id, whatever its type. */
export function allDependencyIds(bead: Bead): string[] {
  return dependencyList(bead).flatMap((dep) =>
    typeof dep === 'string' ? [dep] : dep && typeof dep.depends_on_id === 'string' ? [dep.depends_on_id] : [],
  );
}

export function labelsOf(bead: Bead): string[] {
  return Array.isArray(bead.labels) ? bead.labels.filter((l): l is string => typeof l === 'string') : [];
}

export function issueTypeOf(bead: Bead): string {
  return typeof bead.issue_type === 'string' && bead.issue_type ? bead.issue_type : 'task';
}

export function priorityOf(bead: Bead): number {
  const p = Number(bead.priority);
  return Number.isFinite(p) ? p : DEFAULT_PRIORITY;
}

/** `claimed-pid` is written as a string but other tools write numbers: read either. */
export function claimedPidOf(bead: Bead): number | undefined {
  const raw = bead['claimed-pid'];
  const pid = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Milliseconds since the epoch for an RFC 3339 field (fractional seconds allowed), or undefined. */
export function timeOf(value: unknown): number | undefined {
  if (typeof value !== 'string' || !value) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

export function validatePriority(value: unknown): number {
  try {
    return parseNumber('priority', String(value), { min: 0, max: 4 });
  } catch {
    throw new HelixError('validation', `bead: invalid priority ${JSON.stringify(String(value))}: must be an integer 0-4`);
  }
}

export function validateStatus(value: unknown): BeadStatus {
  if (!isStatus(value)) {
    throw new HelixError('validation', `bead: invalid status ${JSON.stringify(value)}: must be one of ${STATUSES.join(', ')}`);
  }
  return value;
}

export function validateIssueType(value: unknown): string {
  if (typeof value !== 'string' || !(ISSUE_TYPES as readonly string[]).includes(value)) {
    throw new HelixError('validation', `bead: invalid type ${JSON.stringify(value)}: must be one of ${ISSUE_TYPES.join(', ')}`);
  }
  return value;
}

/**
 * Ids a record brought from elsewhere (an import) may carry: letters, digits, dots, dashes and
 * underscores, at most 128 — every id DDx generates, and the ids of real DDx files (one starts with
 * a dot) — never a path separator, a space or a control character. Exit 7.
 */
export function validateBeadId(value: unknown, what = 'id'): string {
  if (typeof value === 'string' && /^[A-Za-z0-9._-]{1,128}$/.test(value) && value !== '.' && value !== '..') return value;
  throw new HelixError('validation', `bead: invalid ${what} ${quoted(String(value))}: letters, digits, '.', '-' and '_' only, at most 128`);
}

export function validateTitle(value: unknown): string {
  if (typeof value !== 'string' || !value.trim()) throw new HelixError('validation', 'bead: title must not be blank');
  return value;
}

/** Parses `--set k=v`: true/false become booleans, JSON arrays/objects are parsed, the rest is text. */
export function parseSetValue(raw: string): unknown {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (/^[[{]/.test(raw)) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

export function splitAssignment(pair: string): [string, string] {
  const eq = pair.indexOf('=');
  if (eq <= 0) throw new HelixError('validation', `bead: expected key=value, got ${JSON.stringify(pair)}`);
  return [pair.slice(0, eq), pair.slice(eq + 1)];
}

export function splitList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
