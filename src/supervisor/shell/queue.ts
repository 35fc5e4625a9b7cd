// The queue as the loop reads it: the ready beads and epics after promoting tasks that grew
// children, `.helix/context.md` kept current for the agents, and an epic closed when the machine
// says its children are done.
import { type Bead, closeBead, readyEpics } from '../../tracker/index.js';
import type { Event } from '../core/machine.js';
import { tasksToPromote } from '../core/selection.js';
import { RUN, UPKEEP, generatedContext } from '../text/lines.js';
import { contextText, writeContext } from './context.js';
import type { RunContext } from './run-context.js';

export function readQueue(run: RunContext): Event {
  let { beads } = run.snapshot();
  if (promoteEpics(run, beads)) beads = run.snapshot().beads;
  const now = run.now();
  const elapsedMs = now.getTime() - run.startedAt.getTime();
  return { type: 'queue', ready: run.ready(beads), epics: readyEpics(beads, { now, held: run.session.store.leased(now) }), beads, elapsedMs };
}

/** Promotes tasks that gained more than one child (docs/contract/bash-interface.md §2.7 step 4); true when the file changed. */
function promoteEpics(run: RunContext, beads: Bead[]): boolean {
  const candidates = tasksToPromote(beads);
  for (const task of candidates) {
    const children = beads.filter((b) => b.parent === task.id).length;
    run.say(RUN.promoting(task.id, children));
    try {
      run.session.store.mutate((d) => d.change(task.id, (b) => { b.issue_type = 'epic'; b.updated_at = run.now().toISOString(); }));
    } catch (error) {
      run.say(RUN.promoteFailed(task.id));
      run.say(UPKEEP.promoteFailedDetail((error as Error).message));
    }
  }
  return candidates.length > 0;
}

export function refreshContext(run: RunContext): void {
  const file = writeContext(run.session.root, contextText(run));
  run.say(generatedContext(file));
}

export function closeEpic(run: RunContext, epicId: string): Event {
  try {
    return { type: 'epicClosed', epic: run.session.store.mutate((d) => closeBead(d, epicId, { now: run.now() })) };
  } catch (error) {
    run.say(UPKEEP.couldNotCloseEpic(epicId, (error as Error).message));
    return { type: 'epicCloseFailed', epicId };
  }
}
