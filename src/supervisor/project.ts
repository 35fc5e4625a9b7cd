// The project a command works in: its root and its bead store. Kept apart from session.ts (which
// loads the agent layer) so `status`, `next`, `start` and `stop` start fast.
import { BeadStore, projectRoot, trackerDir } from '../tracker/index.js';

export function openStore(cwd: string, env: NodeJS.ProcessEnv): { root: string; store: BeadStore } {
  const root = projectRoot(cwd);
  return { root, store: new BeadStore(trackerDir(cwd, env), env) };
}
