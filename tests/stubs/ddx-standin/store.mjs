// DDx's bead store, per version, for the stand-ins: decoding with DDx's typed fields (a value of the
// wrong type keeps Go's zero value), writing the whole file sorted by id with Go's JSON, the
// directory lock, and the claim, readiness and close rules. Sources (read, not copied):
//   v0.6.1  93be5c8cb2 cli/internal/bead/{types,marshal,store,lock,lock_unix}.go
//   current ae663ca012 cli/internal/bead/{types,marshal,store,lock,lock_stale_guard_unix,
//           claim_liveness,lifecycle}.go
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, openSync, readFileSync, readdirSync, realpathSync, renameSync, rmSync, unlinkSync, writeFileSync, writeSync, fsyncSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { GO_ZERO_TIME, GoRaw, goNow, goNowSeconds, goString, goStruct, goValue, parseGoTime } from './go-json.mjs';

const KNOWN = ['id', 'title', 'issue_type', 'status', 'priority', 'owner', 'created_at', 'created_by', 'updated_at', 'labels', 'parent', 'description', 'acceptance', 'notes', 'dependencies'];
const STRING_FIELDS = ['id', 'title', 'issue_type', 'status', 'owner', 'created_by', 'parent', 'description', 'acceptance', 'notes'];
const DEP_FIELDS = ['issue_id', 'depends_on_id', 'type', 'created_at', 'created_by', 'metadata'];

export const HEARTBEAT_TTL_MS = 90_000;
const SAME_MACHINE_LEASE_MS = 2 * 60 * 60 * 1000;
const STALE_LOCK_MS = 2 * 60 * 60 * 1000;

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms) => Atomics.wait(sleeper, 0, 0, ms);

export function machineId() {
  return process.env.DDX_MACHINE_ID || hostname();
}

export function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code !== 'ESRCH';
  }
}

/** One line into a bead: DDx's unmarshalBead. */
export function decodeBead(line, version) {
  const raw = JSON.parse(line);
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('bead: unmarshal: not an object');
  const b = { extra: {} };
  for (const key of STRING_FIELDS) b[key] = typeof raw[key] === 'string' ? raw[key] : '';
  b.priority = Number.isSafeInteger(raw.priority) ? raw.priority : 0;
  b.created_at = parseGoTime(raw.created_at)?.text ?? GO_ZERO_TIME;
  b.updated_at = parseGoTime(raw.updated_at)?.text ?? GO_ZERO_TIME;
  b.labels = Array.isArray(raw.labels) && raw.labels.every((l) => typeof l === 'string') ? raw.labels : [];
  // []Dependency: an element of the wrong shape, or a field of the wrong type, keeps Go's zero value
  b.dependencies = Array.isArray(raw.dependencies)
    ? raw.dependencies.map((d) => Object.fromEntries(DEP_FIELDS.map((f) => [f, d && typeof d === 'object' && typeof d[f] === 'string' ? d[f] : ''])))
    : [];
  if (!b.issue_type) b.issue_type = 'task';
  if (!b.status) b.status = 'open';
  if (version === 'current') {
    b.schema_version = Number.isSafeInteger(raw.schema_version) && raw.schema_version !== 0 ? raw.schema_version : 1;
  }
  const known = version === 'current' ? [...KNOWN, 'schema_version'] : KNOWN;
  for (const [key, value] of Object.entries(raw)) if (!known.includes(key)) b.extra[key] = value;
  return b;
}

/** A bead as DDx's marshalBead writes it: one map, keys sorted, optional fields omitted when empty. */
export function encodeBead(b, version) {
  const m = { id: b.id, title: b.title, status: b.status, priority: b.priority, issue_type: b.issue_type, created_at: new GoRaw(goString(b.created_at)), updated_at: new GoRaw(goString(b.updated_at)) };
  if (version === 'current') m.schema_version = b.schema_version ?? 1;
  for (const key of ['owner', 'created_by', 'parent', 'description', 'acceptance', 'notes']) if (b[key]) m[key] = b[key];
  if (b.labels.length > 0) m.labels = b.labels;
  if (b.dependencies.length > 0) {
    m.dependencies = b.dependencies.map((d) =>
      goStruct([['issue_id', d.issue_id], ['depends_on_id', d.depends_on_id], ['type', d.type], ['created_at', d.created_at, true], ['created_by', d.created_by, true], ['metadata', d.metadata, true]]),
    );
  }
  for (const [key, value] of Object.entries(b.extra)) if (!(key in m)) m[key] = value;
  return goValue(m);
}

export class Store {
  constructor(dir, version) {
    this.dir = dir;
    this.version = version;
    this.file = join(dir, 'beads.jsonl');
    this.lockDir = join(dir, 'beads.lock');
    this.lockWaitMs = parseDurationOr(process.env.DDX_BEAD_LOCK_TIMEOUT, 10_000);
  }

