// The fault suite's shared parts: what every scenario checks (no bead left claimed by a dead run,
// no process left, nothing lost, one clear line) and the row it reports. With HELIX_FAULTS_REPORT
// set to a file, each scenario appends its observed row there as one JSON line;
// scripts/faults-table.mjs runs the suite that way and writes docs/faults.md from the rows.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import type { Bead } from '../../src/tracker/index.js';
import { isRunning } from '../agents/process-helpers.js';
import { waitUntil } from '../run/stub-project.js';

export interface FaultRow {
  /** Which table the row belongs to, in docs/faults.md. */
  group: string;
  scenario: string;
  /** helix's exit code, or the signal that killed it. */
  exit: string;
  /** The target bead right after helix ended. */
  bead: string;
  /** Processes of the call (agent, its children, verify) left after helix ended. */
  processes: string;
  /** What the next `helix run` (the recovery the README promises) did, if one was needed. */
  recovery: string;
  /** The one line helix said about it (ids, pids and times made generic). */
  line: string;
}

export function report(row: FaultRow): void {
  const file = process.env.HELIX_FAULTS_REPORT;
  if (file) appendFileSync(file, `${JSON.stringify(row)}\n`);
}

/** How a bead looks to someone reading the tracker: status, and whose claim it carries. */
export function beadState(bead: Bead | undefined): string {
  if (!bead) return 'missing!';
  const claimKeys = ['claimed-pid', 'claim-token', 'claimed-at', 'claimed-machine'].filter((k) => k in bead);
  const notes = typeof bead.notes === 'string' ? bead.notes : '';
  const reopened = /^REOPENED \[/m.test(notes) ? ' (reopened, the note says why)' : '';
  if (bead.status === 'in_progress') {
    const pid = Number(bead['claimed-pid']);
    return `in_progress, claimed by a ${isRunning(pid) ? 'live' : 'dead'} pid`;
  }
  return `${bead.status}${claimKeys.length > 0 ? `, claim keys left: ${claimKeys.join(', ')}` : ''}${reopened}`;
}

/** Counts the pids still running now, then waits (up to 10 s) for them to go; returns "n → m". */
/**
 * Counts the call's pids still running when helix ended, then waits (up to 10 s) for them to go.
 * After a SIGKILL of helix its watchdog stops them: how many were still running at the instant
 * helix died is a race, so the text names the watchdog and how many ran when the signal was sent
 * (`runningAtSignal`) instead.
 */
export async function processesLeft(pids: number[], helixKilled = false, runningAtSignal = 0): Promise<{ atExit: number; after: number; text: string }> {
  const atExit = pids.filter(isRunning).length;
  await waitUntil(() => pids.every((pid) => !isRunning(pid)), `pids ${pids.join(', ')} to end`, 10_000).catch(() => undefined);
  const after = pids.filter(isRunning).length;
  const plural = (n: number) => `${n} process${n === 1 ? '' : 'es'}`;
  const text = after > 0 ? `${plural(after)} still running` : helixKilled && runningAtSignal > 0 ? `0 (helix's watchdog stopped the call's ${plural(runningAtSignal)})` : '0';
  return { atExit, after, text };
}

/** A marker file's pids: the stub writes {"pid","childPid"}; scripts here write a bare pid. */
export function markerPids(file: string): number[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8').trim();
  if (!text.startsWith('{')) return [Number(text)];
  const marker = JSON.parse(text) as { pid: number; childPid: number | null };
  return [marker.pid, ...(marker.childPid ? [marker.childPid] : [])];
}

/** helix's exit as the table shows it. */
export function exitText(result: { status: number | null; signal?: NodeJS.Signals | null }): string {
  return result.signal ? `killed (${result.signal})` : String(result.status);
}

/** A helix line with what varies between runs (times, pids, paths) made generic. */
export function generic(line: string, root?: string): string {
  let out = line.replace(/\[\d\d:\d\d:\d\d\]/g, '[hh:mm:ss]').replace(/pid[= ](\d+)/g, 'pid $1').replace(/pid \d+/g, 'pid N');
  if (root) out = out.split(root).join('<repo>');
  return out.replace(/\/tmp\/[^\s]+/g, '<tmp>').replace(/age=\d+s/, 'age=Ns').replace(/helix-\d{8}-\d{6}(-\d+)?\.log/g, 'helix-<stamp>.log');
}

/** The last `helix:` line on stderr that matches, for the table. */
export function lineMatching(stderr: string, pattern: RegExp): string {
  return stderr.split('\n').filter((l) => pattern.test(l)).at(-1) ?? '';
}
