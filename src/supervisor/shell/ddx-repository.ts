// The repository facts ddx-preflight.ts decides on, read with git (git.ts),
// and the refusal itself: thrown before the run or build claims anything (exit 13).
import { relative, sep } from 'node:path';
import { HelixError } from '../../errors.js';
import { type RepositoryFacts, allowsNonDefaultBranch, ddxBuildRefusal, isDdxProjectFile, isToolFile } from '../core/ddx-preflight.js';
import { SETUP } from '../text/setup.js';
import { commitPaths, gitValue, isIgnored, uncommittedPaths } from './git.js';
import type { Session } from './agent-setup.js';

/**
 * Does git ignore DDx's runtime files (`.ddx/agent-logs/`, from the .gitignore `ddx init` writes)?
 * Without that, two `ddx try` at once each count the other's agent log as uncommitted changes and
 * refuse (measured on ae663ca012; docs/scale.md).
 */
export function ddxRuntimeIgnored(root: string): boolean {
  return isIgnored(root, '.ddx/agent-logs/agent-loop.jsonl');
}

export function repositoryFacts(root: string, trackerDir = `${root}/.ddx`): RepositoryFacts {
  const trackerFolder = relative(root, trackerDir).split(sep).join('/');
  const head = gitValue(root, 'symbolic-ref', '-q', 'HEAD');
  const branch = head?.startsWith('refs/heads/') ? head.slice('refs/heads/'.length) : undefined;
  const hasOrigin = gitValue(root, 'remote', 'get-url', 'origin') !== undefined;
  const originHead = hasOrigin ? gitValue(root, 'symbolic-ref', '-q', 'refs/remotes/origin/HEAD') : undefined;
  const merge = branch ? gitValue(root, 'config', '--get', `branch.${branch}.merge`) : undefined;
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
  if (gitValue(session.root, 'rev-parse', '--git-dir') === undefined) return; // not a git repository: DDx says so itself
  const facts = repositoryFacts(session.root, session.store.dir);
  const refusal = ddxBuildRefusal(surface, facts, allowsNonDefaultBranch(env), `DDx ${session.ddx?.version ?? ''}`.trim());
  if (refusal) throw new HelixError('repositoryState', refusal);
  if (surface === 'current' && facts.ddxFiles.length > 0) commitDdxFiles(session.root, facts.ddxFiles);
}

/** Commits DDx's own project files — those paths alone, whatever else is staged. */
function commitDdxFiles(root: string, paths: string[]): void {
  const failed = commitPaths(root, paths, "chore: add DDx's project files (helix, before ddx try)");
  if (failed !== undefined) throw new HelixError('repositoryState', SETUP.ddxFilesNotCommitted(paths, failed));
  process.stderr.write(`${SETUP.ddxFilesCommitted(paths)}\n`);
}
