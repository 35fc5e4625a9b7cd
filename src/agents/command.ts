// The value every command builder returns: one program, its arguments as an array, the folder it
// runs in, the environment variables it adds, and (for claude) the prompt it reads on stdin.
// Builders are pure; `runAgentCommand` performs it and `formatDryRun` prints it.

/** The direct agents helix knows how to call without ddx (contract §8). */
export type DirectAgent = 'codex' | 'claude';

export const DIRECT_AGENTS: readonly DirectAgent[] = ['codex', 'claude'];

export function isDirectAgent(name: string | undefined): name is DirectAgent {
  return name === 'codex' || name === 'claude';
}

export interface AgentCommand {
  /** Program name (looked up on PATH) or an absolute path. */
  file: string;
  /** Arguments, never joined into a shell string. */
  args: string[];
  /** Working folder: the repository root. */
  cwd: string;
  /** Variables added on top of the caller's environment (e.g. HELIX_SELECTED_ISSUE). */
  env: Record<string, string>;
  /** Text written to the program's stdin (claude reads its prompt there). */
  input?: string;
  /** The dry-run line shows `cd <cwd> && …` (claude: the prompt names no folder itself). */
  showCwd?: boolean;
}
