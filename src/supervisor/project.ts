// The project a command works in: its root and its bead store. Kept apart from session.ts (which
// loads the agent layer) so `status`, `next`, `start` and `stop` start fast.
import { projectRoot, trackerDir } from '../tracker/paths.js';
import { BeadStore } from '../tracker/store.js';

export function openStore(cwd: string, env: NodeJS.ProcessEnv): { root: string; store: BeadStore } {
  const root = projectRoot(cwd);
  return { root, store: new BeadStore(trackerDir(cwd, env), env) };
}
