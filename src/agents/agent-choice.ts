// Which agent runs which action (docs/contract/cli.md §3, §8), as a pure function of the flags, the
// environment and what is on PATH. Cross-model work: with HELIX_ALT_AGENT=auto and no explicit
// --agent, build, check and polish go to the other of codex/claude when it is installed, and
// review defaults to the agent that did NOT build, so a change is never judged by the model that
// wrote it (with one agent only, that agent). `--model`/HELIX_MODEL belong to the primary agent
// only: a model name for one vendor means nothing (or the wrong thing) to the other.
import { HelixError } from '../errors.js';

export const DEFAULT_AGENT = 'codex';

export type AgentAction = 'build' | 'check' | 'polish' | 'align' | 'design' | 'review' | 'backfill' | 'experiment';

/** Actions the alternate agent takes over when there is one (docs/contract/cli.md §3). */
export const ALTERNATE_ACTIONS: readonly AgentAction[] = ['build', 'check', 'polish'];

export interface AgentChoiceInput {
  /** --agent / --claude / --codex, already resolved to one name (undefined = not given). */
  explicitAgent?: string;
  /** --model. */
  model?: string;
  /** --effort. */
  effort?: string;
  /** `run --review-agent A`. */
  reviewAgent?: string;
  /** Reads HELIX_AGENT, HELIX_ALT_AGENT, HELIX_REVIEW_AGENT, HELIX_MODEL, HELIX_EFFORT. */
  env: NodeJS.ProcessEnv;
  /** Whether a program is on PATH (see findOnPath). */
  isOnPath: (program: string) => boolean;
}

export interface AgentChoice {
  agent: string;
  /** Only ever set on the primary agent (or the review agent when it is the primary). */
  model?: string;
  effort?: string;
}

export interface AgentPlan {
  primary: AgentChoice;
  /** Takes build, check and polish when present. */
  alternate?: AgentChoice;
  review: AgentChoice;
}

const AGENT_NAME = /^[a-z][a-z0-9_.-]*$/;

function agentName(value: string, source: string): string {
  const name = value.trim();
  if (!AGENT_NAME.test(name)) throw new HelixError('validation', `helix: invalid agent name in ${source}: '${value}'`);
  return name;
}

/**
 * The effort levels both CLIs take: claude `--effort low|medium|high|xhigh|max`; codex 0.169's
 * model catalog lists low, medium, high, xhigh, max (and ultra) for its current models and sends
 * the value as `reasoning.effort`. Anything else would reach the agent and fail there, later.
 */
export const EFFORT_LEVELS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;

/** Effort per action when neither --effort nor HELIX_EFFORT is given (docs/contract/bash-interface.md §0.5); experiment: none. */
export const DEFAULT_EFFORT: Readonly<Record<AgentAction, string | undefined>> = {
  build: 'medium',
  check: 'low',
  align: 'high',
  backfill: 'high',
  design: 'high',
  polish: 'medium',
  review: 'high',
  experiment: undefined,
};

function effortLevel(value: string | undefined, source: string): string | undefined {
  if (value === undefined) return undefined;
  if (!(EFFORT_LEVELS as readonly string[]).includes(value)) {
    throw new HelixError('validation', `helix: invalid effort in ${source}: '${value}' (${EFFORT_LEVELS.join('|')})`);
  }
  return value;
}

/** The other of codex/claude, or undefined for any other agent. */
export function otherDirectAgent(agent: string): string | undefined {
  if (agent === 'codex') return 'claude';
  if (agent === 'claude') return 'codex';
  return undefined;
}

export function resolveAgentPlan(input: AgentChoiceInput): AgentPlan {
  const { env } = input;
  const primaryName = input.explicitAgent
    ? agentName(input.explicitAgent, '--agent')
    : env.HELIX_AGENT?.trim()
      ? agentName(env.HELIX_AGENT, 'HELIX_AGENT')
      : DEFAULT_AGENT;
  const effort = effortLevel(input.effort || undefined, '--effort') ?? effortLevel(env.HELIX_EFFORT?.trim() || undefined, 'HELIX_EFFORT');
  const model = input.model || env.HELIX_MODEL?.trim() || undefined;
  const withEffort = (agent: string): AgentChoice => (effort ? { agent, effort } : { agent });
  const primary: AgentChoice = model ? { ...withEffort(primaryName), model } : withEffort(primaryName);

  const altSetting = env.HELIX_ALT_AGENT?.trim() || 'auto';
  let alternateName: string | undefined;
  if (altSetting === 'auto') {
    const other = otherDirectAgent(primaryName);
    if (!input.explicitAgent && other && input.isOnPath(other)) alternateName = other;
  } else if (altSetting !== 'none') {
    alternateName = agentName(altSetting, 'HELIX_ALT_AGENT');
  }
  const alternate = alternateName && alternateName !== primaryName ? withEffort(alternateName) : undefined;

  // Cross-model review: the agent that did not build (builds go to the alternate when there is one).
  const builder = alternate?.agent ?? primaryName;
  const notBuilder = [primaryName, alternate?.agent].find((name) => name !== undefined && name !== builder) ?? builder;
  const reviewName = input.reviewAgent?.trim()
    ? agentName(input.reviewAgent, '--review-agent')
    : env.HELIX_REVIEW_AGENT?.trim()
      ? agentName(env.HELIX_REVIEW_AGENT, 'HELIX_REVIEW_AGENT')
      : notBuilder;
  const review = reviewName === primaryName ? primary : withEffort(reviewName);

  return alternate ? { primary, alternate, review } : { primary, review };
}

/**
 * The agent that runs one action under a plan, with its model and effort: the --effort /
 * HELIX_EFFORT level when given, else the action's default (DEFAULT_EFFORT).
 */
export function agentForAction(plan: AgentPlan, action: AgentAction): AgentChoice {
  const choice = action === 'review' ? plan.review : plan.alternate && ALTERNATE_ACTIONS.includes(action) ? plan.alternate : plan.primary;
  const effort = choice.effort ?? DEFAULT_EFFORT[action];
  return effort ? { ...choice, effort } : choice;
}
