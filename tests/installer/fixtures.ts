// Fixtures for the installer tests: throwaway helix checkouts (copies of the files the installer
// needs, so one can be moved or deleted), temp HOMEs, the real Bash script, and a snapshot of a
// folder tree to prove that a run changed nothing.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, tempDir } from '../helpers/cli.js';

export const SKILL_NAMES = [
  'helix-align',
  'helix-backfill',
  'helix-build',
  'helix-check',
  'helix-design',
  'helix-experiment',
  'helix-memory',
  'helix-next',
  'helix-polish',
  'helix-query',
  'helix-review',
  'helix-run',
  'helix-stats',
  'helix-triage',
];

export const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Fails loudly when dist/ is missing: the settings merge runs from dist/installer. */
export function requireBuild(): void {
  if (!existsSync(join(REPO_ROOT, 'dist/installer/settings-cli.js'))) {
    throw new Error('dist/ is not built: run `npx tsc -p tsconfig.build.json` first');
  }
}

/** A copy of the checkout files the installer uses, under a folder whose name has a space. */
export function checkoutCopy(prefix = 'helix checkout-'): string {
  const root = join(tempDir(prefix), 'helix src');
  mkdirSync(root);
  // dist/unique-path.js and dist/atomic-write.js: settings-cli.js names its backups and writes with them;
  // dist/fast/version.cjs: the launcher's `--version`
  for (const path of ['bin', 'skills', 'package.json', 'scripts/install-local-skills.sh', 'dist/installer', 'dist/unique-path.js', 'dist/atomic-write.js', 'dist/fast/version.cjs']) {
    cpSync(join(REPO_ROOT, path), join(root, path), { recursive: true });
  }
  return root;
}

export interface ScriptResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs the real install-local-skills.sh of `checkout` with only PATH, HOME and `env` set. */
export function runInstaller(checkout: string, home: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): ScriptResult {
  const result = spawnSync('bash', [join(checkout, 'scripts/install-local-skills.sh'), ...args], {
    env: { PATH: process.env.PATH, HOME: home, ...env },
    encoding: 'utf8',
  });
  if (result.error) throw result.error;
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

export function tempHome(): string {
  return join(tempDir('helix home-'), 'my home');
}

export function freshHome(): string {
  const home = tempHome();
  mkdirSync(home, { recursive: true });
  return home;
}

/** Every path under `dir` with its type, link target, size, mode and mtime. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string) => {
    const stat = lstatSync(path);
    const key = path.slice(dir.length) || '/';
    if (stat.isSymbolicLink()) out[key] = `link ${readlinkSync(path)}`;
    else if (stat.isDirectory()) {
      out[key] = `dir ${stat.mode}`;
      for (const name of readdirSync(path)) walk(join(path, name));
    } else out[key] = `file ${stat.size} ${stat.mode} ${stat.mtimeMs}`;
  };
  if (existsSync(dir)) walk(dir);
  return out;
}
