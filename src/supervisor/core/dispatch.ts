// Which command line reaches which agent, as pure data: the build command for a bead on the
// session's build path, the command of a non-build action, and who claims and closes. Plain
// inputs (the agent plan, the DDx surface, the repository, the environment, the prompt); no
// supervisor, no files written — `helix run`, the one-shot commands and every --dry-run share it.
import { join } from 'node:path';
// The agents' own modules, not their index file: it loads the agent runner (execa), and the core
// decides without I/O (tests/supervisor/layers.test.ts).
import { type AgentChoice, type AgentPlan, agentForAction } from '../../agents/agent-choice.js';
import { type AgentInvocation, isDirectAgent, reportsCost } from '../../agents/invocation.js';
import { ddxRunInvocation, executeBeadInvocation, tryInvocation } from '../../agents/ddx-invocations.js';
import type { DdxSurfaceKind } from '../../agents/ddx-surface.js';
import { directAgentInvocation } from '../../agents/direct-invocations.js';
import { agentTimeoutSeconds } from '../../agents/timeout.js';
import { HelixError } from '../../errors.js';
import { allowsNonDefaultBranch } from './ddx-preflight.js';
import { type Say, rotation } from '../text/lines.js';
import type { ActionName, BuildOwnership } from '../text/prompts.js';

/**
 * How builds reach an agent: `execute-bead` (DDx v0.6.x runs the bead; helix claims and closes),
 * `try` (current DDx runs, claims and closes it; helix re-reads, fingerprints and verifies around
 * DDx's own claim), or `direct` (helix claims, codex/claude work, the agent closes).
 */
export type BuildPath = 'execute-bead' | 'try' | 'direct';

/** What command construction needs from a session: plain values (a Session with its env fits). */
export interface DispatchSetup {
  root: string;
  env: NodeJS.ProcessEnv;
  plan: AgentPlan;
  buildPath: BuildPath;
  /** Non-build actions go through `ddx agent run` / `ddx run` (else direct codex/claude). */
  actionsViaDdx: boolean;
  /** The DDx found on PATH; its surface decides the `run` command's form. */
  ddx?: { surface?: DdxSurfaceKind };
}

/** Where `execute-bead` reads the prompt helix wrote for a bead (the id names a file here, never a path). */
export function promptFileFor(root: string, beadId: string): string {
  return join(root, '.helix', 'prompts', `${beadId.replace(/[^A-Za-z0-9._-]/g, '_')}.md`);
}

/** The build's invocation for a bead on the session's build path (execute-bead reads promptFileFor). */
export function buildInvocation(setup: DispatchSetup, beadId: string, prompt: string): AgentInvocation {
  const choice = agentForAction(setup.plan, 'build');
  const { root } = setup;
  if (setup.buildPath === 'execute-bead') {
    return executeBeadInvocation({ root, beadId, harness: choice.agent, model: choice.model, effort: choice.effort, promptFile: promptFileFor(root, beadId) });
  }
  if (setup.buildPath === 'try') {
    return tryInvocation({ root, beadId, harness: choice.agent, model: choice.model, effort: choice.effort, wallClockSeconds: agentTimeoutSeconds(setup.env), allowNonDefaultBranch: allowsNonDefaultBranch(setup.env) });
  }
  return directInvocation(root, choice, prompt);
}

/**
 * The agent the builds run on when it is called directly and reports no cost (codex), else
 * undefined — through DDx a call's cost is read from DDx's records, known only once it ran.
 */
export function noCostBuildAgent(setup: Pick<DispatchSetup, 'plan' | 'buildPath'>): string | undefined {
  const { agent } = agentForAction(setup.plan, 'build');
  return setup.buildPath === 'direct' && isDirectAgent(agent) && !reportsCost(agent) ? agent : undefined;
}

/** The invocation for a non-build action under the session's agent plan, and how its call is described. */
export function actionInvocation(setup: DispatchSetup, action: ActionName, prompt: string): { invocation: AgentInvocation; call: CallInfo } {
  const choice = agentForAction(setup.plan, action === 'implementation' ? 'build' : action);
  const call: CallInfo = { label: choice.agent, requested: choice.agent, model: choice.model, prompt, purpose: 'action', action };
  if (!setup.actionsViaDdx) return { invocation: directInvocation(setup.root, choice, prompt), call };
  const options = { root: setup.root, harness: choice.agent, prompt, timeoutSeconds: agentTimeoutSeconds(setup.env), model: choice.model, effort: choice.effort };
  return { invocation: ddxRunInvocation(setup.ddx?.surface ?? 'agent', options), call };
}

