// `helix gate`: helix's verification as current DDx's pre-merge check (docs/ddx.md#verified-before-it-lands).
// DDx runs it with `sh -c` in the project root after an attempt and before landing it, with
// BEAD_ID, DIFF_BASE, DIFF_HEAD, PROJECT_ROOT, EVIDENCE_DIR and CHECK_NAME set; the attempt's own
// clone is gone by then and the project root still has the tree before the attempt. So the gate
// checks DIFF_HEAD out in a worktree of its own, links the project's installed dependencies into
// it (core/gate.ts DEPENDENCY_FOLDERS), runs the bead's verify command there (`sh -c`, as helix's
// own verification does), writes the verdict where DDx reads it and a record where helix reads it,
// and removes its worktree — on a signal too; a worktree a killed gate left is removed by the next.
// It leaves its pid while it runs (helix, stopping the `ddx try`, stops the gate first: core/gate.ts
// TryStop) and, given the run's event log (`--events`), appends its phase and its verdict there.
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { writeFileAtomically } from '../../atomic-write.js';
import { HelixError } from '../../errors.js';
import { isPidAlive } from '../../tracker/index.js';
import { GATE_CHECK_NAME, type GateRecord, dependencyLinks, gateInfra, gatePidPath, gateRecordPath, gateStopped, verdictJson, verdictOfRun } from '../core/gate.js';
import { verifyCommandOf } from '../core/judge.js';
import type { EventBody } from '../core/run-events.js';
import { GATE } from '../text/lines.js';
import { CallTotals, RunInterrupted, callAgent } from './agent-call.js';
import { EventLog, makeEvent } from './events.js';
import { addWorktree, isIgnored, pruneWorktrees, removeWorktree, worktreePaths } from './git.js';
import { watchInterrupts } from './interrupts.js';
import { type CommandResult, SILENT_OUTPUT } from './output.js';
import { openStore } from './project.js';
import { runIdOfEventLog } from './run-record.js';

/** The gate's worktrees: `<TMPDIR>/helix-gate-<pid>-<random>`; the pid tells a later gate whether its owner is gone. */
const WORKTREE_PREFIX = 'helix-gate-';

const lastLine = (text: string) => text.split('\n').filter((l) => l.trim()).pop() ?? '';

/**
 * How long the verify command gets between SIGTERM and SIGKILL when the gate is stopped: helix waits
 * for the gate's answer before DDx hears `helix stop`, all within the stop's 10 s (docs/contract/cli.md).
 */
const STOPPED_VERIFY_GRACE_MS = 2000;

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
  // a signal (helix stopping the `ddx try`: core/gate.ts TryStop) stops the verify, as it stops a run's calls
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

/** The gate's pid where helix looks for it (core/gate.ts gatePidPath); best effort: without it helix kills the ddx try outright on a stop. */
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
  removeLeftWorktrees(root);
  let worktree: string;
  try {
    worktree = mkdtempSync(join(tmpdir(), `${WORKTREE_PREFIX}${process.pid}-`));
  } catch (error) {
    return gateInfra(bead, diffHead, `no folder for its worktree: ${(error as Error).message}`);
  }
  try {
    const added = await addGateWorktree(root, worktree, diffHead);
    if (!added.ok) return gateInfra(bead, diffHead, `git worktree add ${diffHead.slice(0, 12)} failed: ${lastLine(added.err)}`);
    linkDependencies(root, worktree);
    if (signal.aborted) return gateStopped(bead, diffHead);
    // the verify call as an attempt's is made (agent-call.ts), its lines and log block left out: DDx keeps the gate's output
    const calls = { output: SILENT_OUTPUT, env, signal, now: () => new Date(), totals: new CallTotals(), killGraceMs: STOPPED_VERIFY_GRACE_MS };
    const run = await callAgent(calls, { file: 'sh', args: ['-c', command], cwd: worktree, env: { PWD: worktree } }, { label: 'verify', purpose: 'verify' });
    return verdictOfRun(bead, diffHead, command, run);
  } catch (error) {
    if (error instanceof RunInterrupted) return gateStopped(bead, diffHead);
    return gateInfra(bead, diffHead, (error as Error).message);
  } finally {
    removeGateWorktree(root, worktree);
  }
}

/** How often `git worktree add` is tried when another worktree's metadata was half written. */
const WORKTREE_ADD_TRIES = 5;

/**
 * `git worktree add --detach`, tried again while it fails on another worktree being made at the same
 * moment — two gates at once, or DDx's own attempt worktrees (`fatal: failed to read
 * .git/worktrees/<name>/commondir`: found by `npm run soak -- --kills` at --jobs 3; an infra verdict
 * there would let DDx land the attempt unverified).
 */
async function addGateWorktree(root: string, worktree: string, diffHead: string): Promise<{ ok: boolean; err: string }> {
  for (let attempt = 1; ; attempt++) {
    const added = addWorktree(root, worktree, diffHead);
    if (added.ok || attempt === WORKTREE_ADD_TRIES || !added.err.includes('.git/worktrees/')) return added;
    rmSync(worktree, { recursive: true, force: true });
    mkdirSync(worktree);
    await delay(50 * attempt);
  }
}

/** Symlinks each installed-dependency folder of the project root into the gate's worktree (core/gate.ts decides which). */
function linkDependencies(root: string, worktree: string): void {
  const isFolder = (path: string) => {
    try {
      return statSync(path).isDirectory();
    } catch {
      return false;
    }
  };
  const project = { isIgnoredFolder: (name: string) => isFolder(join(root, name)) && isIgnored(root, name) };
  const tree = { has: (name: string) => existsSync(join(worktree, name)) };
  for (const name of dependencyLinks(project, tree)) symlinkSync(join(root, name), join(worktree, name), 'dir');
}

function removeGateWorktree(root: string, worktree: string): void {
  if (removeWorktree(root, worktree)) return;
  rmSync(worktree, { recursive: true, force: true });
  pruneWorktrees(root);
}

/** Worktrees of gates that were killed (their pid is gone) before they could remove them. */
function removeLeftWorktrees(root: string): void {
  for (const path of worktreePaths(root) ?? []) {
    const owner = new RegExp(`^${WORKTREE_PREFIX}(\\d+)-`).exec(basename(path))?.[1];
    if (owner && Number(owner) !== process.pid && !isPidAlive(Number(owner))) removeGateWorktree(root, path);
  }
}
