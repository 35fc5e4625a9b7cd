// Builders for calling codex and claude directly (no ddx, or HELIX_DIRECT_AGENT=1). Both run
// unattended in the repository, so both bypass their approval prompts; both read the prompt on
// stdin (one argv is capped at 128 KiB on Linux, a bead can be longer); both print structured
// events on stdout so helix reads the agent's final answer and its token usage, never the
// transcript (measured on codex 0.169 and claude 2.1.197: docs/agent-clis.md).
import type { AgentInvocation, DirectAgent } from './invocation.js';

export interface DirectAgentOptions {
  root: string;
  prompt: string;
  model?: string;
  /** codex: `-c model_reasoning_effort=E`; claude: `--effort E`. */
  effort?: string;
}

/**
 * `codex --dangerously-bypass-approvals-and-sandbox exec -C <root> [-m M] [-c model_reasoning_effort=E]
 * --ephemeral --json -`, prompt on stdin. `--json` prints JSONL events on stdout (the final answer
 * is the last `agent_message`, usage is on `turn.completed`); codex's own transcript goes to stderr.
 */
export function codexInvocation(options: DirectAgentOptions): AgentInvocation {
  const args = ['--dangerously-bypass-approvals-and-sandbox', 'exec', '-C', options.root];
  if (options.model) args.push('-m', options.model);
  if (options.effort) args.push('-c', `model_reasoning_effort=${options.effort}`);
  args.push('--ephemeral', '--json', '-');
  return { file: 'codex', args, cwd: options.root, env: {}, input: options.prompt, format: 'codex-json' };
}

/**
 * `claude -p --permission-mode bypassPermissions --dangerously-skip-permissions --no-session-persistence
 * --output-format stream-json --verbose [--model M] [--effort E]`, prompt on stdin, cwd = root.
 * stream-json (it needs --verbose) ends with a `result` event: the answer, usage and cost.
 */
export function claudeInvocation(options: DirectAgentOptions): AgentInvocation {
  const args = [
    '-p', '--permission-mode', 'bypassPermissions', '--dangerously-skip-permissions', '--no-session-persistence',
    '--output-format', 'stream-json', '--verbose',
  ];
  if (options.model) args.push('--model', options.model);
  if (options.effort) args.push('--effort', options.effort);
  return { file: 'claude', args, cwd: options.root, env: {}, input: options.prompt, showCwd: true, format: 'claude-stream-json' };
}

/** The direct invocation for an agent name. */
export function directAgentInvocation(agent: DirectAgent, options: DirectAgentOptions): AgentInvocation {
  return agent === 'codex' ? codexInvocation(options) : claudeInvocation(options);
}
