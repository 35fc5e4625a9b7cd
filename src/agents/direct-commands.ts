// Builders for calling codex and claude directly (no ddx, or HELIX_DIRECT_AGENT=1), with the exact
// flags of contract §8. Both run unattended in the repository, so both bypass their approval
// prompts; claude takes the prompt on stdin so a long prompt never hits the argv size limit.
import type { AgentCommand, DirectAgent } from './command.js';

export interface DirectAgentOptions {
  root: string;
  prompt: string;
  model?: string;
  /** codex only: passed as `-c reasoning.effort=E`; claude has no such flag. */
  effort?: string;
}

/** `codex --dangerously-bypass-approvals-and-sandbox exec -C <root> [-m M] [-c reasoning.effort=E] --ephemeral <prompt>`. */
export function codexCommand(options: DirectAgentOptions): AgentCommand {
  const args = ['--dangerously-bypass-approvals-and-sandbox', 'exec', '-C', options.root];
  if (options.model) args.push('-m', options.model);
  if (options.effort) args.push('-c', `reasoning.effort=${options.effort}`);
  args.push('--ephemeral', options.prompt);
  return { file: 'codex', args, cwd: options.root, env: {} };
}

/** `claude -p --permission-mode bypassPermissions --dangerously-skip-permissions --no-session-persistence [--model M]`, prompt on stdin, cwd = root. */
export function claudeCommand(options: DirectAgentOptions): AgentCommand {
  const args = ['-p', '--permission-mode', 'bypassPermissions', '--dangerously-skip-permissions', '--no-session-persistence'];
  if (options.model) args.push('--model', options.model);
  return { file: 'claude', args, cwd: options.root, env: {}, input: options.prompt, showCwd: true };
}

/** The direct command for an agent name. */
export function directAgentCommand(agent: DirectAgent, options: DirectAgentOptions): AgentCommand {
  return agent === 'codex' ? codexCommand(options) : claudeCommand(options);
}
