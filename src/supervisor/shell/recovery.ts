// Orphan recovery as the loop performs it (docs/contract/bash-interface.md §3, docs/contract/cli.md
// §7): at the start, what an earlier run left half done — a bead closed but never verified, a bead
// DDx landed but never closed, helix's notes block from a `ddx try` — is put right first; then the
// tracker releases stale claims (tracker/recover-orphans.ts), and the memories a crashed attempt
// injected hear that they did not help a verified task.
import { type Bead, closeBead, orphanThresholdSec, recoverOrphanedClaims, releaseDeadDdxClaim, timeOf } from '../../tracker/index.js';
import { verifyCommandOf } from '../core/judge.js';
import type { Event } from '../core/machine.js';
import { verificationOf } from '../core/verification.js';
import { hasNotesBlock, withoutNotesBlock } from '../text/ddx-notes.js';
import { GATE, ORPHANS, UPKEEP } from '../text/lines.js';
import { callAgent } from './agent-call.js';
import { TRY_RUN_KEY, clearTryRun, editNotes, reopen } from './bead-writes.js';
import type { RunContext } from './run-context.js';
import { claimerCallsGone, tagGone } from './claimer-calls.js';
import { dropGateRecord, readGateRecord } from './gate-check.js';
import { onBranch } from './git.js';
import type { UnfinishedAttempt } from './run-state.js';

export type RecoveryReason = 'start' | 'failure' | 'build-breaker';

/** `unfinished`: the attempt an earlier run died in the middle of (settled at the start only). */
export async function recoverOrphans(run: RunContext, why: RecoveryReason, unfinished: UnfinishedAttempt | undefined): Promise<Event> {
  if (why === 'start') {
    if (unfinished) reopenUnverified(run, unfinished);
    // a run that died or was stopped during `ddx try` left a bead DDx landed but did not close, DDx's
    // claim, its notes block, or a bead DDx closed that it never verified
    await closeLandedTries(run);
    releaseDeadDdxAttempts(run);
    await verifyLandedTries(run);
    for (const bead of run.snapshot().beads.filter((b) => hasNotesBlock(b.notes))) editNotes(run, bead.id, withoutNotesBlock);
  }
  const readyBefore = run.readyCount();
  const recovered = recoverOrphanedClaims(run.session.store, run.now(), orphanThresholdSec(run.session.env), (event) => run.say(ORPHANS.of(event)), claimerCallsGone);
  // A crashed attempt's injected memories did not help a verified task: feed that back once.
  const { memory } = run.session;
  if (memory) {
    for (const orphan of recovered.filter((o) => o.injected.length > 0)) {
      try {
        await memory.feedback({ bead: orphan.bead, injected: orphan.injected, verified: false, output: '' });
        run.say(UPKEEP.memoriesFedBack(orphan.injected.length, orphan.bead.id));
      } catch (error) {
        run.say(UPKEEP.memoryFeedbackSkipped((error as Error).message));
      }
    }
  }
  const readyAfter = recovered.length > 0 ? run.readyCount() : readyBefore;
  return { type: 'orphansRecovered', why, readyBefore, readyAfter };
}

/**
 * A bead closed during an attempt whose run died before verifying it (SIGKILL in the middle of
 * verification) was never completed: completed means closed *and* verified. Reopened, saying so.
 * Its claim, if it still has one, is the orphan recovery's.
 */
function reopenUnverified(run: RunContext, unfinished: UnfinishedAttempt): void {
  const bead = run.snapshot().byId.get(unfinished.id);
  // an attempt through `ddx try` is marked on the bead itself, and verified now (verifyLandedTries)
  if (bead?.[TRY_RUN_KEY] !== undefined) return;
  const closedAt = bead ? (timeOf(bead.closed_at) ?? timeOf(bead.updated_at)) : undefined;
  if (bead?.status !== 'closed' || closedAt === undefined || closedAt < unfinished.since) return;
  reopen(run, unfinished.id, `closed during an attempt that was never verified: its run (pid ${unfinished.pid}) ended first`);
  run.say(UPKEEP.reopenedUnverified(unfinished.id, unfinished.pid));
}

/**
 * On `ddx try` the claim is DDx's (current DDx: in_progress under owner `ddx`, and a lease file
 * naming the `ddx` process). A run killed during the attempt takes that process with it (helix's
 * watchdog) and leaves the bead in progress for good: DDx lists no in_progress bead as ready, nor
 * does helix. The bead names the run whose attempt it was (TRY_RUN_KEY); once nothing of that run
 * is left, DDx's claim is released as DDx's own Release does, so this run can build the bead at
 * once (docs/ddx.md, measured on the real binary). While a process of that run still runs, the
 * bead is left as it is.
 */
