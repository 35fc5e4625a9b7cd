// What helix says about its setup: which agents it chose from what is installed, an agent named
// that is not installed, HELIX_DIRECT_AGENT's one rule, and the stops and waits of a failed attempt
// that was not the bead's fault (core/failure-cause.ts decides which is which). Levels as in lines.ts.
import { type AgentFallback, type AgentPlan, agentForAction } from '../../agents/agent-choice.js';
import type { Say } from './lines.js';

const say = (level: Say['level'], text: string): Say => ({ level, text });

const ROLE_WORDS: Record<AgentFallback['role'], string> = { primary: 'the primary agent', alternate: 'the alternate agent', review: 'reviews' };

/** `claude` or `claude (model sonnet)`. */
const agentWords = (agent: string, model?: string) => (model ? `${agent} (model ${model})` : agent);

export const SETUP = {
  /**
   * Once at the start of a run: who builds, who reviews, who runs the other actions — and, when no
   * agent was named, that the choice came from what is installed.
   */
  agents(plan: AgentPlan, installed: string[], named: boolean): Say {
    const build = agentForAction(plan, 'build');
    const review = plan.review;
    const rest = plan.primary;
    const roles =
      build.agent === review.agent && review.agent === rest.agent
        ? `${agentWords(build.agent, build.model)} for builds, reviews and every action`
        : `builds ${agentWords(build.agent, build.model)}, reviews ${agentWords(review.agent, review.model)}, other actions ${agentWords(rest.agent, rest.model)}`;
    const from = named ? '' : ` (none named; installed: ${installed.length > 0 ? installed.join(', ') : 'none'})`;
    return say('narrative', `helix: agents: ${roles}${from}`);
  },

  /** A role asked for an agent that is not installed and went to another (or was dropped). */
  fallback(f: AgentFallback): Say {
    if (f.role === 'primary') return say('narrative', `helix: ${f.wanted} is not installed: ${f.chosen} is the primary agent`);
    if (!f.chosen) return say('always', `helix: ${f.wanted} is not installed: no alternate agent (builds, checks and polish stay on the primary)`);
    return say('always', `helix: ${f.wanted} is not installed: ${ROLE_WORDS[f.role]} go to ${f.chosen}`);
  },

  /** An agent named for the primary (`--agent`, HELIX_AGENT) that is not on PATH: refused before any claim. */
  namedAgentMissing: (agent: string, installed: string[]) =>
    `helix: ${agent} is not installed (\`${agent}\` is not on PATH): install it, or choose ${installed.length > 0 ? `an installed agent (${installed.join(', ')})` : 'another agent'} with --agent or HELIX_AGENT. Nothing was claimed.`,

  /** HELIX_DIRECT_AGENT=1 with a DDx that builds: the one rule, said where it applies. */
  directActionsOnly: (agent: string, buildCommand: string) =>
    say('always', `helix: HELIX_DIRECT_AGENT=1: actions call ${agent} directly; builds still go through DDx (\`${buildCommand}\`)`),

  /** The run stops: a setup error no retry fixes. */
  setupStop: (what: string, detail: string, subject: string, fix = 'fix it') =>
    `helix: stopping: SETUP: ${what} on ${subject} (${detail}); ${fix}, then run again — nothing was counted against any bead`,
  /** The run stops: an infrastructure failure that did not pass. */
  infrastructureStop: (times: number, what: string, detail: string) =>
    `helix: stopping: SETUP: ${what}, ${times} times in a row (${detail}); check the provider and DDx, then run again — nothing was counted against any bead`,
  /** The run waits out an infrastructure failure and tries the same call again. */
  infrastructureWait: (what: string, detail: string, subject: string, seconds: number): Say =>
    say('always', `helix: ${what} on ${subject} (${detail}): not counted against it; trying again in ${seconds}s`),

  /** Current DDx refuses to build over its own uncommitted files: helix committed them. */
  ddxFilesCommitted: (paths: string[]) => `helix: committed DDx's own project files before the build (${shown(paths)}): DDx refuses to build over them uncommitted`,
  ddxFilesNotCommitted: (paths: string[], why: string) =>
    `helix: DDx's own project files are uncommitted (${shown(paths)}) and DDx refuses to build over them; committing them failed (${why}): commit them, then run again. Nothing was claimed.`,
};

/** A few paths, then how many in all. */
const shown = (paths: string[]) => paths.slice(0, 3).join(', ') + (paths.length > 3 ? `, … (${paths.length} in all)` : '');
