// `helix status` (docs/contract/cli.md §10): the tracker counts, the active run, claimed beads and the last
// run's state, gathered into the JSON document other tools read (its shape and the text view are
// text/status.ts).
// The tracker's modules one by one, not its index: `helix status` is run often and loads only these.
import { type Bead, claimedPidOf, labelsOf, timeOf } from '../../tracker/bead.js';
import { claimerAlive } from '../../tracker/liveness.js';
import { isPidAlive, thisMachine } from '../../tracker/process.js';
import { blockedBeads, retryAfterOf, statusCounts } from '../../tracker/ready.js';
import { orphanThresholdSec, staleClaims } from '../../tracker/stale.js';
import type { BeadStore } from '../../tracker/bead-store.js';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type Night, nightOf } from '../core/night.js';
import { readPidFile, removeStalePidFile } from './mutex.js';
import { readRunState } from './run-state.js';
import { parseEvents } from './events.js';
import { type StatusReport, statusNightOf, statusSlotsOf } from '../text/status.js';
import { claimerCallsGone } from './claimer-calls.js';

/** Labels of the beads review, alignment and acceptance checks file (docs/contract/bash-interface.md §14.2). */
export const SUPERVISORY_LABELS = ['review-finding', 'alignment-review', 'acceptance-failure'] as const;
/** Labels older helix versions used for the same beads, read as their Bash names. */
const LEGACY_SUPERVISORY: Record<string, (typeof SUPERVISORY_LABELS)[number]> = {
  'source:review': 'review-finding',
  'source:alignment': 'alignment-review',
  'source:align': 'alignment-review',
  'source:acceptance': 'acceptance-failure',
};

function supervisoryType(bead: Bead): string | undefined {
  for (const label of labelsOf(bead)) {
    if ((SUPERVISORY_LABELS as readonly string[]).includes(label)) return label;
    if (LEGACY_SUPERVISORY[label]) return LEGACY_SUPERVISORY[label];
  }
  return undefined;
}

/** `TRIGGERING_CYCLE=<n>` / `TRIGGERING_BEAD=<id>` in the notes; helix's older keys as a fallback. */
function triggering(bead: Bead): { cycle: number | null; bead: string | null } {
  const notes = typeof bead.notes === 'string' ? bead.notes : '';
  const cycle = /TRIGGERING_CYCLE=([0-9]+)/.exec(notes)?.[1];
  const from = /TRIGGERING_BEAD=([A-Za-z0-9_-]+)/.exec(notes)?.[1];
  return {
    cycle: cycle !== undefined ? Number(cycle) : cycleNumber(bead['helix-triggering-cycle']),
    bead: from ?? (typeof bead['helix-triggering-bead'] === 'string' ? bead['helix-triggering-bead'] : null),
  };
}

/** `--set k=N` stores text; the cycle is a number either way. */
const cycleNumber = (value: unknown): number | null => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  return Number.isInteger(n) ? n : null;
};

/** Beads of each status the file holds (DDx's `proposed`, `blocked`, `cancelled` and any other included). */
function beadsByStatus(beads: Bead[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const b of beads) {
    const status = typeof b.status === 'string' && b.status ? b.status : 'unknown';
    counts[status] = (counts[status] ?? 0) + 1;
  }
  return counts;
}

/**
 * Why a bead is parked, when several reasons hold, the one to show (one entry a bead): a dead
 * claim first (it holds the bead), then a cool-down (it has a time), then a dependency, then the
 * `blocked` label a skipped bead keeps.
 */
const PARK_ORDER: readonly StatusReport['parked_beads'][number]['reason'][] = ['orphaned-claim', 'retry-parked', 'dep-blocked', 'skipped'];

function onePerBead(parked: StatusReport['parked_beads']): StatusReport['parked_beads'] {
  const chosen = new Map<string, StatusReport['parked_beads'][number]>();
  for (const entry of parked) {
    const held = chosen.get(entry.id);
    if (!held || PARK_ORDER.indexOf(entry.reason) < PARK_ORDER.indexOf(held.reason)) chosen.set(entry.id, entry);
  }
  return [...chosen.values()];
}

/** The event logs a run may be writing: the newest few in `.helix-logs/`, newest first. */
const NEWEST_LOGS = 5;

/**
 * The active run's night, from its own event log: the newest log whose `run_start` names the
 * run's pid (run-state names the log too, but current DDx writes over run-state during `ddx try`).
 */
