// helix's side of the gate on current DDx (docs/ddx.md#verified-before-it-lands): before each
// `ddx try` it writes (or refreshes) the pre-merge check that runs `helix gate`, and takes back a
// result DDx would land unchecked; after `ddx try` it reads the gate's record of that attempt; when
// the run ends it removes the check. Stopping a `ddx try`, it stops the attempt's gate before DDx
// hears the stop (stopTryAfterGate). core/gate-decisions.ts decides; this file reads and writes.
import { existsSync, mkdirSync, readFileSync, rmSync, rmdirSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { AgentInvocation } from '../../agents/invocation.js';
import { evidenceInvocation } from '../../agents/ddx-invocations.js';
import { newestSucceededAttempt } from '../../agents/ddx-records.js';
import type { ExecuteBeadResult, InvalidExecuteBeadResult } from '../../agents/execute-bead-result.js';
import type { AgentRunResult } from '../../agents/run-agent.js';
import { writeFileAtomically } from '../../atomic-write.js';
import { onBranch } from './git.js';
import { type Bead, excludeRuntimeFiles } from '../../tracker/index.js';
import { isPidAlive } from '../../tracker/index.js';
import { GATE_CHECK_FILE, GATE_CHECK_MARKER, GATE_CHECK_NAME, type GateRecord, type TryStop, danglingToReject, gateCheckYaml, gatePidPath, gateRecordPath, parseGateRecord, tryStopOf } from '../core/gate-decisions.js';
import { GATE, type Say } from '../text/lines.js';

/** This helix's launcher (bin/helix of the install running now), by absolute path. */
export function helixLauncher(): string {
  return fileURLToPath(new URL('../../../bin/helix', import.meta.url));
}

function readOr(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Writes the check that runs this helix's gate, unless it is there as it should be. Its path is
 * in .git/info/exclude (tracker/tracker-dir.ts RUNTIME_EXCLUDES): git, helix and DDx's uncommitted-changes
 * refusal never see it, and it is not in the attempt's clone for an agent to change.
 */
export function installGateCheck(root: string, { events, node = process.execPath, launcher = helixLauncher() }: { events?: string; node?: string; launcher?: string } = {}): void {
  const file = join(root, GATE_CHECK_FILE);
  const text = gateCheckYaml(node, launcher, events);
  if (readOr(file) === text) return;
  excludeRuntimeFiles(root);
  mkdirSync(dirname(file), { recursive: true });
  writeFileAtomically(file, text);
}

/** Removes helix's check (a file that is not helix's is left alone), and its folder when nothing else is in it. */
export function removeGateCheck(root: string): void {
  const file = join(root, GATE_CHECK_FILE);
  if (!readOr(file)?.startsWith(GATE_CHECK_MARKER)) return;
  try {
    unlinkSync(file);
    rmdirSync(dirname(file));
  } catch {
    // not empty (the project's own checks), or gone already
  }
}

/** The gate's record of the bead's newest verified result, left where it is. */
export function readGateRecord(root: string, beadId: string): GateRecord | undefined {
  const record = parseGateRecord(readOr(gateRecordPath(root, beadId)) ?? '');
  return record?.bead === beadId ? record : undefined;
}

/** The gate's record of the bead is done with: removed (none there is fine). */
export function dropGateRecord(root: string, beadId: string): void {
  rmSync(gateRecordPath(root, beadId), { force: true });
}

/** The gate's record of this attempt's result, taken (read and removed) after `ddx try` returned. */
export function takeGateRecord(root: string, beadId: string): GateRecord | undefined {
  const record = readGateRecord(root, beadId);
  dropGateRecord(root, beadId);
  return record;
}

/**
 * Before `ddx try <id>`: the check is in place, and no earlier attempt of the bead that no gate
 * passed can be landed by DDx's dangling-success recovery (core/gate-decisions.ts danglingToReject) — such a
 * result is marked `preserved-result-rejected` through DDx itself, and a line says so.
 */
export async function prepareGate(root: string, bead: Bead, say: (line: Say) => void, options: GateOptions): Promise<void> {
  installGateCheck(root, options.events ? { events: options.events } : {});
  // a pid an earlier gate of the bead left would say this attempt's gate has started
  rmSync(gatePidPath(root, bead.id), { force: true });
  const newest = newestSucceededAttempt(root, bead.id, GATE_CHECK_NAME);
  // asked without blocking: another slot's attempt goes on meanwhile (issue 38)
  const landed = newest ? await onBranch(root, newest.result_rev) : false;
  const rev = danglingToReject(newest && { ...newest, gatePassed: newest.checkPassed }, {
    onBranch: () => landed,
    rejected: (sha) => eventsOf(bead).some((e) => e.kind === 'preserved-result-rejected' && String(e.body ?? '').includes(`result_rev=${sha}`)),
  });
  if (!rev) return;
  const summary = 'helix: an attempt no helix gate passed (its ddx try was killed, or its review malfunctioned): never land it unchecked';
  const r = await options.ddx(evidenceInvocation(root, bead.id, { kind: 'preserved-result-rejected', summary, body: `result_rev=${rev}` }), EVIDENCE_TIMEOUT_SECONDS);
  const why = r.stderr || r.startFailure || `exit ${r.exitCode}`;
  say(r.exitCode === 0 ? GATE.rejectedDangling(bead.id, rev) : GATE.couldNotReject(bead.id, rev, why.trim().split('\n').pop() ?? ''));
}

/** How long DDx gets to record a rejection. */
const EVIDENCE_TIMEOUT_SECONDS = 60;

/** What preparing the gate needs besides the project: the run's event log, and how a ddx bookkeeping call is made (agent-call.ts callQuietly). */
export interface GateOptions {
  events?: string;
  ddx(invocation: AgentInvocation, timeoutSec: number): Promise<Pick<AgentRunResult, 'exitCode' | 'stderr'> & { startFailure?: string }>;
}

/** After `ddx try`: the gate's record about this result (taken), and a line when the gate could not verify it. */
export function gateAfterTry(root: string, beadId: string, result: ExecuteBeadResult | InvalidExecuteBeadResult | undefined, say: (line: Say) => void): GateRecord | undefined {
  rmSync(gatePidPath(root, beadId), { force: true });
  const record = takeGateRecord(root, beadId);
  const valid = result && !('invalid' in result) ? result : undefined;
  if (!record || !valid?.result_rev || record.diff_head !== valid.result_rev) return undefined;
  if (record.status === 'infra') say(GATE.notVerifiedBeforeLanding(beadId, record.message));
  return record;
}

/** How long a stopped gate gets to answer and end before DDx is killed instead (within `helix stop`'s 10 s). */
const GATE_ANSWER_WAIT_MS = 6000;

/**
 * The first signal for a `ddx try` of `beadId` that must stop (core/gate-decisions.ts TryStop): SIGKILL
 * before the attempt's gate has started; else the gate gets SIGTERM (it answers `block`) and DDx
 * gets SIGTERM only once the gate process is gone — reaped by DDx, so its verdict is read — or
 * SIGKILL when the gate did not end in time.
 */
export async function stopTryAfterGate(root: string, beadId: string, waitMs = GATE_ANSWER_WAIT_MS): Promise<'SIGTERM' | 'SIGKILL'> {
  const stop: TryStop = tryStopOf(readPid(gatePidPath(root, beadId)));
  if (stop.first === 'SIGKILL') return 'SIGKILL';
  try {
    process.kill(stop.afterGate, 'SIGTERM');
  } catch {
    // it has ended already
  }
  const deadline = Date.now() + waitMs;
  while (!reaped(stop.afterGate)) {
    if (Date.now() > deadline) return 'SIGKILL';
    await delay(20);
  }
  return 'SIGTERM';
}

/** A pid file's pid, or undefined. */
function readPid(file: string): number | undefined {
  const pid = Number.parseInt(readOr(file) ?? '', 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** Gone and reaped: not even a zombie whose exit status its parent (DDx) has yet to read. */
function reaped(pid: number): boolean {
  return existsSync('/proc/self') ? !existsSync(`/proc/${pid}`) : !isPidAlive(pid);
}

/** The bead's events as DDx keeps them on an open bead (inline, `events`). */
function eventsOf(bead: Bead): Array<{ kind?: unknown; body?: unknown }> {
  return Array.isArray(bead.events) ? (bead.events as Array<{ kind?: unknown; body?: unknown }>).filter((e) => e !== null && typeof e === 'object') : [];
}
