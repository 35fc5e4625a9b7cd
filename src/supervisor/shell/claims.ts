// The claims this run holds (bead id → claim token): the primary and its batch, from the claim
// until the attempt is settled. Every exit path releases them (an interrupt, an error, the
// settlement itself); a claim re-issued to another worker meanwhile is left alone, since only
// the token that took it can release it.
import { isHelixError } from '../../errors.js';
import { type Bead, type Fingerprint, type Snapshot, appendNote, claimBead, closeBead, fingerprintOf, readyBeads, reopenBead, unclaimBead } from '../../tracker/index.js';
import { type TrackerOp, verifyCommandOf } from '../core/judge.js';
import { batchFor } from '../core/selection.js';
import { UPKEEP } from '../text/lines.js';
import type { BuildPath } from '../core/dispatch.js';
import { type BeadWrites, editNotes, reopen } from './bead-writes.js';

/** What the claims need of the run: the tracker, the clock, a line, the ready read and the session's facts. */
export interface ClaimPorts extends BeadWrites {
  snapshot(): Snapshot;
  /** Execution-ready beads (live DDx leases left out). */
  ready(beads: Bead[]): Bead[];
  env: NodeJS.ProcessEnv;
  buildPath: BuildPath;
  /** Beads this run has skipped (never batched). */
  skipped(): Set<string>;
}

/** A bead claimed for an attempt: as re-read before the claim, with its fingerprint and verify command. */
export interface ClaimedBead {
  bead: Bead;
  /** Fingerprint at the re-read (for a batch member: under the claim's lock). */
  before: Fingerprint;
  verifyCommand: string | undefined;
}

/** The primary's claim, with the queue read with it (for the prompt's context and the salvage count). */
export type ClaimedPrimary = ClaimedBead & { queue: Bead[] };

export class HeldClaims {
  private readonly held = new Map<string, string>();

  constructor(private readonly run: ClaimPorts) {}

  get size(): number {
    return this.held.size;
  }

  has(id: string): boolean {
    return this.held.has(id);
  }

  /** Each held claim and its token. */
  entries(): IterableIterator<[string, string]> {
    return this.held.entries();
  }

  /**
   * Re-reads the selected bead just before claiming it (another session may have refined or taken
   * it) and claims it — except on `ddx try`, where DDx takes the claim itself (a claim of ours
   * would make it refuse the bead). The verify command is taken now: text the agent writes during
   * the attempt is never run.
   */
  claimSelected(selected: Bead): ClaimedPrimary | { passedOver: string } {
    const { run } = this;
    const current = run.snapshot();
    const bead = current.byId.get(selected.id);
    if (!bead || !run.ready(current.beads).some((b) => b.id === selected.id)) return { passedOver: 'no longer open and ready' };
    const before = fingerprintOf(bead, run.now());
    if (run.buildPath !== 'try') {
      try {
        const claimed = run.store.mutate((d) => claimBead(d, bead.id, { pid: process.pid, now: run.now(), leaseDir: run.store.leaseDir }));
        this.held.set(bead.id, String(claimed['claim-token']));
      } catch (error) {
        if (isHelixError(error) && error.kind === 'conflict') return { passedOver: error.message };
        throw error;
      }
    }
    return { bead, before, verifyCommand: verifyCommandOf(bead, run.env), queue: current.beads };
  }

  /**
   * Claims the related ready beads batched with `primary` (direct prompting only) with this run's
   * pid. Each is re-read under the lock just before its claim; one no longer open and ready drops
   * out of the batch. Batching is optional: if the write fails the primary goes alone.
   */
  claimBatch(primary: Bead, ready: Bead[]): ClaimedBead[] {
    const { run } = this;
    const { store } = run;
    const candidates = batchFor(primary, ready, run.skipped()).slice(1);
    if (candidates.length === 0) return [];
    const now = run.now();
    let claimed: Array<ClaimedBead & { token: string }>;
    try {
      claimed = store.mutate((d) => {
        const readyNow = new Set(readyBeads(d.beads, { execution: true, now, held: store.leased(now) }).map((b) => b.id));
        const out: Array<ClaimedBead & { token: string }> = [];
        for (const candidate of candidates) {
          const current = d.get(candidate.id);
          if (!current || !readyNow.has(candidate.id)) continue;
          const member = { before: fingerprintOf(current, now), verifyCommand: verifyCommandOf(current, run.env) };
          const bead = claimBead(d, candidate.id, { pid: process.pid, now, leaseDir: store.leaseDir });
          out.push({ ...member, bead: { ...bead }, token: String(bead['claim-token']) });
        }
        return out;
      });
    } catch (error) {
      run.say(UPKEEP.batchNotClaimed(primary.id, (error as Error).message));
      return [];
    }
    for (const member of claimed) this.held.set(member.bead.id, member.token);
    const dropped = candidates.filter((c) => !claimed.some((m) => m.bead.id === c.id)).map((c) => c.id);
    if (claimed.length > 0) run.say(UPKEEP.batchClaimed(claimed.map((m) => m.bead.id), primary.id));
    if (dropped.length > 0) run.say(UPKEEP.batchLeftOut(dropped));
    return claimed.map(({ token: _token, ...member }) => member);
  }

  /** Releases one held claim with its token. */
  release(id: string): boolean {
    const token = this.held.get(id);
    if (token === undefined) return false;
    this.held.delete(id);
    try {
      this.run.store.mutate((d) => unclaimBead(d, id, { token }));
      this.run.say(UPKEEP.released(id));
      return true;
    } catch (error) {
      this.run.say(UPKEEP.couldNotRelease(id, (error as Error).message));
      return false;
    }
  }

  /**
   * Releases every claim this run holds (interrupts and unexpected errors); returns the ids
   * released. A held bead that is closed was closed by the agent and its verification never
   * finished: completed means closed *and* verified, so it is reopened, saying why.
   */
  releaseAll(): string[] {
    const { run } = this;
    return [...this.held.keys()].filter((id) => {
      if (run.snapshot().byId.get(id)?.status !== 'closed') return this.release(id);
      this.held.delete(id);
      try {
        // reopened and unclaimed: not left assigned to helix either
        run.store.mutate((d) => {
          reopenBead(d, id, { reason: 'closed by the agent, but the run was interrupted before verification finished', now: run.now() });
          unclaimBead(d, id, { now: run.now() });
        });
        return true;
      } catch (error) {
        run.say(UPKEEP.couldNotReopen(id, (error as Error).message));
        return false;
      }
    });
  }

  /** helix's own close with the held token (throws when the tracker refuses it). */
  close(op: Extract<TrackerOp, { op: 'close' }>): void {
    this.run.store.mutate((d) => closeBead(d, op.id, { token: this.held.get(op.id), commit: op.commit, session: op.session, now: this.run.now() }));
  }

  /** Performs a settlement's other steps: release (with a note on why), reopen, stop holding. */
  apply(op: Exclude<TrackerOp, { op: 'close' }>): void {
    const { run } = this;
    if (op.op === 'release') {
      this.release(op.id);
      const note = op.note;
      if (note) editNotes(run, op.id, (notes) => appendNote(notes, `ATTEMPT FAILED [${run.now().toISOString()}]: ${note}`));
    } else if (op.op === 'reopen') reopen(run, op.id, op.reason);
    else this.held.delete(op.id);
  }
}
