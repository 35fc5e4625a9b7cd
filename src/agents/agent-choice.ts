// Which agent runs which action (docs/contract/cli.md §3, §8), as a pure function of the flags, the
// environment and what is installed (its CLI on PATH). With no agent named, the primary is one
// that is installed (codex first; the vendor of `--model` first when its name says). Cross-model
// work: with HELIX_ALT_AGENT=auto and neither an agent nor a model named, build, check and polish
// go to the other of codex/claude when it is installed, and review defaults to the agent that did
// NOT build, so a change is never judged by the model that wrote it (with one agent only, that
// agent). `--model`/HELIX_MODEL belong to the primary agent only: a model name for one vendor
// means nothing (or the wrong thing) to the other. An alternate or reviewer that is not installed
// falls back to one that is, and the plan says so (`fallbacks`).
import { HelixError } from '../errors.js';
// DIRECT_AGENTS is also the order a default takes them in when both are installed.
import { DIRECT_AGENTS, isDirectAgent } from './invocation.js';

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
  /** Roles that went to another agent than asked because the one asked for is not installed. */
  fallbacks?: AgentFallback[];
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

/**
 * The vendor a model name belongs to, when its name says so: `--model` picks the primary agent
 * when none is named, because a model name means nothing (or the wrong thing) to the other CLI.
 */
export function agentOfModel(model: string): 'codex' | 'claude' | undefined {
  if (/^(claude|sonnet|opus|haiku)\b/i.test(model)) return 'claude';
  if (/^(gpt|o\d|codex)\b/i.test(model)) return 'codex';
  return undefined;
}

/** A choice made from what is installed rather than from what was asked, for the one line the run says about it. */
export interface AgentFallback {
  role: 'primary' | 'alternate' | 'review';
  /** The agent asked for (a setting, or the default rule), when it was not installed. */
  wanted?: string;
  /** The agent chosen; undefined: the role is dropped (an alternate that is not installed). */
  chosen?: string;
}

export function resolveAgentPlan(input: AgentChoiceInput): AgentPlan {
  const { env } = input;
  // "installed" = its CLI on PATH; a name that is not codex or claude is a DDx harness, DDx's to route
  const installed = (agent: string) => !isDirectAgent(agent) || input.isOnPath(agent);
  const fallbacks: AgentFallback[] = [];
  const effort = effortLevel(input.effort || undefined, '--effort') ?? effortLevel(env.HELIX_EFFORT?.trim() || undefined, 'HELIX_EFFORT');
  const model = input.model || env.HELIX_MODEL?.trim() || undefined;
  const named = input.explicitAgent ? agentName(input.explicitAgent, '--agent') : env.HELIX_AGENT?.trim() ? agentName(env.HELIX_AGENT, 'HELIX_AGENT') : undefined;
  const primaryName = named ?? defaultPrimary(model, installed, fallbacks);
  const withEffort = (agent: string): AgentChoice => (effort ? { agent, effort } : { agent });
  const primary: AgentChoice = model ? { ...withEffort(primaryName), model } : withEffort(primaryName);

  // auto: the other CLI takes build, check and polish when it is installed — unless an agent or a
  // model was named, which says who builds (the model goes to the primary only)
  const altSetting = env.HELIX_ALT_AGENT?.trim() || 'auto';
  let alternateName: string | undefined;
  if (altSetting === 'auto') {
    const other = otherDirectAgent(primaryName);
    if (!input.explicitAgent && !model && other && installed(other)) alternateName = other;
  } else if (altSetting !== 'none') {
    alternateName = agentName(altSetting, 'HELIX_ALT_AGENT');
    if (!installed(alternateName)) {
      fallbacks.push({ role: 'alternate', wanted: alternateName });
      alternateName = undefined;
    }
  }
  const alternate = alternateName && alternateName !== primaryName ? withEffort(alternateName) : undefined;

  // Cross-model review: the agent that did not build (builds go to the alternate when there is one;
  // when a model named the builder, the other installed CLI still reviews)
  const builder = alternate?.agent ?? primaryName;
  const other = otherDirectAgent(builder);
  const crossReviewer = !alternate && altSetting === 'auto' && !input.explicitAgent && model && other && installed(other) ? other : undefined;
  const notBuilder = crossReviewer ?? [primaryName, alternate?.agent].find((name) => name !== undefined && name !== builder) ?? builder;
  let reviewName = input.reviewAgent?.trim()
    ? agentName(input.reviewAgent, '--review-agent')
    : env.HELIX_REVIEW_AGENT?.trim()
      ? agentName(env.HELIX_REVIEW_AGENT, 'HELIX_REVIEW_AGENT')
      : notBuilder;
  if (!installed(reviewName) && installed(builder)) {
    fallbacks.push({ role: 'review', wanted: reviewName, chosen: builder });
    reviewName = builder;
  }
  const review = reviewName === primaryName ? primary : withEffort(reviewName);

  return { primary, ...(alternate ? { alternate } : {}), review, ...(fallbacks.length > 0 ? { fallbacks } : {}) };
}

/**
 * The primary agent when none is named: the one the model belongs to, else codex, else claude —
 * the first that is installed. With neither installed, codex (the run then says what is missing).
 */
function defaultPrimary(model: string | undefined, installed: (agent: string) => boolean, fallbacks: AgentFallback[]): string {
  const vendor = model ? agentOfModel(model) : undefined;
  const order = vendor ? [vendor, ...DIRECT_AGENTS.filter((a) => a !== vendor)] : [...DIRECT_AGENTS];
  const chosen = order.find(installed) ?? DEFAULT_AGENT;
  if (chosen !== order[0]) fallbacks.push({ role: 'primary', wanted: order[0], chosen });
  return chosen;
}

/** The agent named for the primary (`--agent`, HELIX_AGENT) is codex or claude and not installed. */
export function namedAgentMissing(input: AgentChoiceInput): string | undefined {
  const named = input.explicitAgent?.trim() || input.env.HELIX_AGENT?.trim();
  return named && isDirectAgent(named) && !input.isOnPath(named) ? named : undefined;
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
