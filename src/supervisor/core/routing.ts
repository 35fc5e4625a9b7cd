// What the run does with the check's answer when the queue drains (the NEXT_ACTION routing table of
// docs/contract/bash-interface.md §2.11, docs/contract/cli.md §6.6 where they differ) and after the
// action it routed to.
import type { NextAction } from '../../agents/trailers.js';
import type { ActionPurpose, DrainAction, Effect, Event, MachineState, Step, StopReason } from './machine-types.js';
import type { SupervisorSettings } from './policy.js';
import { line, stop } from './steps.js';
import { RUN, type Say } from '../text/lines.js';

/** The routing table of docs/contract/bash-interface.md §2.11 (docs/contract/cli.md §6.6 where they differ). */
export function routeNextAction(state: MachineState, action: NextAction | undefined, settings: SupervisorSettings): Step {
  if (!action) return stop(state, 1, 'error', RUN.noNextAction);
  const repeated = state.drainAnswers.includes(action);
  const next: MachineState = { ...state, drainAnswers: [...state.drainAnswers, action] };
  const stopAfter = (exitCode: number, reason: StopReason) => stop(next, exitCode, reason, RUN.stoppingAfter(action));
  const run = (drainAction: DrainAction, purpose: ActionPurpose, announce: Say): Step => ({
    state: next,
    effects: [line(announce), { type: 'runAction', action: drainAction, purpose }],
  });
  switch (action) {
    case 'BUILD': {
      const emptyBuilds = state.emptyBuilds + 1;
      if (emptyBuilds >= 2) {
        return { state: { ...next, emptyBuilds }, effects: [line(RUN.consecutiveBuilds(emptyBuilds)), { type: 'recoverOrphans', why: 'build-breaker' }] };
      }
      return { state: { ...next, emptyBuilds }, effects: [{ type: 'readQueue' }] };
    }
    case 'DESIGN':
    case 'POLISH': {
      // cli.md: the same answer twice with no build between stops (the Bash CLI looped).
      if (repeated) return stopAfter(0, 'completed');
      const drainAction = action === 'DESIGN' ? 'design' : 'polish';
      return run(drainAction, 'drain', RUN.drainRunning(drainAction));
    }
    case 'BACKFILL':
      if (repeated) return stopAfter(0, 'completed');
      return run('backfill', 'drain', RUN.drainRunning('backfill'));
    case 'ALIGN':
      if (settings.autoAlign && !state.alignedSinceBuild) return run('align', 'drain', RUN.drainRunning('alignment'));
      return stopAfter(0, 'completed');
    case 'WAIT':
    case 'GUIDANCE':
      return stopAfter(0, 'blocked');
    case 'STOP':
      // Align once before stopping, also when this run built nothing (docs/contract/bash-interface.md §2.11).
      if (settings.autoAlign && !state.alignedSinceBuild) return run('align', 'pre-stop', RUN.preStopAlignment);
      return stopAfter(0, 'completed');
  }
}

export function afterAction(state: MachineState, event: Extract<Event, { type: 'actionDone' }>): Step {
  const next = event.action === 'align' && event.ok ? { ...state, alignedSinceBuild: true } : state;
  const detail: Effect[] = event.detail ? [line(RUN.actionDetail(event.action, event.detail))] : [];
  switch (event.purpose) {
    case 'drain': {
      if (event.ok) return { state: next, effects: [{ type: 'runCheck' }] };
      const failedLine = event.action === 'align' ? RUN.postDrainAlignmentFailed : RUN.drainFailed(event.action);
      const stopped = stop(next, 1, 'error', failedLine);
      return { state: stopped.state, effects: [...detail, ...stopped.effects] };
    }
    case 'pre-stop': {
      // A failed pre-stop alignment is reported, and the run still stops normally (exit 0).
      const stopped = stop(next, 0, 'completed', RUN.stoppingAfter('STOP'));
      return { state: stopped.state, effects: [...(event.ok ? [] : [...detail, line(RUN.preStopAlignmentFailed)]), ...stopped.effects] };
    }
    case 'periodic': {
      if (event.ok) return { state: next, effects: [{ type: 'readQueue' }] };
      const stopped = stop(next, 1, 'error');
      return { state: stopped.state, effects: [...detail, line(RUN.periodicAlignmentFailed(state.completed)), ...stopped.effects] };
    }
  }
}
