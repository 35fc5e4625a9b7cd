// The run's small bead writes (shell/bead-writes.ts) on a real tracker file: notes, a reopen, the
// `ddx try` notes block and run tag, DDx's dead claim released after the attempt, a park and its
// growing cool-down, DDx's park undone. A write the tracker refuses (a damaged line) is said in one
// line and changes nothing: none of these decides an outcome.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EventBody } from '../../../src/supervisor/core/run-events.js';
import { parkCooldownMs } from '../../../src/supervisor/core/policy.js';
import { NOTES_BEGIN } from '../../../src/supervisor/text/ddx-notes.js';
import type { Say } from '../../../src/supervisor/text/lines.js';
import {
  PARK_COUNT_KEY,
  PARK_KEY,
  TRY_RUN_KEY,
  clearTryRun,
  editNotes,
  endTryAttempt,
  markBlocked,
  parkBead,
  reopen,
  rfc3339,
  startTryAttempt,
  undoDdxPark,
} from '../../../src/supervisor/shell/bead-writes.js';
import { processTag } from '../../../src/supervisor/shell/claimer-calls.js';
import { type Bead, BeadStore } from '../../../src/tracker/index.js';
import { bead } from '../../helpers/bead.js';
import { tempDir, tempGitRepo } from '../../helpers/cli.js';

const A = 'hx-0000000a';
const NOW = new Date('2026-11-28T12:00:00Z');

function world(beads: Bead[]) {
  const root = tempGitRepo();
  mkdirSync(join(root, '.ddx'));
  writeFileSync(join(root, '.ddx', 'beads.jsonl'), beads.map((b) => `${JSON.stringify(b)}\n`).join(''));
  // DDx's leases go under TMPDIR: this test's own folder, not the machine's /tmp
  const store = new BeadStore(join(root, '.ddx'), { PATH: process.env.PATH, TMPDIR: tempDir() });
  const lines: string[] = [];
  const events: EventBody[] = [];
  const run = { store, now: () => NOW, say: (line: Say) => void lines.push(line.text), event: (body: EventBody) => void events.push(body) };
  const get = (id = A) => store.read().byId.get(id)!;
  /** A line the tracker cannot read: every write is refused until it is fixed. */
  const damage = () => appendFileSync(store.file, '{not json\n');
  return { root, store, run, lines, events, get, damage };
}

/** The pid of a process that has ended (ours, reaped). */
async function deadPid(): Promise<number> {
  const child = spawn('true');
  await once(child, 'exit');
  return child.pid!;
}

describe('notes and reopen', () => {
  it('editNotes rewrites the notes under the lock; a refused write is one line and the file is unchanged', () => {
    const w = world([bead({ id: A, notes: 'first' })]);
    editNotes(w.run, A, (notes) => `${notes}\nsecond`);
    expect(w.get().notes).toBe('first\nsecond');
    w.damage();
    const before = readFileSync(w.store.file, 'utf8');
    editNotes(w.run, A, () => 'lost');
    expect(readFileSync(w.store.file, 'utf8')).toBe(before);
    expect(w.lines).toEqual([expect.stringMatching(new RegExp(`^helix: could not update the notes of ${A}: bead: refusing to write: `))]);
  });

  it('reopen reopens a closed bead with its reason and leaves an open one as it is', () => {
    const w = world([bead({ id: A, status: 'closed', closed_at: '2026-11-28T11:00:00Z' }), bead({ id: 'hx-open' })]);
    reopen(w.run, A, 'verification failed: npm test exited 1');
    expect(w.get()).toMatchObject({ status: 'open' });
    expect(String(w.get().notes)).toContain('verification failed: npm test exited 1');
    const open = w.get('hx-open');
    reopen(w.run, 'hx-open', 'never');
    expect(w.get('hx-open')).toEqual(open);
  });
});

