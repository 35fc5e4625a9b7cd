import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUNTIME_EXCLUDES, excludeRuntimeFiles, idPrefix, trackerDir } from '../../src/tracker/index.js';
import { tempDir, tempGitRepo } from '../helpers/cli.js';

describe('trackerDir', () => {
  it('is <git top>/.ddx from any subfolder', () => {
    const repo = tempGitRepo();
    mkdirSync(join(repo, 'src', 'deep'), { recursive: true });
    expect(trackerDir(join(repo, 'src', 'deep'), {})).toBe(join(repo, '.ddx'));
  });

  it('HELIX_TRACKER_DIR wins, then DDX_BEAD_DIR, resolved against the cwd', () => {
    const repo = tempGitRepo();
    expect(trackerDir(repo, { HELIX_TRACKER_DIR: 'custom', DDX_BEAD_DIR: '/elsewhere' })).toBe(join(repo, 'custom'));
    expect(trackerDir(repo, { DDX_BEAD_DIR: '/elsewhere' })).toBe('/elsewhere');
  });

  it('outside git it is ./.ddx', () => {
    const dir = tempDir();
    expect(trackerDir(dir, {})).toBe(join(dir, '.ddx'));
  });
});

describe('idPrefix', () => {
  it('DDX_BEAD_PREFIX first', () => {
    const repo = tempGitRepo();
    mkdirSync(join(repo, '.ddx'));
    writeFileSync(join(repo, '.ddx', 'config.yaml'), 'bead:\n  id_prefix: cfg\n');
    expect(idPrefix(join(repo, '.ddx'), repo, { DDX_BEAD_PREFIX: 'env' })).toBe('env');
  });

  it('then bead.id_prefix in .ddx/config.yaml (quoted or not, comments ignored)', () => {
    const repo = tempGitRepo();
    mkdirSync(join(repo, '.ddx'));
    writeFileSync(join(repo, '.ddx', 'config.yaml'), 'other:\n  id_prefix: wrong\nbead:\n  # the prefix\n  id_prefix: "cfg" # ours\n');
    expect(idPrefix(join(repo, '.ddx'), repo, {})).toBe('cfg');
  });

  it('then the git top-level folder name, lowercased and dashed', () => {
    const repo = tempGitRepo('My_Project.');
    const expected = repo.split('/').pop()!.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
    expect(idPrefix(join(repo, '.ddx'), join(repo), {})).toBe(expected);
    expect(expected).toMatch(/^my-project-/);
  });

  it('else bx', () => {
    const dir = tempDir();
    expect(idPrefix(join(dir, '.ddx'), dir, {})).toBe('bx');
  });
});

describe('excludeRuntimeFiles', () => {
  it('adds the runtime patterns to .git/info/exclude once', () => {
    const repo = tempGitRepo();
    excludeRuntimeFiles(repo);
    excludeRuntimeFiles(repo);
    const text = readFileSync(join(repo, '.git', 'info', 'exclude'), 'utf8');
    for (const pattern of RUNTIME_EXCLUDES) expect(text.split('\n').filter((l) => l === pattern)).toHaveLength(1);
    for (const name of ['.ddx/beads.lock', '.ddx/helix.pid', '.ddx/run-state.json', '.helix/', '.helix-logs/']) expect(RUNTIME_EXCLUDES).toContain(name);
  });

  it('makes git ignore the runtime files but not the bead file', () => {
    const repo = tempGitRepo();
    excludeRuntimeFiles(repo);
    mkdirSync(join(repo, '.ddx', 'beads.lock'), { recursive: true });
    writeFileSync(join(repo, '.ddx', 'beads.lock', 'pid'), '1\n');
    writeFileSync(join(repo, '.ddx', 'helix.pid'), '1 x\n');
    writeFileSync(join(repo, '.ddx', 'run-state.json'), '{}');
    mkdirSync(join(repo, '.helix-logs'));
    writeFileSync(join(repo, '.helix-logs', 'a.log'), 'x');
    writeFileSync(join(repo, '.ddx', 'beads.jsonl'), '');
    const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: repo, encoding: 'utf8' }).stdout;
    expect(status).toBe('?? .ddx/beads.jsonl\n');
  });

  it('uses the common git dir from a linked worktree', () => {
    const repo = tempGitRepo();
    const wt = join(tempDir(), 'wt');
    spawnSync('git', ['worktree', 'add', '-q', '-b', 'side', wt], { cwd: repo });
    excludeRuntimeFiles(wt);
    expect(readFileSync(join(repo, '.git', 'info', 'exclude'), 'utf8')).toContain('.ddx/beads.lock\n');
  });

  it('is a no-op outside git: it creates no .git folder', () => {
    const dir = tempDir();
    excludeRuntimeFiles(dir);
    expect(readdirSync(dir)).toEqual([]);
  });
});