/** codex or claude called directly; any other agent exists only as a ddx harness. */
function directInvocation(root: string, choice: AgentChoice, prompt: string): AgentInvocation {
  if (!isDirectAgent(choice.agent)) throw new HelixError('missingTool', `helix: agent ${choice.agent} can only run through ddx, which is not installed`);
  return directAgentInvocation(choice.agent, { root, prompt, model: choice.model, effort: choice.effort });
}

/** The `adversarial <action>: switching to <agent>` line, when the action runs on another agent than the primary. */
export function rotationLine(plan: AgentPlan, action: 'build' | 'check' | 'polish' | 'review'): Say | undefined {
  const agent = agentForAction(plan, action).agent;
  return agent !== plan.primary.agent ? rotation(action, agent) : undefined;
}

/** Who closes a landed bead on this build path: DDx itself on `ddx try`, else helix. */
export function closerOf(buildPath: BuildPath): 'helix' | 'ddx' {
  return buildPath === 'try' ? 'ddx' : 'helix';
}

/** Who claims and closes on a build path (the prompt's tracker lines follow it). */
export function ownershipOf(buildPath: BuildPath): BuildOwnership {
  if (buildPath === 'execute-bead') return 'helix-closes';
  if (buildPath === 'try') return 'ddx-owns';
  return 'agent-closes';
}

// ── how a call is described: its lines and its frame in the log (shell/agent-call.ts) ────────

/** Which shape of call: decides its lines and its frame. */
export type CallKind = 'codex' | 'claude' | 'ddx-run' | 'other';

export interface CallInfo {
  /** The agent doing the work (the harness under ddx); names `other` calls in their lines. */
  label: string;
  /** The agent the plan asked for (`(requested: <agent>)` in the ddx line). */
  requested?: string;
  model?: string;
  /** The prompt, for its size and the claude echo. */
  prompt?: string;
  /** A build or the verify command: not a prompt through a harness. */
  purpose: 'action' | 'build' | 'verify';
  /** The call's own limit in seconds, when not HELIX_AGENT_TIMEOUT (`ddx try`: DDx's wall clock plus its wrap-up). */
  timeoutSec?: number;
  /** The bead a build works on: DDx's record of the call is that bead's sessions (agents/ddx-records.ts). */
  beadId?: string;
  /** The action an `action` call runs (check, align, polish, …). */
  action?: ActionName;
  /** With several slots: what each of its lines names first, the bead (or the action) it is for (docs/contract/cli.md §6.10). */
  tag?: string;
}

/** The planning actions: rewriting the queue is their work, so beads they remove are saved and the run goes on. */
const REWRITE_QUEUE: ReadonlySet<ActionName> = new Set(['design', 'polish', 'align', 'backfill']);

/**
 * What a call after which beads vanished from the file means: a planning action may remove beads
 * (the Bash CLI's harness replaces the queue in a polish), so they are saved and reported and the
 * run goes on; during a build, its verification, the check or a review it is a loss that stops
 * the run (exit 15).
 */
export function lostBeadsStopRun(call: CallInfo): boolean {
  return !(call.purpose === 'action' && call.action !== undefined && REWRITE_QUEUE.has(call.action));
}

/** The DDx command words of a ddx call (`ddx agent run`, `ddx agent execute-bead`): its leading non-flag words. */
export function ddxCommandWords(invocation: AgentInvocation, stopAt?: string): string {
  const words = ['ddx'];
  for (const arg of invocation.args) {
    if (arg.startsWith('-') || arg === stopAt) break;
    words.push(arg);
  }
  return words.join(' ');
}

export function callKind(invocation: AgentInvocation, call: CallInfo): CallKind {
  if (call.purpose === 'action' && invocation.file === 'codex') return 'codex';
  if (call.purpose === 'action' && invocation.file === 'claude') return 'claude';
  if (call.purpose === 'action' && invocation.file === 'ddx') return 'ddx-run';
  if (call.purpose === 'build' && (invocation.file === 'codex' || invocation.file === 'claude')) return invocation.file;
  return 'other';
}
