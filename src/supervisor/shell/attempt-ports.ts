// The hub that builds an attempt's ports (attempt.ts AttemptPorts) from the run — above the
// attempt, so the run's context (run-context.ts) never names the attempt's type: each port is the
// run's own read or write, or one effect module of the shell (git.ts, gate-check.ts, try-watch.ts,
// heartbeats.ts, run-state.ts). With several slots, an attempt's events name its slot and, with
// more than one, its lines and calls name its bead (docs/contract/cli.md §6.10).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { BeadStore } from '../../tracker/index.js';
import type { EventBody } from '../core/run-events.js';
import { type Say, tagged } from '../text/lines.js';
import { type CallContext, callAgent, callQuietly } from './agent-call.js';
import type { AttemptPorts } from './attempt.js';
import type { HeldClaims } from './claims.js';
import { contextText } from './context.js';
import { gateAfterTry, prepareGate, stopTryAfterGate } from './gate-check.js';
import { changeSize, commitExists, gitHead } from './git.js';
import { startHeartbeats } from './heartbeats.js';
import type { RunContext } from './run-context.js';
import { countInRunState, readRunState } from './run-state.js';
import { watchTryPhases } from './try-watch.js';

/** Where an attempt runs in a run with several slots: its lane (1…N) and its bead. */
export interface AttemptLane {
  slot: number;
  beadId: string;
}

/** The ports of an attempt of `run`: in `lane` (the loop), or outside any (`helix build`). */
export function attemptPortsOf(run: RunContext, lane?: AttemptLane): AttemptPorts {
  const { session } = run;
  // with several slots every line an attempt prints names its bead
  const tag = lane && session.settings.jobs > 1 ? lane.beadId : undefined;
  const say = (line: Say) => run.say(tag ? tagged(line, tag) : line);
  return {
    store: session.store,
    now: run.now,
    say,
    claims: run.claims,
    snapshot: () => run.snapshot(),
    event: (body) => run.event(lane ? inSlot(body, lane.slot) : body),
    call: (invocation, info, stop) => callAgent(run.calls, invocation, tag ? { ...info, tag } : info, stop),
    persist: (extra) => run.persist(extra),
    promptPlace: () => run.promptPlace(),
    context: (queue) => contextText(run, queue),
    failures: (id) => run.state.failures[id]?.count ?? 0,
    setup: { ...session, outputMode: session.output.mode, answer: (text) => session.output.answer(text) },
    ...repositoryPorts({ root: session.root, store: session.store, now: run.now, say, claims: run.claims, calls: run.calls, ...(run.record.path ? { eventLog: run.record.path } : {}) }),
  };
}

/** What the effect ports below need: the repository, the tracker, the clock, a line, the held claims, the run's calls and its event log. */
export interface RepositoryPlace {
  root: string;
  store: BeadStore;
  now: () => Date;
  say: (line: Say) => void;
  claims: HeldClaims;
  calls: Pick<CallContext, 'env'>;
  /** The run's event log (`helix run`): `helix gate` appends its phase and verdict there. */
  eventLog?: string;
}

/** The attempt's ports onto git, the gate, DDx's sessions, run-state, the prompt file and the heartbeats. */
export function repositoryPorts(place: RepositoryPlace): Pick<AttemptPorts, 'git' | 'gate' | 'watchPhases' | 'lastBuildAttempt' | 'countDelegation' | 'writePrompt' | 'heartbeats'> {
  const { root, store } = place;
  const gateOptions = { ddx: (invocation: Parameters<typeof callQuietly>[1], timeoutSec: number) => callQuietly(place.calls, invocation, timeoutSec), ...(place.eventLog ? { events: place.eventLog } : {}) };
  return {
    git: {
      head: () => gitHead(root),
      commitExists: (sha) => commitExists(root, sha),
      changeSize: (base) => changeSize(root, base, store.file),
    },
    gate: {
      prepare: (bead, say) => prepareGate(root, bead, say, gateOptions),
      after: (beadId, result, say) => gateAfterTry(root, beadId, result, say),
      stopTry: (beadId) => stopTryAfterGate(root, beadId),
    },
    watchPhases: (beadId, since, changed) => watchTryPhases(root, beadId, since, changed),
    lastBuildAttempt: () => readRunState(store.dir)?.last_build_attempt,
    countDelegation: (counter, reason) => countInRunState(store.dir, counter, reason),
    writePrompt: (file, text) => {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    },
    heartbeats: () => startHeartbeats({ store, now: place.now, say: place.say, claims: place.claims }),
  };
}

/** An attempt's event with its slot: the lane a board and a report draw it in. */
function inSlot(body: EventBody, slot: number): EventBody {
  return body.type === 'claim' || body.type === 'phase' || body.type === 'attempt_end' ? { ...body, slot } : body;
}
