// The overnight both soaks work (scripts/soak.mjs, soak-fleet.mjs): 40 beads in 8 chains of 5, each
// bead blocked by the one before it, in a fresh git repository; which beads hit a limit, fail for
// good, or are in flight when helix is killed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const id = (n) => `hx-${n.toString(16).padStart(8, '0')}`;
export const CHAINS = 8;
export const PER_CHAIN = 5;
export const FAIL_FOR_GOOD = [7, 12, 22].map(id);
export const LIMITED = [3, 27].map(id);
export const KILLED_IN = id(16);

/** A temp folder with an empty git repository in `repo/` (its `.ddx/` made) and `git` run there. */
export function soakRepository(prefix) {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const repo = join(work, 'repo');
  mkdirSync(join(repo, '.ddx'), { recursive: true });
  const git = (...args) => spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'soak@helix.invalid');
  git('config', 'user.name', 'helix soak');
  return { work, repo, git };
}

/** The n-th bead's fields: open, created in order, blocked by the one before it in its chain. */
export function soakBead(n, fields) {
  const stamp = new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
  const bead = { id: id(n), ...fields, status: 'open', priority: 2, issue_type: 'task', created_at: stamp, updated_at: stamp };
  if (n % PER_CHAIN !== 0) bead.dependencies = [{ issue_id: id(n), depends_on_id: id(n - 1), type: 'blocks', created_at: stamp }];
  return bead;
}

/** Waits for a condition the soak watches from outside (a file, a call log), polling; a bound, not a sleep. */
export async function until(condition, what, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`soak: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** This process's environment without any HELIX_* or DDX_* setting, then the soak's own. */
export function soakEnv(settings) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^(HELIX_|DDX_)/.test(key)) env[key] = value;
  return { ...env, ...settings };
}

/** The JSON lines of a file (a stub's call log, a bead file); none when it is not there yet. */
export function jsonLines(path) {
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)) : [];
}

/** `helix <args>` started in the repository; `done` resolves with its exit code or signal and its stderr. */
export function startHelix(helixBin, repo, env, args) {
  const child = spawn(process.execPath, [helixBin, ...args], { cwd: repo, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  return { child, done: new Promise((resolveDone) => child.on('close', (code, signal) => resolveDone({ code, signal, stderr }))) };
}
