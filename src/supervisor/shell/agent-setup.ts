// Setting up one supervisor session from flags and environment: which agents, which DDx (asked
// once per run), which build path, and — before anything touches the tracker — whether the
// programs it needs exist at all.
import { type AgentPlan, DIRECT_AGENTS, type DdxInstall, SUPPORTED_DDX, agentTimeoutSeconds, detectDdx, findOnPath, isDirectAgent, namedAgentMissing, resolveAgentPlan } from '../../agents/index.js';
import { HelixError } from '../../errors.js';
import { type BeadStore, lockTimeoutMs, orphanThresholdSec } from '../../tracker/index.js';
import { defaultSettings } from '../core/policy.js';
import { SETUP } from '../text/setup.js';
import { openStore } from './project.js';
import { assertGitWorkTree } from './git.js';

export { openStore } from './project.js';
import type { BuildPath } from '../core/dispatch.js';

export interface SessionFlags {
  agent?: string;
  model?: string;
  effort?: string;
  reviewAgent?: string;
}

export interface Session {
  root: string;
  store: BeadStore;
  plan: AgentPlan;
  /** The DDx on PATH and its surface; undefined when there is none. */
  ddx: DdxInstall | undefined;
  buildPath: BuildPath;
  actionsViaDdx: boolean;
  /** `ddx` is on PATH: prompts name `ddx bead` commands, else `helix tracker` (docs/contract/bash-interface.md §1). */
  ddxPresent: boolean;
  /** The agent CLIs on PATH (codex, claude), which the plan was chosen from. */
  installedAgents: string[];
  /** An agent was named for the primary (--agent, HELIX_AGENT); else it was chosen from what is installed. */
  agentNamed: boolean;
}

/**
 * The build path for a DDx surface and HELIX_EXECUTOR:
 *   v0.6.x: helix claims and runs `ddx agent execute-bead`; `execute-loop` has no one-bead form
 *     there (it picks its own bead and, without --local, only hands the job to a ddx server), so
 *     HELIX_EXECUTOR=execute-loop is refused with one line.
 *   current: `ddx try <id>` either way — DDx claims and closes, helix keeps its guarantees around it.
 */
export function buildPathFor(ddx: DdxInstall | undefined, env: NodeJS.ProcessEnv): BuildPath {
  if (!ddx?.surface) return 'direct';
  if (ddx.surface === 'current') return 'try';
  if (env.HELIX_EXECUTOR === 'execute-loop') {
    throw new HelixError(
      'error',
      `helix: HELIX_EXECUTOR=execute-loop needs DDx's \`ddx try <id>\` (v0.6.2-alpha50 or later); DDx ${ddx.version ?? '(version unknown)'} has only \`ddx agent execute-loop\`, which picks its own bead. Unset HELIX_EXECUTOR to let helix claim and run \`ddx agent execute-bead\`.`,
    );
  }
  return 'execute-bead';
}

export async function prepareSession(cwd: string, env: NodeJS.ProcessEnv, flags: SessionFlags, needsTools = true, signal?: AbortSignal): Promise<Session> {
  // a dry run too: what it would show is a command the real one refuses to run here
  assertGitWorkTree(cwd);
  checkNumericEnvironment(env);
  const { root, store } = openStore(cwd, env);
  const isOnPath = (program: string) => findOnPath(program, env) !== undefined;
  const choice = { explicitAgent: flags.agent, model: flags.model, effort: flags.effort, reviewAgent: flags.reviewAgent, env, isOnPath };
  const plan = resolveAgentPlan(choice);
  const installedAgents = DIRECT_AGENTS.filter(isOnPath);
  // A named agent that is not installed: said before anything is claimed, not after four attempts.
  const missing = needsTools ? namedAgentMissing(choice) : undefined;
  if (missing) throw new HelixError('missingTool', SETUP.namedAgentMissing(missing, installedAgents));
  const ddx = await detectDdx(env, root, signal);
  if (ddx && !ddx.surface) {
    // Never a silent change of path: say once why this ddx is not used.
    process.stderr.write(`helix: ddx ${ddx.version ?? '(no version)'} at ${ddx.path} is not a DDx helix supports (${ddx.unsupported}; supported: ${SUPPORTED_DDX}); calling codex/claude directly\n`);
  }
  const buildPath = buildPathFor(ddx, env);
  const actionsViaDdx = Boolean(ddx?.surface) && env.HELIX_DIRECT_AGENT !== '1';
  if (needsTools) assertToolsPresent(plan, buildPath, actionsViaDdx, isOnPath);
  return { root, store, plan, ddx, buildPath, actionsViaDdx, ddxPresent: ddx !== undefined, installedAgents, agentNamed: Boolean(flags.agent?.trim() || env.HELIX_AGENT?.trim()) };
}

/**
 * Every numeric variable a session reads, parsed once up front: a bad one is exit 7 with one line
 * before anything is claimed, started or written, never a surprise in the middle of a run.
 */
export function checkNumericEnvironment(env: NodeJS.ProcessEnv): void {
  agentTimeoutSeconds(env);
  orphanThresholdSec(env);
  lockTimeoutMs(env);
  defaultSettings(env);
}

/** Says exactly what is missing and how to get it, before the run touches the tracker. */
export function assertToolsPresent(plan: AgentPlan, buildPath: BuildPath, actionsViaDdx: boolean, isOnPath: (p: string) => boolean): void {
  const needed = new Set<string>();
  if (buildPath === 'direct') needed.add(plan.alternate?.agent ?? plan.primary.agent);
  if (!actionsViaDdx) needed.add(plan.alternate?.agent ?? plan.primary.agent).add(plan.primary.agent);
  const missing = [...needed].filter((agent) => !isDirectAgent(agent) || !isOnPath(agent));
  if (missing.length === 0) return;
  throw new HelixError(
    'missingTool',
    [
      `helix: cannot run agents: no DDx helix can drive is on PATH (\`ddx\`, ${SUPPORTED_DDX}), and neither is ${missing.map((m) => `\`${m}\``).join(' or ')}.`,
      'helix: install DDx, or install the codex or claude CLI, and make sure it is on PATH;',
      'helix: choose the agent with --agent codex|claude or HELIX_AGENT. Nothing in the tracker was changed.',
    ].join('\n'),
    { multiline: true },
  );
}
