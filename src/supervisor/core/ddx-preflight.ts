// Can DDx build in this repository as it stands? Decided before helix claims anything, from facts
// the shell gathers (ddx-repository.ts), so a build DDx would refuse — or one that would take the
// user's work with it — stops with one line instead of failing bead after bead. What each DDx does
// (measured on the real binaries, docs/ddx.md):
//   - detached HEAD: current DDx refuses (`HEAD is detached; …`); v0.6.1 runs the agent and then
//     fails to land (`git symbolic-ref HEAD`), the work left on no branch. Refused on both.
//   - current DDx, a repository with `origin`: the branch must track origin's default branch
//     (internal/git/default_branch_preflight.go: no upstream or another upstream is refused unless
//     `--allow-non-default-branch`). helix refuses the same, unless HELIX_ALLOW_NON_DEFAULT_BRANCH=1,
//     and then passes the flag on. v0.6.1 has no such rule: it lands on the branch (and pushes it).
//   - uncommitted changes: v0.6.1 commits them as a checkpoint on the branch before it runs; current
//     DDx refuses (`operator attention: … uncommitted implementation changes`). Refused on both: the
//     user's changes are never absorbed into DDx's commits. DDx's own files do not count.
import type { DdxSurfaceKind } from '../../agents/index.js';

export interface BranchFacts {
  /** undefined: HEAD is detached. */
  branch: string | undefined;
  hasOrigin: boolean;
  /** The branch `refs/remotes/origin/HEAD` points at (undefined: not known here). */
  originDefault: string | undefined;
  /** The upstream branch name of `branch` (undefined: none configured). */
  upstream: string | undefined;
}

export interface RepositoryFacts extends BranchFacts {
  /** Uncommitted paths that are not DDx's or helix's own files. */
  dirty: string[];
  /** Uncommitted files DDx itself wrote into the project (isDdxProjectFile). */
  ddxFiles: string[];
}

/** HELIX_ALLOW_NON_DEFAULT_BRANCH=1: build on a branch DDx would refuse (helix passes `--allow-non-default-branch`). */
export const allowsNonDefaultBranch = (env: NodeJS.ProcessEnv): boolean => env.HELIX_ALLOW_NON_DEFAULT_BRANCH === '1';

/** Why DDx cannot build here, as the one line helix prints; undefined when it can. */
export function ddxBuildRefusal(surface: DdxSurfaceKind, facts: RepositoryFacts, allowNonDefault: boolean, version = 'DDx'): string | undefined {
  const nothing = 'Nothing was claimed.';
  if (facts.branch === undefined) {
    return `helix: HEAD is detached: ${version} lands a build on the checked-out branch. Check out a branch (git switch <branch>) and run again. ${nothing}`;
  }
  if (surface === 'current' && !allowNonDefault && facts.hasOrigin && facts.originDefault) {
    if (facts.upstream === undefined) {
      return `helix: branch ${facts.branch} has no upstream and ${version} builds only on a branch that tracks origin/${facts.originDefault}: run \`git branch -u origin/${facts.originDefault}\`, check out ${facts.originDefault}, or set HELIX_ALLOW_NON_DEFAULT_BRANCH=1 to build on ${facts.branch} anyway. ${nothing}`;
    }
    if (facts.upstream !== facts.originDefault) {
      return `helix: branch ${facts.branch} tracks ${facts.upstream}, not origin's default branch ${facts.originDefault}, and ${version} refuses to build there: check out ${facts.originDefault}, or set HELIX_ALLOW_NON_DEFAULT_BRANCH=1 to build on ${facts.branch} anyway. ${nothing}`;
    }
  }
  if (facts.dirty.length > 0) {
    const shown = facts.dirty.slice(0, 3).join(', ') + (facts.dirty.length > 3 ? `, … (${facts.dirty.length} in all)` : '');
    const would = surface === 'agent' ? 'would commit them into its checkpoint commit on the branch' : 'refuses to build over them';
    return `helix: uncommitted changes (${shown}): ${version} ${would}. Commit or stash them, then run again. ${nothing}`;
  }
  return undefined;
}

/**
 * Files that are DDx's or helix's own bookkeeping, not the user's work (ae663ca012
 * internal/agent/predispatch_dirty.go: the tracker files are committed by DDx itself, its runtime
 * folders are ignored; helix's own files live under .helix/, .helix-logs/ and .ddx/).
 */
export function isToolFile(path: string, trackerFolder = '.ddx'): boolean {
  // helix's tracker folder may sit elsewhere (HELIX_TRACKER_DIR): its files count as DDx's own
  if (trackerFolder !== '.ddx' && path.startsWith(`${trackerFolder}/`)) path = `.ddx/${path.slice(trackerFolder.length + 1)}`;
  if (path.startsWith('.helix/') || path.startsWith('.helix-logs/')) return true;
  path = path.replace(/\.tmp-\d+-\d+$/, ''); // a crash-safe write in flight (src/atomic-write.ts)
  if (path === '.ddx/beads.jsonl' || path === '.ddx/beads-archive.jsonl' || path === '.ddx/helix.pid' || path === '.ddx/run-state.json') return true;
  // what helix set aside itself: doctor --fix's quarantine, the beads a call lost
  if (path === '.ddx/beads.quarantine.jsonl' || /^\.ddx\/beads\.lost-[^/]*\.jsonl$/.test(path)) return true;
  return /^\.ddx\/(metrics|executions|workers|coordination|runs|run-state|attachments|harness-sessions|agent-logs)(\/|$)/.test(path) || /^\.ddx\/(beads\.lock|\.git-tracker\.lock|beads\.jsonl\.(tmp|bak)-)/.test(path);
}

/**
 * Files DDx itself writes into a project and expects committed — `ddx init`'s configuration and
 * skills (v0.6.1 leaves `.ddx/skills/` uncommitted; current commits its files when git has an
 * identity), `ddx bead create`'s lifecycle schema (current) — measured on both binaries. Not the
 * user's work: v0.6.1 folds them into its checkpoint commit, and current DDx refuses to build over
 * them, so helix commits them itself before `ddx try` (shell/ddx-repository.ts).
 */
export function isDdxProjectFile(path: string): boolean {
  return /^\.ddx\/(skills\/|plugins\/|config\.yaml$|versions\.yaml$|lifecycle-schema\.json$)/.test(path);
}
