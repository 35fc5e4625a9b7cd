// helix's side of the gate on current DDx (docs/ddx.md#verified-before-it-lands): before each
// `ddx try` it writes (or refreshes) the pre-merge check that runs `helix gate`, and takes back a
// result DDx would land unchecked; after `ddx try` it reads the gate's record of that attempt; when
// the run ends it removes the check. Stopping a `ddx try`, it stops the attempt's gate before DDx
// hears the stop (stopTryAfterGate). core/gate.ts decides; this file reads and writes.
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, rmdirSync, unlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { ExecuteBeadResult, InvalidExecuteBeadResult } from '../../agents/execute-bead-result.js';
import { execa } from 'execa';
import { writeFileAtomically } from '../../atomic-write.js';
import { onBranch } from './git.js';
import { type Bead, excludeRuntimeFiles } from '../../tracker/index.js';
import { isPidAlive } from '../../tracker/index.js';
import { GATE_CHECK_FILE, GATE_CHECK_MARKER, GATE_CHECK_NAME, type GateRecord, type TryStop, danglingToReject, gateCheckYaml, gatePidPath, gateRecordPath, parseGateRecord, tryStopOf } from '../core/gate.js';
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
 * in .git/info/exclude (tracker/paths.ts RUNTIME_EXCLUDES): git, helix and DDx's uncommitted-changes
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

/** The gate's record of this attempt's result, taken (read and removed) after `ddx try` returned. */
export function takeGateRecord(root: string, beadId: string): GateRecord | undefined {
  const file = gateRecordPath(root, beadId);
  const record = parseGateRecord(readOr(file) ?? '');
  try {
    unlinkSync(file);
  } catch {
    // none was left
  }
  return record?.bead === beadId ? record : undefined;
}

/**
 * Before `ddx try <id>`: the check is in place, and no earlier attempt of the bead that no gate
 * passed can be landed by DDx's dangling-success recovery (core/gate.ts danglingToReject) — such a
 * result is marked `preserved-result-rejected` through DDx itself, and a line says so.
 */
export async function prepareGate(root: string, bead: Bead, say: (line: Say) => void, events?: string): Promise<void> {
  installGateCheck(root, events ? { events } : {});
  // a pid an earlier gate of the bead left would say this attempt's gate has started
  rmSync(gatePidPath(root, bead.id), { force: true });
  const newest = newestSucceeded(root, bead.id);
  // asked without blocking: another slot's attempt goes on meanwhile (issue 38)
  const landed = newest?.result_rev ? await onBranch(root, newest.result_rev) : false;
  const rev = danglingToReject(newest, {
    onBranch: () => landed,
    rejected: (sha) => eventsOf(bead).some((e) => e.kind === 'preserved-result-rejected' && String(e.body ?? '').includes(`result_rev=${sha}`)),
  });
  if (!rev) return;
  const r = await execa('ddx', ['bead', 'evidence', 'add', bead.id, '--kind', 'preserved-result-rejected', '--summary', 'helix: an attempt no helix gate passed (its ddx try was killed, or its review malfunctioned): never land it unchecked', '--body', `result_rev=${rev}`], { cwd: root, reject: false, cleanup: false, timeout: 60_000 });
  const why = (typeof r.stderr === 'string' && r.stderr) || (r.failed && r.shortMessage) || `exit ${r.exitCode}`;
  say(r.exitCode === 0 ? GATE.rejectedDangling(bead.id, rev) : GATE.couldNotReject(bead.id, rev, why.trim().split('\n').pop() ?? ''));
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
 * The first signal for a `ddx try` of `beadId` that must stop (core/gate.ts TryStop): SIGKILL
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

/**
 * The newest `task_succeeded` result of the bead in DDx's execution records, as DDx's recovery
 * finds it (newest folder name first), and whether helix's gate passed that attempt.
 */
function newestSucceeded(root: string, beadId: string): { result_rev?: string; base_rev?: string; gatePassed: boolean } | undefined {
  const folder = join(root, '.ddx', 'executions');
  let names: string[];
  try {
    names = readdirSync(folder).sort().reverse();
  } catch {
    return undefined;
  }
  for (const name of names) {
    let result: { bead_id?: unknown; outcome?: unknown; result_rev?: unknown; base_rev?: unknown };
    try {
      result = JSON.parse(readFileSync(join(folder, name, 'result.json'), 'utf8'));
    } catch {
      continue;
    }
    if (result.bead_id !== beadId || result.outcome !== 'task_succeeded') continue;
    if (typeof result.result_rev !== 'string' || !result.result_rev || result.result_rev === result.base_rev) continue;
    const verdict = readOr(join(folder, name, 'checks', `${GATE_CHECK_NAME}.json`));
    const gatePassed = verdict !== undefined && /"status"\s*:\s*"pass"/.test(verdict);
    return { result_rev: result.result_rev, ...(typeof result.base_rev === 'string' ? { base_rev: result.base_rev } : {}), gatePassed };
  }
  return undefined;
}
