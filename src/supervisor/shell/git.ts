// The one module that runs git (arguments as arrays, no shell): what helix asks the repository it
// runs in — the head an attempt starts from, whether a commit exists here or is on the branch, how
// much an attempt changed, which paths are uncommitted or ignored, the branch and its upstream —
// and the few things it does there: commit DDx's own project files, add and remove the worktree
// `helix gate` verifies in. What an attempt asks is asked without blocking: with several slots one
// attempt's git must not hold the others (issue 38), so those reads are async; the commands' checks
// before anything starts, and `helix gate` (a process of its own), wait for git.
import { spawnSync } from 'node:child_process';
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { HelixError } from '../../errors.js';

/**
 * For the reads: git refreshes the index's stat cache opportunistically and writes it back, which
 * can put back an index another process (a `ddx try` landing, with --jobs) wrote meanwhile.
 */
const READ_ONLY = ['--no-optional-locks'];

/**
 * The guard before any effect of a command that calls agents (docs/contract/cli.md §4): outside a
 * git work tree there is no project for an agent to change, nothing to diff, review or land, and
 * the tracker would be made in whatever folder this is. One line and exit 23; nothing created.
 */
export function assertGitWorkTree(cwd: string): void {
  const r = spawnSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd, encoding: 'utf8' });
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    throw new HelixError('missingTool', 'helix: git not found on PATH: helix runs agents only inside a git repository (install git); nothing was changed');
  }
  if (r.status === 0 && r.stdout.trim() === 'true') return;
  throw new HelixError('notInGitWorkTree', `helix: ${cwd} is not inside a git work tree: run helix in your project's repository (or \`git init\` here first); nothing was created and no agent was called`);
}

/** git, waited for: whether it exited 0, its output, and its error text (or why it could not start); never thrown. */
function gitSync(cwd: string, args: string[]): { ok: boolean; stdout: string; stderr: string } {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { ok: r.status === 0, stdout: r.stdout ?? '', stderr: r.stderr ?? r.error?.message ?? '' };
}

/** What git printed, trimmed, when it exited 0; undefined on any failure (a ref or setting that is not there). */
export function gitValue(root: string, ...args: string[]): string | undefined {
  const r = gitSync(root, args);
  return r.ok ? r.stdout.trim() : undefined;
}

/** Whether git ignores `path` (relative to `root`). */
export function isIgnored(root: string, path: string): boolean {
  return gitSync(root, ['check-ignore', '-q', path]).ok;
}

/** Uncommitted paths (tracked changes and untracked files, not ignored ones), as git names them. */
export function uncommittedPaths(root: string): string[] {
  // --no-optional-locks: a read must never write the index back (a `ddx try` may be landing meanwhile)
  const r = gitSync(root, [...READ_ONLY, 'status', '--porcelain=v1', '-z', '--untracked-files=all']);
  if (!r.ok) return [];
  const records = r.stdout.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < records.length; i++) {
    const record = records[i] ?? '';
    if (record.length < 4) continue;
    paths.push(record.slice(3));
    if (record[0] === 'R' || record[0] === 'C') i++; // the rename's source follows
  }
  return paths;
}

/** Commits `paths` alone, whatever else is staged; undefined when done, else the first line git said. */
export function commitPaths(root: string, paths: string[], message: string): string | undefined {
  const add = gitSync(root, ['add', '--', ...paths]);
  const commit = add.ok ? gitSync(root, ['commit', '-q', '--no-verify', '-m', message, '--', ...paths]) : add;
  return commit.ok ? undefined : ((commit.stderr || commit.stdout).trim().split('\n')[0] ?? '');
}

/** `git worktree add --detach <path> <rev>`: whether it was made, and git's error text. */
export function addWorktree(root: string, path: string, rev: string): { ok: boolean; err: string } {
  const r = gitSync(root, ['worktree', 'add', '--detach', path, rev]);
  return { ok: r.ok, err: r.stderr.trim() };
}

/**
 * `git worktree remove --force --force <path>`: whether git removed it. Twice: a `git worktree add`
 * killed half way leaves its worktree locked (`initializing`), which one --force and `git worktree
 * prune` both leave alone, its folder there or not (found by the chaos soak).
 */
export function removeWorktree(root: string, path: string): boolean {
  return gitSync(root, ['worktree', 'remove', '--force', '--force', path]).ok;
}

/** Forgets worktrees whose folders are gone. */
export function pruneWorktrees(root: string): void {
  gitSync(root, ['worktree', 'prune']);
}

