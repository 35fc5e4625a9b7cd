// The repository facts ddx-preflight.ts decides on, read with git (arguments as arrays, no shell),
// and the refusal itself: thrown before the run or build claims anything (exit 13).
import { spawnSync } from 'node:child_process';
import { relative, sep } from 'node:path';
import { HelixError } from '../../errors.js';
import { type RepositoryFacts, allowsNonDefaultBranch, ddxBuildRefusal, isDdxProjectFile, isToolFile } from '../core/ddx-preflight.js';
import { SETUP } from '../text/setup.js';
import type { Session } from './session.js';

function git(root: string, ...args: string[]): string | undefined {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/**
 * Does git ignore DDx's runtime files (`.ddx/agent-logs/`, from the .gitignore `ddx init` writes)?
 * Without that, two `ddx try` at once each count the other's agent log as uncommitted changes and
 * refuse (measured on ae663ca012; docs/scale.md).
 */
export function ddxRuntimeIgnored(root: string): boolean {
  return git(root, 'check-ignore', '-q', '.ddx/agent-logs/agent-loop.jsonl') !== undefined;
}

/** Uncommitted paths (tracked changes and untracked files, not ignored ones), as git names them. */
function uncommittedPaths(root: string): string[] {
  // --no-optional-locks: a read must never write the index back (a `ddx try` may be landing meanwhile)
  const r = spawnSync('git', ['--no-optional-locks', 'status', '--porcelain=v1', '-z', '--untracked-files=all'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) return [];
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

export function repositoryFacts(root: string, trackerDir = `${root}/.ddx`): RepositoryFacts {
  const trackerFolder = relative(root, trackerDir).split(sep).join('/');
  const head = git(root, 'symbolic-ref', '-q', 'HEAD');
  const branch = head?.startsWith('refs/heads/') ? head.slice('refs/heads/'.length) : undefined;
  const hasOrigin = git(root, 'remote', 'get-url', 'origin') !== undefined;
  const originHead = hasOrigin ? git(root, 'symbolic-ref', '-q', 'refs/remotes/origin/HEAD') : undefined;
  const merge = branch ? git(root, 'config', '--get', `branch.${branch}.merge`) : undefined;
  return {
    branch,
    hasOrigin,
    originDefault: originHead?.startsWith('refs/remotes/origin/') ? originHead.slice('refs/remotes/origin/'.length) : undefined,
    upstream: merge?.startsWith('refs/heads/') ? merge.slice('refs/heads/'.length) : merge || undefined,
    ...splitUncommitted(uncommittedPaths(root).filter((path) => !isToolFile(path, trackerFolder))),
  };
}

/** The user's uncommitted paths, and the files DDx wrote itself. */
function splitUncommitted(paths: string[]): { dirty: string[]; ddxFiles: string[] } {
  return { dirty: paths.filter((p) => !isDdxProjectFile(p)), ddxFiles: paths.filter(isDdxProjectFile) };
}

/**
 * Refuses (exit 13) a run or build DDx cannot do in this repository as it stands. Current DDx
 * refuses to build over its own uncommitted project files too: helix commits those (and only
 * those) first, and says so on stderr.
 */
export function assertDdxCanBuild(session: Pick<Session, 'root' | 'ddx' | 'buildPath' | 'store'>, env: NodeJS.ProcessEnv): void {
  const surface = session.ddx?.surface;
  if (!surface || session.buildPath === 'direct') return;
  if (git(session.root, 'rev-parse', '--git-dir') === undefined) return; // not a git repository: DDx says so itself
  const facts = repositoryFacts(session.root, session.store.dir);
  const refusal = ddxBuildRefusal(surface, facts, allowsNonDefaultBranch(env), `DDx ${session.ddx?.version ?? ''}`.trim());
  if (refusal) throw new HelixError('repositoryState', refusal);
  if (surface === 'current' && facts.ddxFiles.length > 0) commitDdxFiles(session.root, facts.ddxFiles);
}

/** Commits DDx's own project files — those paths alone, whatever else is staged. */
function commitDdxFiles(root: string, paths: string[]): void {
  const add = spawnSync('git', ['add', '--', ...paths], { cwd: root, encoding: 'utf8' });
  const commit = add.status === 0 ? spawnSync('git', ['commit', '-q', '--no-verify', '-m', "chore: add DDx's project files (helix, before ddx try)", '--', ...paths], { cwd: root, encoding: 'utf8' }) : add;
  if (commit.status !== 0) throw new HelixError('repositoryState', SETUP.ddxFilesNotCommitted(paths, (commit.stderr || commit.stdout).trim().split('\n')[0] ?? ''));
  process.stderr.write(`${SETUP.ddxFilesCommitted(paths)}\n`);
}
