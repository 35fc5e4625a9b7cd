// The overnight the soaks work (scripts/soak.mjs, soak-fleet.mjs, soak-chaos.mjs): 40 beads in 8
// chains of 5, each bead blocked by the one before it, in a fresh git repository; which beads hit a
// limit, fail for good, or are in flight when helix is killed; and what a night of crashes needs —
// a seeded random, helix and everything it started, a crash of all of them, a checkout behind its branch.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
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

/** A seeded random number generator (mulberry32): the same seed, the same night. */
export function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every live process of /proc: pid → [parent pid, its environment]. */
function processTable() {
  const table = new Map();
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      table.set(Number(entry), [ppid, readFileSync(`/proc/${entry}/environ`)]);
    } catch {
      // gone meanwhile, or not ours
    }
  }
  return table;
}

/**
 * A helix process and every process it started: its descendants, and whatever carries its process
 * tag (src/agents/descendants.ts: every agent call's environment does, through setsid and reparenting).
 */
export function helixProcesses(pid, tag) {
  const table = processTable();
  const found = new Set(table.has(pid) ? [pid] : []);
  for (const [p, [, environ]] of table) if (environ.includes(tag)) found.add(p);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [p, [ppid]] of table) {
      if (found.has(ppid) && !found.has(p)) {
        found.add(p);
        grew = true;
      }
    }
  }
  return [...found];
}

/** A crash: every process frozen first (SIGSTOP, so none reacts to another's death), then SIGKILLed. */
export function freezeAndKill(pids) {
  for (const signal of ['SIGSTOP', 'SIGKILL']) {
    for (const p of pids) {
      try {
        process.kill(p, signal);
      } catch {
        // gone already
      }
    }
  }
}

/**
 * Tracked files that lag the branch after a DDx killed inside its land (the ref moved, the checkout
 * not yet): each changed file outside .ddx/ is exactly what one of the ten commits before HEAD had
 * (or absent, as there). Empty when any change is something else: that is someone's work.
 */
export function lagging(git) {
  const changed = git('status', '--porcelain=v1', '--untracked-files=no').stdout.split('\n').filter(Boolean).map((l) => l.slice(3)).filter((p) => !p.startsWith('.ddx/') && !p.startsWith('.helix'));
  const root = git('rev-parse', '--show-toplevel').stdout.trim();
  const content = (path) => (existsSync(join(root, path)) ? readFileSync(join(root, path), 'utf8') : null);
  const at = (rev, path) => {
    const r = git('show', `${rev}:${path}`);
    return r.status === 0 ? r.stdout : null;
  };
  const behind = (path) => Array.from({ length: 10 }, (_, k) => `HEAD~${k + 1}`).some((rev) => git('rev-parse', '-q', '--verify', rev).status === 0 && at(rev, path) === content(path));
  return changed.length > 0 && changed.every(behind) ? changed : [];
}
