// One attempt driven through its ports (shell/attempt.ts AttemptPorts) with no agent spawned: a
// real bead file in a temp git repository, a scripted `call` that may change the tracker as an
// agent would and answers as the program would print, and a recording `say` and `event`.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentInvocation } from '../../../src/agents/index.js';
import { resolveAgentPlan } from '../../../src/agents/index.js';
import type { CallInfo, BuildPath } from '../../../src/supervisor/core/dispatch.js';
import type { EventBody } from '../../../src/supervisor/core/run-events.js';
import type { Say } from '../../../src/supervisor/text/lines.js';
import type { AgentCall } from '../../../src/supervisor/shell/agent-call.js';
import type { AttemptPorts } from '../../../src/supervisor/shell/attempt.js';
import { repositoryPorts } from '../../../src/supervisor/shell/attempt-ports.js';
import { HeldClaims } from '../../../src/supervisor/shell/claims.js';
import { type Bead, BeadStore, readyBeads } from '../../../src/tracker/index.js';
import { tempGitRepo } from '../../helpers/cli.js';

export interface ScriptedCall {
  (invocation: AgentInvocation, info: CallInfo, store: BeadStore): Partial<AgentCall> | Promise<Partial<AgentCall>>;
}

export interface AttemptWorld {
  root: string;
  store: BeadStore;
  ports: AttemptPorts;
  lines: Say[];
  events: EventBody[];
  calls: Array<{ invocation: AgentInvocation; info: CallInfo }>;
}

const now = () => new Date('2026-11-28T12:00:00Z');

/** A call's result as a program that ran would leave it; the script fills in what it printed. */
function result(partial: Partial<AgentCall>): AgentCall {
  return { exitCode: 0, output: '', stdout: '', stderr: '', answer: '', durationMs: 1, timedOut: false, aborted: false, tokens: 0, ...partial };
}

export function attemptWorld(beads: Bead[], buildPath: BuildPath, script: ScriptedCall): AttemptWorld {
  const root = tempGitRepo('helix-attempt-');
  mkdirSync(join(root, '.ddx'));
  writeFileSync(join(root, '.ddx', 'beads.jsonl'), beads.map((b) => `${JSON.stringify(b)}\n`).join(''));
  const env = { PATH: process.env.PATH ?? '' };
  const store = new BeadStore(join(root, '.ddx'), env);
  const lines: Say[] = [];
  const events: EventBody[] = [];
  const calls: AttemptWorld['calls'] = [];
  const say = (line: Say) => void lines.push(line);
  const ready = (list: Bead[]) => readyBeads(list, { execution: true, now: now() });
  const claims = new HeldClaims({ store, now, say, snapshot: () => store.read(), ready, env, buildPath, skipped: () => new Set() });
  const plan = resolveAgentPlan({ explicitAgent: 'claude', env: {}, isOnPath: () => true });
  const ports: AttemptPorts = {
    store,
    now,
    say,
    claims,
    snapshot: () => store.read(),
    event: (body) => void events.push(body),
    call: async (invocation, info) => {
      calls.push({ invocation, info });
      return result(await script(invocation, info, store));
    },
    persist: () => undefined,
    promptPlace: () => ({ root, tracker: store.file, trackerCli: 'helix tracker', env }),
    context: () => '',
    failures: () => 0,
    setup: { root, env, plan, buildPath, actionsViaDdx: false, outputMode: 'summary', answer: () => undefined },
    // git, the gate, run-state and the heartbeats as a run has them, on the temp repository
    ...repositoryPorts({ root, store, now, say, claims, calls: { env } }),
  };
  return { root, store, ports, lines, events, calls };
}
