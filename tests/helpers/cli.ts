// Runs the real helix launcher as a child process, the way users and the old Bash tests do.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const HELIX_BIN = join(REPO_ROOT, 'bin/helix');

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
}

export function helix(args: string[], options: CliOptions): CliResult {
  const result = spawnSync(process.execPath, [HELIX_BIN, ...args], {
    cwd: options.cwd,
    env: { ...cleanEnv(), ...options.env },
    input: options.input ?? '',
    encoding: 'utf8',
  });
  if (result.error) throw result.error;
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

export interface ProcessExit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A program run beside others (several at once, unlike helix()), in the test's clean environment. */
export function runProcess(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<ProcessExit> {
  return runCollected(command, args, { cwd, env: { ...cleanEnv(), ...env } });
}

/**
 * Runs a program to its end without blocking this process (a model stand-in in this process
 * answers it meanwhile), with exactly the environment given, and collects what it printed.
 */
export function runCollected(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<ProcessExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The test's environment without helix variables that would leak from the developer's shell. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(HELIX_|DDX_)/.test(key)) env[key] = value;
  }
  return env;
}

export function tempDir(prefix = 'helix-test-'): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/** A real git repository in a temp folder, with one commit so HEAD exists. */
export function tempGitRepo(prefix = 'helix-repo-'): string {
  const dir = tempDir(prefix);
  const git = (...args: string[]) => {
    const r = spawnSync('git', args, { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  };
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'test@helix.invalid');
  git('config', 'user.name', 'helix test');
  git('commit', '-q', '--allow-empty', '-m', 'initial');
  return dir;
}
