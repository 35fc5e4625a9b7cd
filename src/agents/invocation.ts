// An invocation, the value every builder of this folder returns: one program, its arguments as an array, the folder it
// runs in, the environment variables it adds, the prompt it reads on stdin, and how its final
// answer is read. Builders are pure; `runAgentInvocation` performs it and `formatDryRun` prints it.

/** The direct agents helix knows how to call without ddx (docs/contract/cli.md §8). */
export type DirectAgent = 'codex' | 'claude';

export const DIRECT_AGENTS: readonly DirectAgent[] = ['codex', 'claude'];

export function isDirectAgent(name: string | undefined): name is DirectAgent {
  return name === 'codex' || name === 'claude';
}

/** Whether a direct agent reports what a call cost: claude's `result` carries `total_cost_usd`; codex's events carry usage, never a cost. */
export function reportsCost(agent: DirectAgent): boolean {
  return agent === 'claude';
}

/**
 * Where a program's final answer is: `codex-json` = `codex exec --json` events on stdout (the last
 * agent message; usage on `turn.completed`), `claude-stream-json` = `claude -p --output-format
 * stream-json` events (the `result` event). Absent: stdout is the answer (ddx prints the harness's
 * text result there), stderr is never part of it.
 */
export type AnswerFormat = 'codex-json' | 'claude-stream-json';

export interface AgentInvocation {
  /** Program name (looked up on PATH) or an absolute path. */
  file: string;
  /** Arguments, never joined into a shell string. */
  args: string[];
  /** Working folder: the repository root. */
  cwd: string;
  /** Variables added on top of the caller's environment (e.g. HELIX_SELECTED_ISSUE). */
  env: Record<string, string>;
  /** Text written to the program's stdin (codex and claude read their prompt there). */
  input?: string;
  /** How the final answer (and usage) is read from stdout; see AnswerFormat. */
  format?: AnswerFormat;
  /** The dry-run line shows `cd <cwd> && …` (claude: the prompt names no folder itself). */
  showCwd?: boolean;
}
