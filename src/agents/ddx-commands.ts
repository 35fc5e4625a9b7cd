// Builders for the three ways helix calls DDx (contract §8): managed execution of one bead
// (`execute-bead`), DDx's own claim-and-close loop (`execute-loop --once`, HELIX_EXECUTOR=
// execute-loop) and a plain prompt through a harness (`ddx agent run`) for the other actions.
import { DDX_LONGEST_TIMEOUT } from './timeout.js';
import type { AgentCommand } from './command.js';

/** execute-bead's effort when none is given (contract §8). */
export const DEFAULT_EXECUTE_BEAD_EFFORT = 'medium';

export interface ExecuteBeadOptions {
  /** Repository root; the command runs there. */
  root: string;
  beadId: string;
  /** The agent DDx should run (codex, claude, …). */
  harness?: string;
  model?: string;
  effort?: string;
  /** A prompt file prepended by helix (e.g. the context and implementation prompt). */
  promptFile?: string;
}

/** `ddx agent execute-bead <id> [--harness h] [--model m] --effort <e> --json [--prompt <file>]`. */
export function executeBeadCommand(options: ExecuteBeadOptions): AgentCommand {
  const args = ['agent', 'execute-bead', options.beadId];
  if (options.harness) args.push('--harness', options.harness);
  if (options.model) args.push('--model', options.model);
  args.push('--effort', options.effort || DEFAULT_EXECUTE_BEAD_EFFORT, '--json');
  if (options.promptFile) args.push('--prompt', options.promptFile);
  return { file: 'ddx', args, cwd: options.root, env: { HELIX_SELECTED_ISSUE: options.beadId } };
}

export interface ExecuteLoopOptions {
  root: string;
  /** The bead helix selected; DDx claims and closes it itself on this path. */
  beadId: string;
  harness?: string;
  model?: string;
  effort?: string;
}

/** `ddx agent execute-loop --once [--harness h] [--model m] [--effort e]` with HELIX_SELECTED_ISSUE. */
export function executeLoopCommand(options: ExecuteLoopOptions): AgentCommand {
  const args = ['agent', 'execute-loop', '--once'];
  if (options.harness) args.push('--harness', options.harness);
  if (options.model) args.push('--model', options.model);
  if (options.effort) args.push('--effort', options.effort);
  return { file: 'ddx', args, cwd: options.root, env: { HELIX_SELECTED_ISSUE: options.beadId } };
}

export interface DdxAgentRunOptions {
  root: string;
  harness: string;
  prompt: string;
  /** HELIX_AGENT_TIMEOUT in seconds (see agentTimeoutSeconds); Infinity = no timeout. */
  timeoutSeconds: number;
  model?: string;
  effort?: string;
}

/** `ddx agent run --harness h --permissions unrestricted --timeout <T>s [--model m] [--effort e] --text <prompt>`. */
export function ddxAgentRunCommand(options: DdxAgentRunOptions): AgentCommand {
  const args = [
    'agent', 'run',
    '--harness', options.harness,
    '--permissions', 'unrestricted',
    '--timeout', Number.isFinite(options.timeoutSeconds) ? `${options.timeoutSeconds}s` : DDX_LONGEST_TIMEOUT,
  ];
  if (options.model) args.push('--model', options.model);
  if (options.effort) args.push('--effort', options.effort);
  args.push('--text', options.prompt);
  return { file: 'ddx', args, cwd: options.root, env: {} };
}