  readAll() {
    let text;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if (error.code === 'ENOENT') return [];
      throw error;
    }
    const latest = new Map();
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const b = decodeBead(line.trim(), this.version);
        latest.delete(b.id); // fold: the last copy wins, in the order last seen
        latest.set(b.id, b);
      } catch {
        process.stderr.write(`bead: read line: malformed\n`);
      }
    }
    return [...latest.values()];
  }

  writeAll(beads) {
    beads.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const temp = `${this.file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
    const fd = openSync(temp, 'wx', 0o644);
    try {
      writeSync(fd, beads.map((b) => `${encodeBead(b, this.version)}\n`).join(''));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.file);
  }

  // ── the lock ───────────────────────────────────────────────────────────────────────────────────

  withLock(fn) {
    const token = this.acquire();
    try {
      return fn();
    } finally {
      this.release(token);
    }
  }

  acquire() {
    mkdirSync(this.dir, { recursive: true });
    const token = randomBytes(32).toString('hex');
    const deadline = Date.now() + Math.max(0, this.lockWaitMs);
    for (;;) {
      try {
        mkdirSync(this.lockDir);
        if (this.version === 'current') writeFileSync(join(this.lockDir, 'owner_token'), token, { mode: 0o600 });
        writeFileSync(join(this.lockDir, 'pid'), String(process.pid));
        writeFileSync(join(this.lockDir, 'acquired_at'), goNowSeconds());
        return token;
      } catch (error) {
        if (error.code !== 'EEXIST') throw error;
      }
      if (this.breakStale()) continue;
      if (Date.now() > deadline) {
        let owner = 'unknown';
        try {
          owner = readFileSync(join(this.lockDir, 'pid'), 'utf8').trim() || owner;
        } catch {}
        throw new Error(`bead: lock timeout (owner pid: ${owner})`);
      }
      sleep(50);
    }
  }

  /** v0.6.1 removes a stale lock outright; current DDx does it under flock on beads.lock.stale-break.lock. */
  breakStale() {
    if (this.version !== 'current') {
      if (!this.isStale()) return false;
      rmSync(this.lockDir, { recursive: true, force: true });
      return true;
    }
    const fd = openSync(`${this.lockDir}.stale-break.lock`, 'a+', 0o600);
    try {
      const r = spawnSync('flock', ['-n', '3'], { stdio: ['ignore', 'ignore', 'ignore', fd] });
      if (r.status !== 0) return false; // another breaker holds the guard
      if (!this.isStale()) return false;
      const tomb = `${this.lockDir}.tombstone.${process.pid}-${process.hrtime.bigint()}.lock`;
      try {
        renameSync(this.lockDir, tomb);
      } catch {
        return false;
      }
      rmSync(tomb, { recursive: true, force: true });
      return true;
    } finally {
      closeSync(fd);
    }
  }

  isStale() {
    let stale = false;
    try {
      const pid = Number.parseInt(readFileSync(join(this.lockDir, 'pid'), 'utf8').trim(), 10);
      if (pid > 0 && pid !== process.pid && !processAlive(pid)) stale = true;
    } catch {}
    try {
      const at = Date.parse(readFileSync(join(this.lockDir, 'acquired_at'), 'utf8').trim());
      if (!Number.isNaN(at) && Date.now() - at > STALE_LOCK_MS) stale = true;
    } catch {}
    return stale;
  }

  release(token) {
    if (this.version !== 'current') {
      rmSync(this.lockDir, { recursive: true, force: true }); // v0.6.1: whoever holds it
      return;
    }
    try {
      if (readFileSync(join(this.lockDir, 'owner_token'), 'utf8').trim() !== token) return;
    } catch {
      return;
    }
    const tomb = `${this.lockDir}.tombstone.${process.pid}-${process.hrtime.bigint()}.lock`;
    renameSync(this.lockDir, tomb);
    rmSync(tomb, { recursive: true, force: true });
  }

  update(id, mutate) {
    return this.withLock(() => {
      const beads = this.readAll();
      const b = beads.find((x) => x.id === id);
      if (!b) throw new Error(`bead: not found: ${id}`);
      mutate(b);
      b.updated_at = goNow();
      this.validate(b);
      this.writeAll(beads);
      return b;
    });
  }

  validate(b) {
    if (!b.title.trim()) throw new Error('bead: title is required');
    if (b.priority < 0 || b.priority > 4) throw new Error(`bead: priority must be 0-4, got ${b.priority}`);
    const ok = this.version === 'current' ? ['open', 'in_progress', 'closed', 'blocked', 'proposed', 'cancelled'] : ['open', 'in_progress', 'closed'];
    if (!ok.includes(b.status)) throw new Error(`bead: invalid status: ${b.status}`);
  }

  // ── claims ─────────────────────────────────────────────────────────────────────────────────────

  /** The folder of current DDx's worker leases (claim_liveness.go ClaimLivenessRoot). */
  leaseDir() {
    let root = resolve(dirname(resolve(this.dir)));
    try {
      root = realpathSync(root);
    } catch {}
    const base = process.env.DDX_EXEC_WT_DIR?.trim() || process.env.TMPDIR || '/tmp';
    return join(base, 'ddx-claim-heartbeats', createHash('sha1').update(root).digest('hex'));
  }

  readLease(id) {
    try {
      return JSON.parse(readFileSync(join(this.leaseDir(), `${id}.json`), 'utf8'));
    } catch {
      return undefined;
    }
  }

  writeLease(record) {
    const dir = this.leaseDir();
    mkdirSync(dir, { recursive: true });
    const temp = join(dir, `${record.bead_id}.json.tmp-${randomBytes(4).toString('hex')}`);
    writeFileSync(temp, `${goStruct([['bead_id', record.bead_id], ['owner', record.owner, true], ['session', record.session, true], ['worktree', record.worktree, true], ['machine', record.machine, true], ['started_at', new GoRaw(goString(record.started_at))], ['updated_at', new GoRaw(goString(record.updated_at))], ['pid', record.pid, true]]).text}\n`);
    renameSync(temp, join(dir, `${record.bead_id}.json`));
  }

  removeLease(id) {
    try {
      unlinkSync(join(this.leaseDir(), `${id}.json`));
    } catch {}
  }

  /** v0.6.1 heartbeatIsStale reads execute-loop-heartbeat-at; current reads work-heartbeat-at. */
  heartbeatStale(b) {
    const key = this.version === 'current' ? 'work-heartbeat-at' : 'execute-loop-heartbeat-at';
    const at = parseGoTime(b.extra[key])?.ms;
    return at === undefined || Date.now() - at > HEARTBEAT_TTL_MS;
  }

  /** current claimLeaseIsStale: the lease file when there is one, else the in-bead heartbeat. */
  claimStale(b) {
    if (this.version !== 'current') return this.heartbeatStale(b);
    const lease = this.readLease(b.id);
    if (!lease) return this.heartbeatStale(b);
    const updated = Date.parse(lease.updated_at ?? '');
    if (Number.isNaN(updated) || lease.updated_at === '0001-01-01T00:00:00Z') return true;
    const age = Date.now() - updated;
    if (age <= HEARTBEAT_TTL_MS) return false;
    if (lease.machine && lease.machine === machineId() && lease.pid > 0 && processAlive(lease.pid)) return age > SAME_MACHINE_LEASE_MS;
    return true;
  }

  /**
   * A worker's claim. v0.6.1 (store.go ClaimWithOptions): open, or in_progress with a stale
   * heartbeat; writes in_progress, owner, claimed-* and execute-loop-heartbeat-at.
   * current (ClaimWithOptions): open or in_progress whose lease is stale, no unclosed dependency;
   * writes only the lease file — the bead stays as it is.
   */
  claim(id, assignee, session = '') {
    return this.withLock(() => {
      const beads = this.readAll();
      const b = beads.find((x) => x.id === id);
      if (!b) throw new Error(`bead: not found: ${id}`);
      const claimable = b.status === 'open' || b.status === 'in_progress';
      if (!claimable || (b.status === 'in_progress' && this.version !== 'current' && !this.heartbeatStale(b)) || (this.version === 'current' && !this.claimStale(b))) {
        throw new Error(`bead: cannot claim ${id} from status ${b.status}`);
      }
      const now = goNow();
      if (this.version === 'current') {
        const status = new Map(beads.map((x) => [x.id, x.status]));
        const open = b.dependencies.map((d) => d.depends_on_id).filter((d) => status.get(d) !== 'closed');
        if (open.length) throw new Error(`bead: dependency gate rejected: bead ${id}: ${open.sort().join(', ')}`);
        this.writeLease({ bead_id: id, owner: assignee, session, machine: machineId(), started_at: now, updated_at: now, pid: process.pid });
        return b;
      }
      b.status = 'in_progress';
      b.owner = assignee;
      b.updated_at = now;
      b.extra['claimed-at'] = goNowSeconds();
      b.extra['claimed-pid'] = String(process.pid);
      b.extra['execute-loop-heartbeat-at'] = now;
      b.extra['claimed-machine'] = machineId();
      if (session) b.extra['claimed-session'] = session;
      this.writeAll(beads);
      return b;
    });
  }

  /** Unclaim / Release: in_progress → open, owner and claim keys cleared (and the lease removed). */
  unclaim(id) {
    const b = this.update(id, (x) => {
      if (x.status === 'in_progress') x.status = 'open';
      x.owner = '';
      for (const k of ['claimed-at', 'claimed-pid', 'claimed-machine', 'claimed-session', 'claimed-worktree', this.version === 'current' ? 'work-heartbeat-at' : 'execute-loop-heartbeat-at']) delete x.extra[k];
    });
    if (this.version === 'current') this.removeLease(id);
    return b;
  }

  /** CloseWithEvidence: closing_commit_sha / session_id recorded; current DDx checks every dependency first. */
  closeWithEvidence(id, session, commit) {
    if (this.version === 'current') {
      const beads = this.readAll();
      const status = new Map(beads.map((x) => [x.id, x.status]));
      const b = beads.find((x) => x.id === id);
      const open = (b?.dependencies ?? []).map((d) => d.depends_on_id).filter((d) => status.get(d) !== 'closed');
      if (open.length) throw new Error(`bead: dependency gate rejected: bead ${id}: ${open.sort().join(', ')}`);
    }
    const b = this.update(id, (x) => {
      if (session) x.extra.session_id = session;
      if (commit) x.extra.closing_commit_sha = commit;
      if (this.version === 'current' && !['open', 'in_progress', 'blocked', 'proposed', 'closed'].includes(x.status)) throw new Error(`bead: lifecycle transition ${x.status} -> closed rejected`);
      x.status = 'closed';
      for (const k of ['claimed-at', 'claimed-pid', 'claimed-machine', 'claimed-session', 'claimed-worktree']) if (this.version === 'current') delete x.extra[k];
    });
    if (this.version === 'current') this.removeLease(id);
    return b;
  }

  cooldown(id, minutes, status, detail) {
    const prefix = this.version === 'current' ? 'work' : 'execute-loop';
    return this.update(id, (x) => {
      x.extra[`${prefix}-retry-after`] = goNowSeconds(new Date(Date.now() + minutes * 60_000));
      if (status) x.extra[`${prefix}-last-status`] = status;
      if (detail) x.extra[`${prefix}-last-detail`] = detail;
    });
  }

  // ── readiness ──────────────────────────────────────────────────────────────────────────────────

  /**
   * `ready` / `ready --execution`. Every dependency blocks (DepIDs). v0.6.1 readyFiltered: open
   * beads, plus in_progress ones with a stale heartbeat for --execution; --execution drops epics,
   * execution-eligible:false, superseded and retry-parked (execute-loop-retry-after).
   * current classifyLifecycleQueue: open or in_progress without a fresh claim; epics with children
   * and superseded beads are never ready; retry cooldown under work-retry-after.
   */
  ready(execution) {
    const beads = this.readAll();
    const status = new Map(beads.map((b) => [b.id, b.status]));
    const children = new Map();
    for (const b of beads) if (b.parent) children.set(b.parent, (children.get(b.parent) ?? 0) + 1);
    const now = Date.now();
    const retryKey = this.version === 'current' ? 'work-retry-after' : 'execute-loop-retry-after';
    const out = beads.filter((b) => {
      if (this.version === 'current') {
        if (!['open', 'in_progress'].includes(b.status) || !this.claimStale(b)) return false;
      } else if (b.status !== 'open' && !(execution && b.status === 'in_progress' && this.heartbeatStale(b))) return false;
      if (!b.dependencies.every((d) => status.get(d.depends_on_id) === 'closed')) return false;
      const superseded = typeof b.extra['superseded-by'] === 'string' && b.extra['superseded-by'].trim() !== '';
      const epic = this.version === 'current' ? (b.issue_type.toLowerCase() === 'epic' || b.title.toLowerCase().startsWith('epic:')) && (children.get(b.id) ?? 0) > 0 : b.issue_type === 'epic';
      if (this.version === 'current' && (superseded || epic)) return false;
      if (!execution) return true;
      if (epic || superseded || b.extra['execution-eligible'] === false) return false;
      const retry = parseGoTime(b.extra[retryKey])?.ms;
      return retry === undefined || retry <= now;
    });
    out.sort((a, b) => a.priority - b.priority || Date.parse(a.created_at) - Date.parse(b.created_at) || (a.id < b.id ? -1 : 1));
    return out;
  }
}

/** DDx's parseDurationOr: a plain number is seconds, else a Go duration. */
export function parseDurationOr(text, fallbackMs) {
  if (!text) return fallbackMs;
  if (/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text)) return Number(text) * 1000;
  const m = /^([+-]?)((?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+)$/.exec(text);
  if (!m) return fallbackMs;
  const unit = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let ms = 0;
  for (const [, v, u] of m[2].matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)) ms += Number(v) * unit[u];
  return m[1] === '-' ? -ms : ms;
}
