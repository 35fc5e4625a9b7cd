// Small builders for the supervisor's unit tests: beads, settings, and a scripted world that
// answers the state machine's effects the way the runner would, so a whole run can be played in
// memory and its effects inspected.
import type { NextAction } from '../../../src/agents/index.js';
import type { Bead } from '../../../src/tracker/index.js';
import { bead } from '../../helpers/bead.js';
import { readyBeads } from '../../../src/tracker/index.js';
import type { AttemptOutcome, MemberVerdict } from '../../../src/supervisor/core/outcome.js';
import {
  type DrainAction,
  type Effect,
  type Event,
  type MachineState,
  type ReviewOutcome,
  assertOneNextEvent,
  initialState,
  step,
} from '../../../src/supervisor/core/machine.js';
import { type SupervisorSettings, defaultSettings } from '../../../src/supervisor/core/policy.js';

/** The run's defaults (an empty environment), with the periodic and post-implementation reviews off. */
export function settings(over: Partial<SupervisorSettings> = {}): SupervisorSettings {
  return { ...defaultSettings({}), reviewEvery: 0, autoReview: false, ...over };
}

/** What the scripted world answers for one attempt at a bead. */
export type Scripted = AttemptOutcome & { durationSec?: number; tokens?: number; /** batch members and how each ended */ batch?: MemberVerdict[] };

export interface World {
  beads: Bead[];
  /** Attempt outcomes per bead id, used in order; an empty list means "completed". */
  attempts?: Record<string, Scripted[]>;
  /** NEXT_ACTION answers of check, in order; undefined = unparseable. Runs out → STOP. */
  checks?: Array<NextAction | undefined>;
  /** Results of drain/periodic actions, in order; runs out → ok. */
  actions?: boolean[];
  /** ready counts before/after orphan recovery on the BUILD breaker (default: nothing freed). */
  breakerRecovery?: { readyBefore: number; readyAfter: number };
  /** How each review reads, in order; runs out → clean. */
  reviews?: ReviewOutcome[];
}

export interface Played {
  state: MachineState;
  effects: Effect[];
  events: Event[];
  /** Only the effects of one type, in order. */
  of<T extends Effect['type']>(type: T): Array<Extract<Effect, { type: T }>>;
  /** The text of every `say` and `stop` message, in order. */
  lines: string[];
}

/**
 * Plays a run through `step`, answering each effect like the runner does: completed attempts
 * close the bead, epics close when asked, checks answer from the script. Stops at the machine's
 * stop effect (or after `limit` steps, which fails the test).
 */
export function play(world: World, config: SupervisorSettings = settings(), limit = 500): Played {
  const beads = world.beads.map((b) => ({ ...b }));
  const byId = new Map(beads.map((b) => [b.id, b]));
  const attempts = Object.fromEntries(Object.entries(world.attempts ?? {}).map(([k, v]) => [k, [...v]]));
  const checks = [...(world.checks ?? [])];
  const actions = [...(world.actions ?? [])];
  let state = initialState();
  const effects: Effect[] = [];
  const events: Event[] = [];
  let queue: Event[] = [{ type: 'started' }];
  for (let i = 0; i < limit && queue.length > 0; i++) {
    const event = queue.shift() as Event;
    events.push(event);
    const next = step(state, event, config);
    // as the runner does: a step that asks for two next events is a bug in the machine
    assertOneNextEvent(event, next.effects);
    state = next.state;
    for (const effect of next.effects) {
      effects.push(effect);
      const answer = answerEffect(effect);
      if (answer) queue.push(answer);
    }
    if (state.stop) break;
  }
  if (!state.stop) throw new Error(`the run did not stop within ${limit} steps`);
  const lines = effects.flatMap((e) => (e.type === 'say' ? [e.text] : e.type === 'stop' && e.message ? [e.message] : []));
  return {
    state,
    effects,
    events,
    lines,
    of: <T extends Effect['type']>(type: T) => effects.filter((e): e is Extract<Effect, { type: T }> => e.type === type),
  };

  function answerEffect(effect: Effect): Event | undefined {
    switch (effect.type) {
      case 'recoverOrphans':
        if (effect.why === 'build-breaker') {
          return { type: 'orphansRecovered', why: effect.why, ...(world.breakerRecovery ?? { readyBefore: 0, readyAfter: 0 }) };
        }
        return { type: 'orphansRecovered', why: effect.why, readyBefore: 0, readyAfter: 0 };
      case 'readQueue':
        return { type: 'queue', ready: readyBeads(beads, { execution: true }), beads };
      case 'attempt': {
        const scripted = attempts[effect.bead.id]?.shift() ?? { kind: 'completed', salvaged: false };
        const { durationSec = 1, tokens = 0, batch, ...outcome } = scripted;
        const target = byId.get(effect.bead.id);
        if (target && outcome.kind === 'completed') target.status = 'closed';
        for (const member of batch ?? []) {
          const closed = byId.get(member.bead.id);
          if (closed && member.outcome.kind === 'completed') closed.status = 'closed';
        }
        return { type: 'attempted', bead: effect.bead, outcome: outcome as AttemptOutcome, durationSec, tokens, ...(batch ? { batch } : {}) };
      }
      case 'closeEpic': {
        const epic = byId.get(effect.epicId);
        if (epic) epic.status = 'closed';
        return { type: 'epicClosed', epic: epic ?? bead({ id: effect.epicId, status: 'closed' }) };
      }
      case 'runCheck':
        return { type: 'checked', nextAction: checks.length > 0 ? checks.shift() : 'STOP', ok: true };
      case 'runReview':
        return { type: 'reviewed', kind: effect.kind, cycle: effect.cycle, beadId: effect.beadId, outcome: world.reviews?.shift() ?? 'clean', rc: 0 };
      case 'runAction':
        return { type: 'actionDone', action: effect.action as DrainAction, purpose: effect.purpose, ok: actions.length > 0 ? (actions.shift() as boolean) : true };
      default:
        return undefined;
    }
  }
}

export const failed = (failure: 'agent-failed' | 'no-completion', detail = 'agent exited with code 1'): Scripted => ({ kind: 'failed', failure, detail });
export const completed = (durationSec = 1, tokens = 0): Scripted => ({ kind: 'completed', salvaged: false, durationSec, tokens });
