// What helix asks git (shell/git.ts), asked of real repositories in temp folders: whether this is a
// work tree (23 outside one), the head an attempt starts from (none on an unborn HEAD), whether a
// commit exists and is on the branch, whether tracked files have uncommitted changes, and how much
// an attempt changed since its base — committed or not, untracked files counted, the tracker left out.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertGitWorkTree, changeSize, commitExists, gitHead, onBranch, worktreeDirty } from '../../../src/supervisor/shell/git.js';
import { tempDir, tempGitRepo } from '../../helpers/cli.js';

function git(root: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

function commit(root: string, file: string, text: string, message = file): string {
  writeFileSync(join(root, file), text);
  git(root, 'add', file);
  git(root, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', message);
  return git(root, 'rev-parse', 'HEAD');
}

describe('assertGitWorkTree', () => {
  it('passes inside a work tree, even in a subfolder, and refuses anywhere else with 23', () => {
    const root = tempGitRepo();
    mkdirSync(join(root, 'sub'));
    expect(() => assertGitWorkTree(join(root, 'sub'))).not.toThrow();
    const outside = tempDir();
    expect(() => assertGitWorkTree(outside)).toThrow(expect.objectContaining({ exitCode: 23, message: expect.stringContaining(`helix: ${outside} is not inside a git work tree`) }));
  });
});

describe('the head and the commits', () => {
  it('an unborn HEAD has no head; after a commit, the head is that commit', async () => {
    const root = tempDir();
    git(root, 'init', '-q', '-b', 'main');
    expect(await gitHead(root)).toBeUndefined();
    const sha = commit(root, 'a.txt', 'a\n');
    expect(await gitHead(root)).toBe(sha);
  });

  it('a commit on another branch exists but is not on the branch HEAD is on', async () => {
    const root = tempGitRepo();
    const base = git(root, 'rev-parse', 'HEAD');
    git(root, 'switch', '-q', '-c', 'side');
    const side = commit(root, 'side.txt', 'side\n');
    git(root, 'switch', '-q', 'main');
    expect(await commitExists(root, side)).toBe(true);
    expect(await commitExists(root, '0123456789abcdef0123456789abcdef01234567')).toBe(false);
    expect(await onBranch(root, base)).toBe(true);
    expect(await onBranch(root, side)).toBe(false);
  });
});

describe('worktreeDirty', () => {
  it('counts tracked changes, staged or not, and never an untracked file', () => {
    const root = tempGitRepo();
    commit(root, 'tracked.txt', 'one\n');
    writeFileSync(join(root, 'new.txt'), 'untracked\n');
    expect(worktreeDirty(root)).toBe(false);
    writeFileSync(join(root, 'tracked.txt'), 'two\n');
    expect(worktreeDirty(root)).toBe(true);
    git(root, 'add', 'tracked.txt');
    expect(worktreeDirty(root)).toBe(true);
  });
});

describe('changeSize', () => {
  it('counts lines and files changed since the base, committed or not, untracked included, the tracker left out', async () => {
    const root = tempGitRepo();
    mkdirSync(join(root, '.ddx'));
    const base = commit(root, 'a.txt', 'one\ntwo\n');
    commit(root, 'a.txt', 'one\nTWO\nthree\n'); // committed: 1 removed, 2 added
    writeFileSync(join(root, 'b.txt'), 'x\ny'); // untracked, no last newline: 2 lines
    writeFileSync(join(root, '.ddx', 'beads.jsonl'), '{"id":"hx-1"}\n'.repeat(50)); // helix's bookkeeping
    expect(await changeSize(root, base, join(root, '.ddx', 'beads.jsonl'))).toEqual({ lines: 5, files: 2 });
    expect(await changeSize(root, base)).toEqual({ lines: 55, files: 3 });
  });

  it('cannot be measured without a base, or from a base git does not know', async () => {
    const root = tempGitRepo();
    expect(await changeSize(root, undefined)).toBeUndefined();
    expect(await changeSize(root, '0123456789abcdef0123456789abcdef01234567')).toBeUndefined();
  });
});
