// What is installed: programs on PATH. (Which DDx it is: ddx-surface.ts.)
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** Absolute path of an executable `name` on env.PATH, or undefined. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (name.includes('/')) return isExecutableFile(name) ? resolve(name) : undefined;
  for (const folder of (env.PATH ?? '').split(delimiter)) {
    if (!folder || !isAbsolute(folder)) continue; // a relative PATH entry would depend on cwd
    const candidate = join(folder, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
