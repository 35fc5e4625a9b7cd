// `helix status` (contract §10): the tracker counts, the active run, claimed beads and the last
// run's state, as text or as the JSON document other tools read.
import {
  type Bead,
  type BeadStore,
  blockedBeads,
  claimedPidOf,
  isPidAlive,
  labelsOf,
  orphanThresholdSec,
  staleClaims,
  statusCounts,
  timeOf,
} from '../tracker/index.js';
import { readPidFile, removeStalePidFile } from './mutex.js';
import { readRunState } from './run-state.js';

/** Labels helix's supervisory actions put on the beads they file. */
export const SUPERVISORY_LABELS = ['source:review', 'source:alignment', 'source:align', 'source:acceptance'];

export interface StatusReport {
  current_cycle: number;
  running_bead: { id: string; worker: string; harness: string; claim_age_seconds: number; started_at: string } | null;
  parked_beads: Array<{ id: string; reason: 'dep-blocked' | 'retry-parked' | 'orphaned-claim' | 'skipped'; next_eligible: string | null; age_seconds: number }>;
  injected_supervisory: Array<{ id: string; type: string; triggering_cycle: number | null; triggering_bead: string | null; created_at: string }>;
  last_stop_reason: string | null;
  tracker: ReturnType<typeof statusCounts>;
  run: Record<string, unknown> | null;
  active_run: { pid: number; started: string; log: string | null } | null;
  memory: Record<string, unknown> | null;
}

/** `--set k=N` stores text; the cycle is a number either way. */
const cycleNumber = (value: unknown): number | null => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  return Number.isInteger(n) ? n : null;
};

const ageSeconds = (now: Date, iso: unknown) => {
  const t = timeOf(iso);
  return t === undefined ? 0 : Math.max(0, Math.floor((now.getTime() - t) / 1000));
};

export function buildStatus(store: BeadStore, now: Date, env: NodeJS.ProcessEnv, memory: Record<string, unknown> | null): StatusReport {
  const beads = store.read().beads;
  const run = readRunState(store.dir) ?? null;
  const pidFile = readPidFile(store.dir);
  let active: StatusReport['active_run'] = null;
  if (pidFile) {
    if (isPidAlive(pidFile.pid)) active = { pid: pidFile.pid, started: pidFile.started, log: typeof run?.log === 'string' ? run.log : null };
    else removeStalePidFile(store.dir, pidFile.pid);
  }
  const claimed = beads.filter((b) => b.status === 'in_progress');
  const live = (b: Bead) => {
    const pid = claimedPidOf(b);
    return pid !== undefined && isPidAlive(pid);
  };
  // A batch holds several live claims: the run's own current issue is the one it is running.
  const runningBead = claimed.find((b) => b.id === run?.current_issue && live(b)) ?? claimed.find(live);
  const stale = new Set(staleClaims(beads, { now, thresholdSec: orphanThresholdSec(env) }).map((s) => s.id));
  const parked: StatusReport['parked_beads'] = [];
  for (const b of blockedBeads(beads)) parked.push({ id: b.id, reason: 'dep-blocked', next_eligible: null, age_seconds: ageSeconds(now, b.updated_at) });
  for (const b of beads) {
    const retry = timeOf(b['execute-loop-retry-after']);
    if (b.status === 'open' && retry !== undefined && retry > now.getTime()) {
      parked.push({ id: b.id, reason: 'retry-parked', next_eligible: String(b['execute-loop-retry-after']), age_seconds: ageSeconds(now, b.updated_at) });
    }
    if (stale.has(b.id)) parked.push({ id: b.id, reason: 'orphaned-claim', next_eligible: null, age_seconds: ageSeconds(now, b['claimed-at'] ?? b.updated_at) });
    if (b.status === 'open' && labelsOf(b).includes('blocked')) parked.push({ id: b.id, reason: 'skipped', next_eligible: null, age_seconds: ageSeconds(now, b.updated_at) });
  }
  const supervisory = beads
    .filter((b) => labelsOf(b).some((l) => SUPERVISORY_LABELS.includes(l)))
    .sort((a, b) => (timeOf(b.created_at) ?? 0) - (timeOf(a.created_at) ?? 0))
    .slice(0, 20)
    .map((b: Bead) => ({
      id: b.id,
      type: (labelsOf(b).find((l) => SUPERVISORY_LABELS.includes(l))?.slice('source:'.length) ?? 'review').replace(/^align$/, 'alignment'),
      triggering_cycle: cycleNumber(b['helix-triggering-cycle']),
      triggering_bead: typeof b['helix-triggering-bead'] === 'string' ? b['helix-triggering-bead'] : null,
      created_at: String(b.created_at ?? ''),
    }));
  return {
    current_cycle: typeof run?.attempted_cycles === 'number' ? run.attempted_cycles : 0,
    running_bead: runningBead
      ? {
          id: runningBead.id,
          worker: String(runningBead.owner ?? 'helix'),
          harness: typeof run?.agent === 'string' ? run.agent : 'unknown',
          claim_age_seconds: ageSeconds(now, runningBead['claimed-at']),
          started_at: String(runningBead['claimed-at'] ?? ''),
        }
      : null,
    parked_beads: parked,
    injected_supervisory: supervisory,
    last_stop_reason: typeof run?.stop_reason === 'string' ? run.stop_reason : null,
    tracker: statusCounts(beads),
    run,
    active_run: active,
    memory,
  };
}

