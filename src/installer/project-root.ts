// Where a Claude Code session's project is, and making `.helix/` there. Used by the hooks, which
// run with the session's working folder (and CLAUDE_PROJECT_DIR when Claude Code sets it).
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * The project root: CLAUDE_PROJECT_DIR when set, else the nearest ancestor holding `.helix/` or
 * `.ddx/` (where the memory store looks, memory.md), else the git top level, else `cwd`.
 */
export function findProjectRoot(cwd: string, env: NodeJS.ProcessEnv): string {
  if (env.CLAUDE_PROJECT_DIR) return resolve(env.CLAUDE_PROJECT_DIR);
  const start = resolve(cwd);
  return nearestAncestor(start, ['.helix', '.ddx']) ?? nearestAncestor(start, ['.git']) ?? start;
}

function nearestAncestor(start: string, markers: string[]): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    if (markers.some((m) => existsSync(join(dir, m)))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The memory database the hooks read: HELIX_DB_PATH, else `<root>/.helix/helix.db`. */
export function memoryDbPath(root: string, env: NodeJS.ProcessEnv): string {
  return env.HELIX_DB_PATH ? resolve(root, env.HELIX_DB_PATH) : join(root, '.helix', 'helix.db');
}

/**
 * Creates `<root>/.helix/` and keeps it out of `git status` through `.git/info/exclude`
 * (docs/contract/cli.md §5: runtime files are never left for git to see). Returns true when it created it.
 */
export function initHelixFolder(root: string): boolean {
  const folder = join(root, '.helix');
  const created = !existsSync(folder);
  mkdirSync(folder, { recursive: true });
  excludeFromGit(root, '.helix/');
  return created;
}

function excludeFromGit(root: string, pattern: string): void {
  const gitDir = join(root, '.git');
  // A worktree or submodule has a .git file, not a folder: leave its exclude alone.
  if (!existsSync(gitDir) || !statSync(gitDir).isDirectory()) return;
  const exclude = join(gitDir, 'info', 'exclude');
  const text = existsSync(exclude) ? readFileSync(exclude, 'utf8') : '';
  if (text.split('\n').some((line) => line.trim() === pattern || line.trim() === '.helix')) return;
  mkdirSync(dirname(exclude), { recursive: true });
  appendFileSync(exclude, `${text === '' || text.endsWith('\n') ? '' : '\n'}${pattern}\n`);
}
