// Is a claim still held by a live worker? A bare pid is not enough: after a crash the pid can be
// reused by an unrelated process and the claim would never expire (issue #12 item 6). A claim is
// therefore tied to
//   - the claimer's host (`claimed-machine`),
//   - the claimer's process start time (`claimed-pid-start`: Linux boot id + start time in clock
//     ticks from /proc/<pid>/stat; a reused pid has a different start time),
//   - a heartbeat the claimer refreshes while it works (`execute-loop-heartbeat-at`, the key DDx
//     0.6.x reads,
//     and `work-heartbeat-at`, the key current DDx reads when a bead has no lease file),
//   - the worker lease files current DDx keeps outside the bead file
//     (DDx ae663ca012 cli/internal/bead/claim_liveness.go): helix reads them, so a bead a DDx
//     worker leased is taken even though DDx leaves it `open`.
// helix itself writes no lease file: its claim lives in the bead (status, pid, start time and
// both heartbeat keys), written under the tracker lock in one rename, so there is no moment when
// DDx could see the claim without its heartbeat.
import { readFileSync, readdirSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { procStatFields } from '../proc-stat.js';
import { type Bead, HEARTBEAT_KEY, claimedPidOf, timeOf } from './bead.js';
import { configScalar } from './tracker-dir.js';
import { isPidAlive, thisMachine } from './process.js';
import { sha1Hex } from './sha1.js';

/** DDx's HeartbeatInterval and HeartbeatTTL (both versions, store.go). */
export const HEARTBEAT_INTERVAL_MS = 30_000;
export const HEARTBEAT_TTL_MS = 90_000;
/** A same-machine lease whose pid is alive stays live this long after its last refresh (claimLeaseSameMachineFallbackAge). */
export const LEASE_SAME_MACHINE_MAX_AGE_MS = 2 * 60 * 60 * 1000;

// ── process identity ───────────────────────────────────────────────────────────────────────────

let bootId: string | null | undefined;

function readBootId(): string | null {
  if (bootId === undefined) {
    try {
      bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      bootId = null;
    }
  }
  return bootId;
}

/**
 * `<boot id>:<start time in clock ticks>` of a running process, or undefined where /proc is not
 * available (then only the pid and the heartbeat can be judged).
 */
export function processStartOf(pid: number): string | undefined {
  const boot = readBootId();
  if (!boot || !Number.isInteger(pid) || pid <= 0) return undefined;
  const start = procStatFields(pid)?.[19]; // field 22 overall: starttime
  return start && /^\d+$/.test(start) ? `${boot}:${start}` : undefined;
}

export interface LivenessFacts {
  now: Date;
  machine?: string;
  isAlive?: (pid: number) => boolean;
  startOf?: (pid: number) => string | undefined;
}

/**
 * Whether the process that made this claim still runs: same pid, and — when the claim recorded it
 * and this host can tell — the same start time. A claim from another host cannot be judged here.
 */
export function claimerAlive(bead: Bead, facts: Omit<LivenessFacts, 'now'> = {}): boolean {
  const pid = claimedPidOf(bead);
  if (pid === undefined || !(facts.isAlive ?? isPidAlive)(pid)) return false;
  const recorded = bead['claimed-pid-start'];
  if (typeof recorded !== 'string' || !recorded) return true;
  const current = (facts.startOf ?? processStartOf)(pid);
  return current === undefined || current === recorded;
}

/** Milliseconds since the claim's last heartbeat, or undefined when it has none. */
export function heartbeatAgeMs(bead: Bead, now: Date): number | undefined {
  const at = timeOf(bead[HEARTBEAT_KEY]);
  return at === undefined ? undefined : now.getTime() - at;
}

// ── DDx's worker lease files ─────────────────────────────────────────────────────────────────────

/** DDx's ClaimLeaseRecord (claim_liveness.go). */
export interface LeaseRecord {
  bead_id: string;
  owner?: string;
  session?: string;
  worktree?: string;
  machine?: string;
  started_at?: string;
  updated_at: string;
  pid?: number;
}

function expandRoot(path: string, base: string, env: NodeJS.ProcessEnv): string {
  const home = env.HOME ?? '';
  let expanded = path.trim();
  if (expanded === '~' && home) expanded = home;
  else if (expanded.startsWith('~/') && home) expanded = join(home, expanded.slice(2));
  return isAbsolute(expanded) ? resolve(expanded) : resolve(base, expanded);
}

/**
 * The folder holding DDx's lease files for the project whose tracker is `storeDir`:
 * `<runtime root>/ddx-claim-heartbeats/<sha1 of the real project root>`, where the runtime root
 * is DDX_EXEC_WT_DIR, else the project's `executions.temp_worktree_root`, else the temp folder
 * (Go's os.TempDir: $TMPDIR or /tmp) — ClaimLivenessRoot in claim_liveness.go.
 */
export function leaseDir(storeDir: string, env: NodeJS.ProcessEnv = process.env): string {
  let root = resolve(dirname(resolve(storeDir)));
  try {
    root = realpathSync(root);
  } catch {
    // a missing folder keeps its absolute path, as EvalSymlinks' error path does
  }
  const scope = sha1Hex(root);
  const fromEnv = env.DDX_EXEC_WT_DIR?.trim();
  const fromConfig = fromEnv ? undefined : configScalar(join(storeDir, 'config.yaml'), 'executions', 'temp_worktree_root');
  const runtime = fromEnv ? expandRoot(fromEnv, root, env) : fromConfig ? expandRoot(fromConfig, root, env) : env.TMPDIR || '/tmp';
  return join(runtime, 'ddx-claim-heartbeats', scope);
}

export function readLease(dir: string, id: string): LeaseRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(join(dir, `${id}.json`), 'utf8')) as LeaseRecord;
    return record && typeof record === 'object' ? record : undefined;
  } catch {
    return undefined;
  }
}

/** DDx's claimLeaseRecordIsStale, negated: refreshed within 90 s, or a live pid on this host (up to 2 h). */
export function leaseIsLive(record: LeaseRecord, facts: LivenessFacts): boolean {
  const updated = timeOf(record.updated_at);
  if (updated === undefined || updated <= Date.UTC(1, 0, 1)) return false;
  const age = facts.now.getTime() - updated;
  if (age <= HEARTBEAT_TTL_MS) return true;
  const pid = typeof record.pid === 'number' ? record.pid : 0;
  const sameMachine = Boolean(record.machine) && record.machine === (facts.machine ?? thisMachine());
  return sameMachine && pid > 0 && (facts.isAlive ?? isPidAlive)(pid) && age <= LEASE_SAME_MACHINE_MAX_AGE_MS;
}

/** Ids of beads a live lease holds. One directory listing; only lease files are read. */
export function leasedIds(storeDir: string, facts: LivenessFacts, env: NodeJS.ProcessEnv = process.env): Set<string> {
  return leasedIn(leaseDir(storeDir, env), facts);
}

/** Ids a live lease in this lease folder holds. */
export function leasedIn(dir: string, facts: LivenessFacts): Set<string> {
  const held = new Set<string>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return held;
  }
  for (const name of names) {
    if (!name.endsWith('.json') || name.includes('.tmp-')) continue;
    const id = name.slice(0, -'.json'.length);
    const record = readLease(dir, id);
    if (record && leaseIsLive(record, facts)) held.add(id);
  }
  return held;
}
