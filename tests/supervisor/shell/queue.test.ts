// The queue as the loop reads it (shell/queue.ts), through a real RunContext on a real tracker: a
// task that grew children promoted to an epic before the queue is read (a refused write said, the
// queue read anyway), beads a live DDx lease holds left out of the ready list, `.helix/context.md`
// written, and an epic closed — or its close refused by the tracker (an open blocker), said and
// handed to the machine as a failed close.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { closeEpic, readQueue, refreshContext } from '../../../src/supervisor/shell/queue.js';
import { bead } from '../../helpers/bead.js';
import { runWorld } from './run-world.js';

describe('readQueue', () => {
  it('promotes a task that gained more than one child to an epic, then reads the queue', async () => {
    const w = await runWorld({ beads: [bead({ id: 'hx-task' }), bead({ id: 'hx-c1', parent: 'hx-task' }), bead({ id: 'hx-c2', parent: 'hx-task' }), bead({ id: 'hx-alone' })] });
    const event = readQueue(w.run);
    expect(w.project.bead('hx-task').issue_type).toBe('epic');
    expect(w.stderr).toContain('helix: promoting hx-task to epic (agent created 2 children)');
    expect(event.type).toBe('queue');
    if (event.type !== 'queue') return;
    expect(event.beads.find((b) => b.id === 'hx-task')?.issue_type).toBe('epic');
    expect(event.ready.map((b) => b.id)).toEqual(['hx-c1', 'hx-c2', 'hx-alone']);
    expect(event.epics?.map((b) => b.id)).toEqual(['hx-task']);
  });

  it('a promotion the tracker refuses is said, and the queue is read as it is', async () => {
    const w = await runWorld({ beads: [bead({ id: 'hx-task' }), bead({ id: 'hx-c1', parent: 'hx-task' }), bead({ id: 'hx-c2', parent: 'hx-task' })] });
    appendFileSync(w.run.store.file, '{damaged\n');
    const event = readQueue(w.run);
    expect(w.stderr).toContain('helix: failed to promote hx-task to epic');
    expect(w.stderr.some((l) => l.startsWith('helix: bead: refusing to write: '))).toBe(true);
    expect(event.type === 'queue' && event.beads.find((b) => b.id === 'hx-task')?.issue_type).toBe('task');
  });

  it("leaves out a bead a live DDx worker's lease holds", async () => {
    const w = await runWorld({ beads: [bead({ id: 'hx-1' }), bead({ id: 'hx-leased' })] });
    mkdirSync(w.run.store.leaseDir, { recursive: true });
    writeFileSync(join(w.run.store.leaseDir, 'hx-leased.json'), JSON.stringify({ pid: process.pid, machine: hostname(), owner: 'ddx', updated_at: new Date().toISOString() }));
    const event = readQueue(w.run);
    expect(event.type === 'queue' && event.ready.map((b) => b.id)).toEqual(['hx-1']);
  });
});

describe('refreshContext', () => {
  it('writes .helix/context.md for the agents and says where', async () => {
    const w = await runWorld({ beads: [bead({ id: 'hx-1' })] });
    refreshContext(w.run);
    const file = join(w.project.root, '.helix', 'context.md');
    expect(readFileSync(file, 'utf8')).toContain('Issue counts: ready=1, open=1, in-progress=0, closed=0');
    expect(w.stderr).toContain(`helix: generated context at ${file}`);
  });
});

describe('closeEpic', () => {
  it('closes an epic whose children are done', async () => {
    const w = await runWorld({ beads: [bead({ id: 'hx-epic', issue_type: 'epic' }), bead({ id: 'hx-c1', parent: 'hx-epic', status: 'closed' })] });
    const event = closeEpic(w.run, 'hx-epic');
    expect(event).toMatchObject({ type: 'epicClosed', epic: { id: 'hx-epic', status: 'closed' } });
    expect(w.project.bead('hx-epic').status).toBe('closed');
  });

  it('a close the tracker refuses (an open blocker) is said, and handed on as a failed close', async () => {
    const w = await runWorld({ beads: [bead({ id: 'hx-blocker' }), bead({ id: 'hx-epic', issue_type: 'epic', deps: ['hx-blocker'] })] });
    expect(closeEpic(w.run, 'hx-epic')).toEqual({ type: 'epicCloseFailed', epicId: 'hx-epic' });
    expect(w.project.bead('hx-epic').status).toBe('open');
    expect(w.stderr).toEqual([expect.stringMatching(/^helix: could not close epic hx-epic: /)]);
  });
});
