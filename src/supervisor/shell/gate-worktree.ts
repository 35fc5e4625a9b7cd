// `helix gate`'s verification proper (shell/gate.ts decides whether there is one): DIFF_HEAD checked
// out in a worktree of its own beside the project, the project's installed dependencies linked in
// (core/gate-decisions.ts DEPENDENCY_FOLDERS), the bead's verify command run there as an attempt's is
// (agent-call.ts), and the worktree removed — on a signal too; a worktree a killed gate left is
// removed by the next. Loaded only for a bead that has a verify command: it brings the agent runner
// (execa), which a gate with nothing to run does not pay for (issue 38: DDx runs a gate once an attempt).
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { isPidAlive } from '../../tracker/index.js';
import { type GateRecord, dependencyLinks, gateInfra, gateStopped, verdictOfRun } from '../core/gate-decisions.js';
import { CallTotals, RunInterrupted, callAgent } from './agent-call.js';
import { addWorktree, isIgnored, pruneWorktrees, removeWorktree, worktreePaths } from './git.js';
import { SILENT_OUTPUT } from './output.js';

/** The gate's worktrees: `<TMPDIR>/helix-gate-<pid>-<random>`; the pid tells a later gate whether its owner is gone. */
const WORKTREE_PREFIX = 'helix-gate-';

const lastLine = (text: string) => text.split('\n').filter((l) => l.trim()).pop() ?? '';

/**
 * How long the verify command gets between SIGTERM and SIGKILL when the gate is stopped: helix waits
 * for the gate's answer before DDx hears `helix stop`, all within the stop's 10 s (docs/contract/cli.md).
 */
const STOPPED_VERIFY_GRACE_MS = 2000;

/** Checks DIFF_HEAD out beside the project and runs `command` there; the verdict on what it printed. */
export async function verifyInWorktree(env: NodeJS.ProcessEnv, root: string, bead: string, diffHead: string, command: string, signal: AbortSignal): Promise<GateRecord> {
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

/** Symlinks each installed-dependency folder of the project root into the gate's worktree (core/gate-decisions.ts decides which). */
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