describe('a `ddx try` attempt on the bead', () => {
  it("puts helix's notes block and the run's tag on the bead; after it the block goes and the tag stays until the attempt is settled", () => {
    const w = world([bead({ id: A, notes: 'the bead\'s own notes' })]);
    startTryAttempt(w.run, A, `${NOTES_BEGIN}\nfollow the action\n--- helix: end of context ---`);
    expect(String(w.get().notes).startsWith(`the bead's own notes\n\n${NOTES_BEGIN}\nfollow the action`)).toBe(true);
    expect(w.get()[TRY_RUN_KEY]).toBe(processTag());
    endTryAttempt(w.run, A);
    expect(w.get().notes).toBe("the bead's own notes");
    expect(w.get()[TRY_RUN_KEY]).toBe(processTag());
    clearTryRun(w.run, A);
    expect(w.get()[TRY_RUN_KEY]).toBeUndefined();
    expect(w.lines).toEqual([]);
  });

  it("releases DDx's claim when its lease names a ddx that is gone, and keeps it while that ddx runs", async () => {
    const claimed = { status: 'in_progress', owner: 'ddx' } as const;
    const w = world([bead({ id: A, ...claimed }), bead({ id: 'hx-live', ...claimed })]);
    const lease = (id: string, pid: number) => {
      mkdirSync(w.store.leaseDir, { recursive: true });
      writeFileSync(join(w.store.leaseDir, `${id}.json`), JSON.stringify({ pid, machine: hostname(), updated_at: NOW.toISOString() }));
    };
    const dead = await deadPid();
    lease(A, dead);
    lease('hx-live', process.pid);
    endTryAttempt(w.run, A);
    endTryAttempt(w.run, 'hx-live');
    expect(w.get()).toMatchObject({ status: 'open' });
    expect(w.get().owner).toBeUndefined();
    expect(existsSync(join(w.store.leaseDir, `${A}.json`))).toBe(false);
    expect(w.get('hx-live')).toMatchObject({ status: 'in_progress', owner: 'ddx' });
    expect(existsSync(join(w.store.leaseDir, 'hx-live.json'))).toBe(true);
    expect(w.lines).toEqual([expect.stringContaining(A)]);
    expect(w.lines[0]).toContain(String(dead));
  });
});

describe('parks', () => {
  it('each park of the same bead doubles its cool-down, and says and records it', () => {
    const w = world([bead({ id: A })]);
    parkBead(w.run, A, 3);
    const first = rfc3339(new Date(NOW.getTime() + parkCooldownMs(0)));
    expect(w.get()).toMatchObject({ [PARK_KEY]: first, [PARK_COUNT_KEY]: 1 });
    parkBead(w.run, A, 3);
    const second = rfc3339(new Date(NOW.getTime() + parkCooldownMs(1)));
    expect(w.get()).toMatchObject({ [PARK_KEY]: second, [PARK_COUNT_KEY]: 2 });
    expect(parkCooldownMs(1)).toBe(2 * parkCooldownMs(0));
    expect(w.events).toEqual([{ type: 'park', bead: A, until: first, attempts: 3 }, { type: 'park', bead: A, until: second, attempts: 3 }]);
    expect(w.lines).toEqual([`helix: parked ${A} until ${first} (work-retry-after; \`helix tracker unpark ${A}\` clears it)`, expect.stringContaining(second)]);
  });

  it("undoes the park DDx set on an attempt that was not the bead's fault, back to what it was, with DDx's cooldown-cleared event", () => {
    const before = bead({ id: A });
    const w = world([{ ...before, [PARK_KEY]: '2026-11-28T13:00:00Z', 'work-last-status': 'execution_failed', 'work-last-detail': 'rate limit' }]);
    undoDdxPark(w.run, A, before, 'a usage limit, not the work');
    const after = w.get();
    expect(after[PARK_KEY]).toBeUndefined();
    expect(after['work-last-status']).toBeUndefined();
    expect(after['work-last-detail']).toBeUndefined();
    expect(after.events).toEqual([{ kind: 'cooldown-cleared', summary: 'helix: a usage limit, not the work', actor: 'helix', source: 'helix run', created_at: NOW.toISOString() }]);
  });

  it('a park that was there before the attempt stays', () => {
    const parked = { ...bead({ id: A }), [PARK_KEY]: '2026-11-29T00:00:00Z' };
    const w = world([parked]);
    undoDdxPark(w.run, A, parked, 'a usage limit, not the work');
    expect(w.get()).toEqual(parked);
  });
});

describe('markBlocked', () => {
  it('labels a skipped bead helix and blocked and notes why, once', () => {
    const w = world([bead({ id: A, labels: ['area:x'] })]);
    markBlocked(w.run, A, 'failed 3 times');
    markBlocked(w.run, A, 'failed 3 times');
    expect(w.get().labels).toEqual(['area:x', 'helix', 'blocked']);
    expect(String(w.get().notes).match(/failed 3 times/g)).toHaveLength(1);
  });
});
