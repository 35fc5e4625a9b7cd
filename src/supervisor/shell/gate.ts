// `helix gate`: helix's verification as current DDx's pre-merge check (docs/ddx.md#verified-before-it-lands).
// DDx runs it with `sh -c` in the project root after an attempt and before landing it, with
// BEAD_ID, DIFF_BASE, DIFF_HEAD, PROJECT_ROOT, EVIDENCE_DIR and CHECK_NAME set; the attempt's own
// clone is gone by then and the project root still has the tree before the attempt. So the gate
// checks DIFF_HEAD out in a worktree of its own, links the project's installed dependencies into
// it (core/gate-decisions.ts DEPENDENCY_FOLDERS), runs the bead's verify command there (`sh -c`, as helix's
// own verification does), writes the verdict where DDx reads it and a record where helix reads it,
// and removes its worktree — on a signal too; a worktree a killed gate left is removed by the next.
// It leaves its pid while it runs (helix, stopping the `ddx try`, stops the gate first: core/gate-decisions.ts
// TryStop) and, given the run's event log (`--events`), appends its phase and its verdict there.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeFileAtomically } from '../../atomic-write.js';
import { HelixError } from '../../errors.js';
import { GATE_CHECK_NAME, type GateRecord, gateInfra, gatePidPath, gateRecordPath, verdictJson } from '../core/gate-decisions.js';
import { verifyCommandOf } from '../core/judge.js';
import type { EventBody } from '../core/run-events.js';
import { GATE } from '../text/lines.js';
import { EventLog, makeEvent } from './events.js';
import { watchInterrupts } from './interrupts.js';
import type { CommandResult } from './output.js';
import { openStore } from './project.js';
import { runIdOfEventLog } from './run-record.js';

/** Runs the gate with DDx's check environment; the verdict goes to `$EVIDENCE_DIR/$CHECK_NAME.json`. */
export async function runGate(env: NodeJS.ProcessEnv, options: { events?: string } = {}): Promise<CommandResult> {
  const evidenceDir = env.EVIDENCE_DIR;
  const checkName = env.CHECK_NAME;
  if (!evidenceDir || !checkName) throw new HelixError('validation', GATE.notUnderDdx);
  const bead = env.BEAD_ID ?? '';
  const diffHead = env.DIFF_HEAD ?? '';
  const root = env.PROJECT_ROOT ?? '';
  const started = Date.now();
  const ours = Boolean(root && bead && checkName === GATE_CHECK_NAME);
  if (ours) leavePid(root, bead);
  const record = options.events ? gateEvents(options.events) : undefined;
  if (bead) record?.({ type: 'phase', bead, phase: 'gate' });
  // a signal (helix stopping the `ddx try`: core/gate-decisions.ts TryStop) stops the verify, as it stops a run's calls
  const verdict =
    !bead || !diffHead || !root ? gateInfra(bead, diffHead, 'DDx gave no BEAD_ID, DIFF_HEAD or PROJECT_ROOT') : await watchInterrupts((watch) => verifyAttempt(env, root, bead, diffHead, watch.signal));
  mkdirSync(evidenceDir, { recursive: true });
  writeFileAtomically(join(evidenceDir, `${checkName}.json`), verdictJson(verdict));
  if (ours) {
    mkdirSync(dirname(gateRecordPath(root, bead)), { recursive: true });
    writeFileAtomically(gateRecordPath(root, bead), `${JSON.stringify(verdict)}\n`);
  }
  const cpu = process.resourceUsage();
  const seconds = Math.round((Date.now() - started) / 100) / 10;
  if (bead) record?.({ type: 'gate', bead, verdict: verdict.status, seconds, detail: verdict.message, cpu_ms: Math.round((cpu.userCPUTime + cpu.systemCPUTime) / 1000), ...(diffHead ? { diff_head: diffHead } : {}) });
  // exit 0 whatever the verdict: a non-zero exit is DDx's `error`, and the verdict is in the file
  return { exitCode: 0, stderr: [GATE.verdict(bead || '?', verdict.status, verdict.message)] };
}

/** The gate's pid where helix looks for it (core/gate-decisions.ts gatePidPath); best effort: without it helix kills the ddx try outright on a stop. */
function leavePid(root: string, bead: string): void {
  try {
    mkdirSync(dirname(gatePidPath(root, bead)), { recursive: true });
    writeFileSync(gatePidPath(root, bead), `${process.pid}\n`);
  } catch {
    // no pid: a stop kills DDx instead of waiting for this gate, which lands nothing either
  }
}

/** Appends to the run's event log as the run does (events.ts: O_APPEND, one write a line); a log that cannot be written is left alone. */
function gateEvents(path: string): (body: EventBody) => void {
  const run = runIdOfEventLog(path);
  return (body) => {
    try {
      const log = EventLog.open(path);
      try {
        log.append(makeEvent(run, new Date(), body));
      } finally {
        log.close();
      }
    } catch {
      // the verdict is DDx's and helix's files; the event log is for watchers
    }
  };
}

/** Reads the bead's verify command, checks DIFF_HEAD out beside the project and verifies there. */
async function verifyAttempt(env: NodeJS.ProcessEnv, root: string, bead: string, diffHead: string, signal: AbortSignal): Promise<GateRecord> {
  let command: string | undefined;
  try {
    const found = openStore(root, env).store.read().byId.get(bead);
    if (!found) return gateInfra(bead, diffHead, `bead ${bead} is not in the tracker`);
    command = verifyCommandOf(found, env);
  } catch (error) {
    return gateInfra(bead, diffHead, `the tracker could not be read: ${(error as Error).message}`);
  }
  if (!command) return { bead, diff_head: diffHead, status: 'pass', message: 'no verify command (the bead has none, HELIX_VERIFY_CMD is unset)' };
  // the worktree, git and the verify call load the agent runner (execa): only a bead with a command pays for it
  const { verifyInWorktree } = await import('./gate-worktree.js');
  return verifyInWorktree(env, root, bead, diffHead, command, signal);
}