/** The folders of the repository's worktrees (its own first); undefined when git cannot list them. */
export function worktreePaths(root: string): string[] | undefined {
  const r = gitSync(root, ['worktree', 'list', '--porcelain']);
  if (!r.ok) return undefined;
  return r.stdout
    .trim()
    .split('\n')
    .filter((line) => line.startsWith('worktree '))
    .map((line) => line.slice('worktree '.length));
}

/**
 * git, without waiting synchronously: its exit code and output (never thrown). `cleanup: false`, as
 * every child of helix (agents/run-agent.ts): execa's cleanup installs signal-exit, whose handlers,
 * once removed, leave SIGXFSZ at its default — a full disk would kill helix instead of failing a
 * write it reports (tests/faults/disk.test.ts).
 */
async function gitAsync(root: string, args: string[]): Promise<{ status: number; stdout: string }> {
  const r = await execa('git', args, { cwd: root, reject: false, cleanup: false, stripFinalNewline: false, maxBuffer: 64 * 1024 * 1024 });
  return { status: typeof r.exitCode === 'number' ? r.exitCode : -1, stdout: typeof r.stdout === 'string' ? r.stdout : '' };
}

/** The commit HEAD names; undefined on an unborn HEAD or outside a repository. */
export async function gitHead(root: string): Promise<string | undefined> {
  const r = await gitAsync(root, ['rev-parse', '--verify', '-q', 'HEAD']);
  return r.status === 0 ? r.stdout.trim() : undefined;
}

export async function commitExists(root: string, sha: string): Promise<boolean> {
  return (await gitAsync(root, ['rev-parse', '--verify', '-q', `${sha}^{commit}`])).status === 0;
}

/** Whether `sha` is on the branch HEAD is on (an ancestor of HEAD). */
export async function onBranch(root: string, sha: string): Promise<boolean> {
  return (await gitAsync(root, ['merge-base', '--is-ancestor', sha, 'HEAD'])).status === 0;
}

/** Tracked files with staged or unstaged changes (untracked files do not count). */
export function worktreeDirty(root: string): boolean {
  const changed = (args: string[]) => spawnSync('git', [...READ_ONLY, 'diff', '--quiet', ...args], { cwd: root }).status === 1;
  return changed([]) || changed(['--cached']);
}

/** Lines of a file as git counts them for a new file (a last line without a newline counts). */
function fileLines(path: string): number {
  let text: Buffer;
  try {
    text = readFileSync(path);
  } catch {
    return 0;
  }
  if (text.includes(0)) return 0; // binary: git counts no lines
  let lines = 0;
  for (const byte of text) if (byte === 0x0a) lines++;
  return text.length > 0 && text[text.length - 1] !== 0x0a ? lines + 1 : lines;
}

/**
 * Lines (added + deleted) and files the attempt changed since `base`, committed or not: the diff
 * from `base` to the working tree plus untracked files. The tracker file is helix's bookkeeping,
 * not the attempt's change, and is left out. Undefined when it cannot be measured (no base
 * revision — an unborn HEAD when the attempt started — or any git error): the caller reviews then.
 */
export async function changeSize(root: string, base: string | undefined, trackerFile?: string): Promise<{ lines: number; files: number } | undefined> {
  if (!base) return undefined;
  const top = await gitAsync(root, ['rev-parse', '--show-toplevel']);
  if (top.status !== 0) return undefined;
  const rel = trackerFile ? relative(top.stdout.trim(), trackerFile) : undefined;
  const pathspec = ['--', '.', ...(rel && !rel.startsWith('..') ? [`:(exclude,glob)${rel}*`] : [])];
  const [diff, untracked] = await Promise.all([gitAsync(root, [...READ_ONLY, 'diff', '--numstat', base, ...pathspec]), gitAsync(root, [...READ_ONLY, 'ls-files', '--others', '--exclude-standard', '-z', ...pathspec])]);
  if (diff.status !== 0 || untracked.status !== 0) return undefined;
  let lines = 0;
  let files = 0;
  for (const row of diff.stdout.split('\n')) {
    const [added, removed] = row.split('\t');
    if (added === undefined || removed === undefined) continue;
    files++;
    lines += (Number(added) || 0) + (Number(removed) || 0);
  }
  for (const path of untracked.stdout.split('\0').filter(Boolean)) {
    files++;
    lines += fileLines(join(root, path));
  }
  return { lines, files };
}