function releaseDeadDdxAttempts(run: RunContext): void {
  const { store } = run.session;
  for (const bead of deadTryRuns(run).filter((b) => b.status !== 'closed')) {
    try {
      const released = store.mutate((d) => {
        const result = releaseDeadDdxClaim(d, bead.id, store.leaseDir);
        if (d.get(bead.id)?.[TRY_RUN_KEY] !== undefined) d.change(bead.id, (b) => { delete b[TRY_RUN_KEY]; });
        return result;
      });
      if (released) run.say(ORPHANS.ddxAttemptReleased(bead.id, released.pid));
    } catch (error) {
      run.say(UPKEEP.couldNotRelease(bead.id, (error as Error).message));
    }
  }
}

/**
 * A bead DDx landed after helix's gate passed it, whose `ddx try` was killed or stopped between its
 * land and its close: the gate's record of that result is still there (the run that would take it
 * ended first) and its commit is on the branch. DDx's own dangling-success recovery misses it once
 * the attempt's result.json was rewritten after the land (ae663ca012 try.go: outcome `merged`; the
 * close comes later, in the loop), so the bead — still DDx's claim, or released by the stopped run —
 * would be built again. Closed on that commit instead, as DDx's CloseWithEvidence would, with DDx's
 * dead claim released; verifyLandedTries then verifies it after landing like any bead DDx closed
 * whose run ended first.
 */
async function closeLandedTries(run: RunContext): Promise<void> {
  const { root, store } = run.session;
  for (const bead of deadTryRuns(run).filter((b) => b.status === 'in_progress' || b.status === 'open')) {
    const record = readGateRecord(root, bead.id);
    if (!record || record.status === 'block' || !(await onBranch(root, record.diff_head))) continue;
    try {
      const closed = store.mutate((d) => {
        // DDx's claim is released first, as its Release does; one whose ddx still runs is not ours to judge
        if (d.get(bead.id)?.status === 'in_progress' && !releaseDeadDdxClaim(d, bead.id, store.leaseDir)) return false;
        closeBead(d, bead.id, { commit: record.diff_head, now: run.now() });
        return true;
      });
      if (!closed) continue;
      dropGateRecord(root, bead.id);
      run.say(ORPHANS.landedTryClosed(bead.id, record.diff_head));
    } catch (error) {
      // left to releaseDeadDdxAttempts: built again rather than closed over an open blocker
      run.say(UPKEEP.couldNotClose(bead.id, (error as Error).message));
    }
  }
}

/** The lease a killed `ddx try` left on a bead DDx closed (DDx removes it after the close): no claim, a file left behind. */
function removeDeadLease(run: RunContext, id: string): void {
  const { store } = run.session;
  try {
    store.mutate((d) => releaseDeadDdxClaim(d, id, store.leaseDir, undefined, { needLease: true }));
  } catch (error) {
    run.say(UPKEEP.couldNotRelease(id, (error as Error).message));
  }
}

/** Beads that name a run whose `ddx try` was not settled (bead-writes.ts TRY_RUN_KEY), of which nothing is left. */
function deadTryRuns(run: RunContext): Bead[] {
  return run.snapshot().beads.filter((b) => typeof b[TRY_RUN_KEY] === 'string' && tagGone(b[TRY_RUN_KEY] as string));
}

/**
 * A bead DDx landed and closed after helix's gate passed it, whose run was stopped or killed before
 * helix verified it after landing (DDx's run-state overwrote that run's record; the bead's tag
 * did not go). Verified now, in the project root, as after landing: passed, it stays closed —
 * rebuilding it would land the same work twice; refused, it is reopened with the reason and the
 * commit stays, as after any verification that fails after landing.
 */
async function verifyLandedTries(run: RunContext): Promise<void> {
  for (const bead of deadTryRuns(run).filter((b) => b.status === 'closed')) {
    removeDeadLease(run, bead.id);
    const command = verifyCommandOf(bead, run.session.env);
    if (command) {
      run.say(GATE.verifyingLanded(bead.id, command));
      const call = await callAgent(run.calls, { file: 'sh', args: ['-c', command], cwd: run.session.root, env: {} }, { label: 'verify', purpose: 'verify' });
      const verification = verificationOf(command, call);
      run.event({ type: 'verify', bead: bead.id, command, rc: call.exitCode, passed: verification.passed });
      if (!verification.passed) {
        reopen(run, bead.id, `verification failed after landing (its run ended before verifying it): ${verification.detail}`);
        run.say(GATE.landedRefusedLater(bead.id, verification.detail));
      }
    }
    clearTryRun(run, bead.id);
  }
}