export function statusText(report: StatusReport, claimedBeads: Bead[], now: Date): string {
  const t = report.tracker;
  const lines = ['HELIX Status', '', 'Tracker:', `  Total:   ${t.total}`, `  Open:    ${t.open}`, `  Closed:  ${t.closed}`, `  Ready:   ${t.ready}`, `  Blocked: ${t.blocked}`];
  if (report.active_run) {
    lines.push('', 'Active Run:', `  PID:     ${report.active_run.pid}`, `  Started: ${report.active_run.started}`, `  Log:     ${report.active_run.log ?? '-'}`);
  }
  if (claimedBeads.length > 0) {
    lines.push('', 'Claimed:');
    for (const b of claimedBeads) lines.push(`  ${b.id} (pid ${String(b['claimed-pid'] ?? '-')}, ${ageSeconds(now, b['claimed-at'])}s) ${b.title}`);
  }
  const run = report.run;
  if (run) {
    lines.push(
      '',
      'Last Run:',
      `  Agent:       ${String(run.agent ?? '-')}`,
      `  Completed ${Number(run.completed_cycles ?? 0)} cycles`,
      `  Attempted ${Number(run.attempted_cycles ?? 0)} cycles`,
      `  Tokens:      ${Number(run.total_tokens ?? 0)}`,
      // Only agents that report a cost add to it (claude does, codex does not).
      ...(typeof run.total_cost_usd === 'number' && run.total_cost_usd > 0 ? [`  Cost:        $${run.total_cost_usd.toFixed(4)}`] : []),
      `  Stop reason: ${String(run.stop_reason ?? '-')}`,
      `  Timestamp:   ${String(run.last_run ?? '-')}`,
      `  Epic focus:  ${String(run.focused_epic ?? 'none')}`,
    );
  } else {
    lines.push('', 'No run state found. Run `helix run` to generate.');
  }
  const memory = report.memory;
  if (run?.memory_status === 'unavailable') lines.push('', 'Memory: unavailable during the last run (the run went on without it)');
  if (memory) {
    const eff = typeof memory.effectiveness === 'number' ? memory.effectiveness.toFixed(3) : String(memory.effectiveness ?? '-');
    lines.push('', `Memory: ${String(memory.total_memories ?? 0)} memories, ${String(memory.with_feedback ?? 0)} with feedback, effectiveness ${eff}, embedder ${String(memory.embedder ?? '-')}${memory.unavailable ? ` (unavailable: ${String(memory.unavailable)})` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}
