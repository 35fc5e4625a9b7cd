// The project a command works in: its root and its bead store. Kept apart from agent-setup.ts (which
// loads the agent layer) so `status`, `next`, `start` and `stop` start fast.
import { assertJsonlBackend } from '../../tracker/backend.js';
import { projectRoot, trackerDir } from '../../tracker/tracker-dir.js';
import { BeadStore } from '../../tracker/bead-store.js';

/** The project and its bead store; refused (exit 14) when DDx keeps the beads in another backend. */
export function openStore(cwd: string, env: NodeJS.ProcessEnv): { root: string; store: BeadStore } {
  const root = projectRoot(cwd);
  const dir = trackerDir(cwd, env);
  assertJsonlBackend(dir, env);
  return { root, store: new BeadStore(dir, env) };
}
