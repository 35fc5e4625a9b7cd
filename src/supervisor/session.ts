// Setting up one supervisor session from flags and environment: which agents, which build path,
// and — before anything touches the tracker — whether the programs it needs exist at all.
import { type AgentPlan, ddxExecuteBeadAvailable, findOnPath, isDirectAgent, resolveAgentPlan } from '../agents/index.js';
import { HelixError } from '../errors.js';
import type { BeadStore } from '../tracker/index.js';
import { openStore } from './project.js';

export { openStore } from './project.js';
import type { BuildPath } from './runner.js';

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
  buildPath: BuildPath;
  actionsViaDdx: boolean;
  /** `ddx` is on PATH: prompts name `ddx bead` commands, else `helix tracker` (bash-interface §1). */
  ddxPresent: boolean;
}

export async function prepareSession(cwd: string, env: NodeJS.ProcessEnv, flags: SessionFlags, needsTools = true): Promise<Session> {
  const { root, store } = openStore(cwd, env);
  const isOnPath = (program: string) => findOnPath(program, env) !== undefined;
  const plan = resolveAgentPlan({ explicitAgent: flags.agent, model: flags.model, effort: flags.effort, reviewAgent: flags.reviewAgent, env, isOnPath });
  const ddxOnPath = isOnPath('ddx');
  const managed = ddxOnPath && (await ddxExecuteBeadAvailable(env, root));
  const buildPath: BuildPath = managed ? (env.HELIX_EXECUTOR === 'execute-loop' ? 'execute-loop' : 'execute-bead') : 'direct';
  const actionsViaDdx = ddxOnPath && env.HELIX_DIRECT_AGENT !== '1';
  if (needsTools) assertToolsPresent(plan, buildPath, actionsViaDdx, isOnPath);
  return { root, store, plan, buildPath, actionsViaDdx, ddxPresent: ddxOnPath };
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
      `helix: cannot run agents: \`ddx\` (DDx, for \`ddx agent execute-bead\`) is not on PATH, and neither is ${missing.map((m) => `\`${m}\``).join(' or ')}.`,
      'helix: install DDx, or install the codex or claude CLI, and make sure it is on PATH;',
      'helix: choose the agent with --agent codex|claude or HELIX_AGENT. Nothing in the tracker was changed.',
    ].join('\n'),
  );
}
