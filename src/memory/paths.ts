// Where the memory database lives: HELIX_DB_PATH, else `.helix/helix.db` under the nearest
// ancestor holding `.helix/` or `.ddx/` (the project root), else under the current directory.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

export function resolveDbPath(cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  if (env.HELIX_DB_PATH) return resolve(cwd, env.HELIX_DB_PATH);
  let dir = resolve(cwd);
  for (;;) {
    if (existsSync(join(dir, '.helix')) || existsSync(join(dir, '.ddx'))) return join(dir, '.helix', 'helix.db');
    const parent = dirname(dir);
    if (parent === dir) return join(resolve(cwd), '.helix', 'helix.db');
    dir = parent;
  }
}