function activeNight(root: string, pid: number): Night | undefined {
  const folder = join(root, '.helix-logs');
  let logs: Array<{ path: string; mtime: number }>;
  try {
    logs = readdirSync(folder)
      .filter((name) => name.endsWith('.events.ndjson'))
      .map((name) => ({ path: join(folder, name), mtime: statSync(join(folder, name)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime)
      .slice(0, NEWEST_LOGS);
  } catch {
    return undefined;
  }
  for (const log of logs) {
    let text: string;
    try {
      text = readFileSync(log.path, 'utf8');
    } catch {
      continue;
    }
    const events = parseEvents(text).events;
    const start = events.find((e) => e.type === 'run_start');
    if (start?.type === 'run_start' && start.pid === pid) return nightOf(events);
  }
  return undefined;
}

/** The last run's last `limit` event, when that run stopped on a limit: which agent, and when it resets. */
function lastLimit(run: Record<string, unknown>): StatusReport['last_limit'] {
  if (run.stop_reason !== 'limit' || typeof run.events !== 'string') return null;
  let text: string;
  try {
    text = readFileSync(run.events, 'utf8');
  } catch {
    return null;
  }
  const limit = parseEvents(text).events.filter((e) => e.type === 'limit').pop();
  if (limit?.type !== 'limit') return null;
  return { agent: limit.agent, kind: limit.kind, resets_at: limit.resets_at, detail: limit.detail };
}

const ageSeconds = (now: Date, iso: unknown) => {
  const t = timeOf(iso);
  return t === undefined ? 0 : Math.max(0, Math.floor((now.getTime() - t) / 1000));
};

/** Whether a claim's claimer still runs (same pid and start time), is gone, or is on another host and cannot be told. */
function claimerState(bead: Bead): StatusReport['claimed_beads'][number]['claimer'] {
  const machine = bead['claimed-machine'];
  if (typeof machine === 'string' && machine !== '' && machine !== thisMachine()) return 'elsewhere';
  return claimerAlive(bead) ? 'running' : 'gone';
}

export function buildStatus(
  store: BeadStore,
  now: Date,
  env: NodeJS.ProcessEnv,
  memory: Record<string, unknown> | null,
  ddx: { version?: string; surface?: string; path: string } | undefined = undefined,
  root: string = dirname(store.dir),
): StatusReport {
  const beads = store.read().beads;
  const run = readRunState(store.dir) ?? {};
  const pidFile = readPidFile(store.dir);
  let active: StatusReport['active_run'] = null;
  if (pidFile) {
    if (isPidAlive(pidFile.pid)) active = { pid: pidFile.pid, started: pidFile.started, log: typeof run.log === 'string' ? run.log : null };
    else removeStalePidFile(store.dir, pidFile.pid);
  }
  const claimed = beads.filter((b) => b.status === 'in_progress');
  // Live = the claiming process still runs (same pid and start time), not merely a pid in use.
  const live = (b: Bead) => claimerAlive(b);
  // A batch holds several live claims: the run's own current issue is the one it is running.
  const runningBead = claimed.find((b) => b.id === run.current_issue && live(b)) ?? claimed.find(live);
  // a claim whose claimer is gone and of which nothing is left is stale at once (tracker/stale.ts)
  const stale = new Set(staleClaims(beads, { now, thresholdSec: orphanThresholdSec(env), callsGone: claimerCallsGone }).map((s) => s.id));
  const parked: StatusReport['parked_beads'] = [];
  for (const b of blockedBeads(beads)) parked.push({ id: b.id, reason: 'dep-blocked', next_eligible: null, age_seconds: ageSeconds(now, b.updated_at) });
  for (const b of beads) {
    const retry = retryAfterOf(b, now);
    if (b.status === 'open' && retry) {
      parked.push({ id: b.id, reason: 'retry-parked', next_eligible: String(b[retry.key]), age_seconds: ageSeconds(now, b.updated_at) });
    }
    if (stale.has(b.id)) parked.push({ id: b.id, reason: 'orphaned-claim', next_eligible: null, age_seconds: ageSeconds(now, b['claimed-at'] ?? b.updated_at) });
    if (b.status === 'open' && labelsOf(b).includes('blocked')) parked.push({ id: b.id, reason: 'skipped', next_eligible: null, age_seconds: ageSeconds(now, b.updated_at) });
  }
  const supervisory = beads
    .flatMap((b) => {
      const type = supervisoryType(b);
      return type ? [{ bead: b, type }] : [];
    })
    .sort((a, b) => (timeOf(b.bead.created_at) ?? 0) - (timeOf(a.bead.created_at) ?? 0))
    .slice(0, 20)
    .map(({ bead: b, type }) => {
      const cause = triggering(b);
      return { id: b.id, type, triggering_cycle: cause.cycle, triggering_bead: cause.bead, created_at: typeof b.created_at === 'string' ? b.created_at : null };
    });
  const attempted = run.attempted_cycles;
  const night = active ? activeNight(root, active.pid) : undefined;
  return {
    current_cycle: typeof attempted === 'number' && Number.isFinite(attempted) ? Math.floor(attempted) : 0,
    running_bead: runningBead
      ? {
          id: runningBead.id,
          worker: String(runningBead.owner ?? 'helix'),
          harness: typeof run.agent === 'string' ? run.agent : 'unknown',
          claim_age_seconds: ageSeconds(now, runningBead['claimed-at']),
          started_at: typeof runningBead['claimed-at'] === 'string' ? runningBead['claimed-at'] : null,
        }
      : null,
    parked_beads: onePerBead(parked),
    claimed_beads: claimed.map((b) => ({ id: b.id, pid: claimedPidOf(b) ?? null, claimer: claimerState(b), reclaimable: stale.has(b.id) })),
    injected_supervisory: supervisory,
    last_stop_reason: typeof run.stop_reason === 'string' && run.stop_reason ? run.stop_reason : 'unknown',
    last_limit: lastLimit(run),
    tracker: { ...statusCounts(beads), by_status: beadsByStatus(beads) },
    run,
    active_run: active,
    slots: night ? statusSlotsOf(night) : [],
    night: night ? statusNightOf(night, now.getTime()) : null,
    memory,
    ddx: ddx ? { version: ddx.version ?? null, surface: ddx.surface ?? null, path: ddx.path, supported: Boolean(ddx.surface) } : null,
  };
}
