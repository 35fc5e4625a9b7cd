// How a run shows its progress on stderr (docs/contract/cli.md §3 `--progress`): the live board
// where a person watches a terminal, today's plain lines everywhere else — a pipe, a file, CI, a
// terminal that cannot move its cursor (TERM=dumb), or a person who asked for no colour or
// effects (NO_COLOR, no-color.org: set and not empty).
export type ProgressFlag = 'auto' | 'plain';

export const PROGRESS_FLAGS: readonly ProgressFlag[] = ['auto', 'plain'];

/** Whether the environment is a CI job: CI or CONTINUOUS_INTEGRATION set (not to `false` or `0`), or any CI_* variable. */
export function inCi(env: NodeJS.ProcessEnv): boolean {
  const set = (value: string | undefined) => value !== undefined && value !== '' && value !== 'false' && value !== '0';
  return set(env.CI) || set(env.CONTINUOUS_INTEGRATION) || Object.keys(env).some((name) => name.startsWith('CI_') && set(env[name]));
}

/** The live board, or plain lines. */
export function liveBoardWanted(flag: ProgressFlag, stderrIsTerminal: boolean, env: NodeJS.ProcessEnv): boolean {
  if (flag === 'plain' || !stderrIsTerminal || inCi(env)) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return env.TERM !== 'dumb';
}
