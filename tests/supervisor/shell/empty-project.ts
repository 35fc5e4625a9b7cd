// The world of the tests beside the supervisor's entry points (run.ts, check.ts,
// one-shot.ts, background.ts): a git project with an empty tracker, and no ddx, codex or claude on
// PATH. HELIX_AGENT names codex, so a --dry-run needs no installed agent and prints codex's line.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, tempGitRepo } from '../../helpers/cli.js';

export function emptyProject(): { cwd: string; env: NodeJS.ProcessEnv } {
  const cwd = tempGitRepo();
  mkdirSync(join(cwd, '.ddx'));
  writeFileSync(join(cwd, '.ddx', 'beads.jsonl'), '');
  return { cwd, env: { ...cleanEnv(), PATH: '/usr/bin:/bin', HELIX_AGENT: 'codex' } };
}

/** The one line a dry run returns in this world: the codex command it would run. */
export const CODEX_DRY_RUN = /^codex --dangerously-bypass-approvals-and-sandbox exec /;
