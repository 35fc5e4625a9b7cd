// Closing and reopening. close refuses while a dependency of any type is open (unless forced), so
// the tracker never records work as done before what it depends on (DDx rejectIfUnclosedBlockingDeps).
// Both follow DDx's lifecycle: close is DDx's manual close (open, in_progress, blocked or proposed
// → closed; a cancelled bead cannot be closed), reopen is DDx's manual reopen (closed → open; a
// cancelled bead stays cancelled).
import { HelixError } from '../errors.js';
import { type Bead, CLAIM_KEYS, blockingDependencyIds, nowIso } from './bead.js';
import { assertToken } from './claim.js';
import { assertTransition } from './lifecycle.js';
import type { Draft } from './bead-store.js';

export interface CloseOptions {
  force?: boolean;
  session?: string;
  commit?: string;
  token?: string;
  now?: Date;
}

/**
 * The one guard of every way to close a bead (`close`, `update --status closed`, `--set
 * status=closed`): refuses (exit 9) while a `blocks` dependency is not closed, unless forced.
 */
export function assertNoOpenBlockers(draft: Draft, bead: Bead, force: boolean | undefined): void {
  const open = blockingDependencyIds(bead).filter((dep) => draft.get(dep)?.status !== 'closed');
  if (open.length > 0 && !force) {
    throw new HelixError('openDependencies', `bead: cannot close ${bead.id}: blocked by open dependencies: ${open.join(', ')} (use --force to override)`);
  }
}

export function closeBead(draft: Draft, id: string, options: CloseOptions = {}): Bead {
  const bead = draft.require(id);
  assertToken(bead, options.token);
  assertTransition(id, bead.status, 'closed', { manualClose: true });
  assertNoOpenBlockers(draft, bead, options.force);
  const stamp = nowIso(options.now);
  return draft.change(id, (b) => {
    b.status = 'closed';
    for (const key of CLAIM_KEYS) delete b[key];
    if (options.session) b.session_id = options.session;
    if (options.commit) b.closing_commit_sha = options.commit;
    b.closed_at = stamp;
    b.updated_at = stamp;
  });
}

export interface ReopenOptions {
  reason?: string;
  /** `--append-notes`: text appended to the notes as DDx does (a blank line between). */
  appendNotes?: string;
  now?: Date;
}

export function reopenBead(draft: Draft, id: string, options: ReopenOptions = {}): Bead {
  const bead = draft.require(id);
  assertTransition(id, bead.status, 'open', { manualReopen: true });
  const stamp = nowIso(options.now);
  return draft.change(id, (b) => {
    b.status = 'open';
    for (const key of CLAIM_KEYS) delete b[key];
    delete b.owner;
    delete b.closed_at;
    if (options.reason) b.notes = appendNote(b.notes, `REOPENED [${stamp}]: ${options.reason}`);
    if (options.appendNotes) {
      const notes = typeof b.notes === 'string' ? b.notes : '';
      b.notes = notes ? `${notes}\n\n${options.appendNotes}` : options.appendNotes;
    }
    b.updated_at = stamp;
  });
}

/** Appends a note line unless the same text is already there (retries must not repeat notes). */
export function appendNote(notes: unknown, line: string): string {
  const existing = typeof notes === 'string' ? notes : '';
  if (existing.split('\n').includes(line)) return existing;
  return existing ? `${existing}\n${line}` : line;
}
