// The repository facts a DDx build is decided on (shell/ddx-repository.ts), read from real git
// repositories: the branch and what it tracks of origin, the user's uncommitted files apart from
// DDx's own and from helix's bookkeeping; a build current DDx would refuse refused here first (13,
// nothing claimed), DDx's own uncommitted project files committed alone, and nothing asked at all on
// the direct path. The session is prepared with the current-DDx stand-in on PATH.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { assertDdxCanBuild, ddxRuntimeIgnored, repositoryFacts } from '../../../src/supervisor/shell/ddx-repository.js';
import { prepareSession } from '../../../src/supervisor/shell/agent-setup.js';
import { tempDir, tempGitRepo } from '../../helpers/cli.js';

const CURRENT_DDX = { PATH: `${resolve(import.meta.dirname, '../../stubs/ddx-current')}:/usr/bin:/bin` };

afterEach(() => vi.restoreAllMocks());

function git(root: string, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

function project(): string {
  const root = tempGitRepo();
  mkdirSync(join(root, '.ddx'));
  writeFileSync(join(root, '.ddx', 'beads.jsonl'), '');
  return root;
}

describe('repositoryFacts', () => {
  it("tells the user's uncommitted files from DDx's own, and leaves helix's bookkeeping out", () => {
    const root = project();
    mkdirSync(join(root, '.helix-logs'));
    writeFileSync(join(root, '.helix-logs', 'helix-x.log'), 'log\n');
    writeFileSync(join(root, '.ddx', 'config.yaml'), 'bead: {}\n');
    writeFileSync(join(root, 'notes.md'), 'mine\n');
    expect(repositoryFacts(root)).toEqual({ branch: 'main', hasOrigin: false, originDefault: undefined, upstream: undefined, dirty: ['notes.md'], ddxFiles: ['.ddx/config.yaml'] });
  });

  it("reads origin's default branch and the branch's upstream", () => {
    const origin = tempDir();
    git(origin, 'init', '-q', '--bare', '-b', 'main');
    const root = project();
    git(root, 'remote', 'add', 'origin', origin);
    git(root, 'push', '-q', '-u', 'origin', 'main');
    git(root, 'remote', 'set-head', 'origin', 'main');
    git(root, 'switch', '-q', '-c', 'feature');
    expect(repositoryFacts(root)).toMatchObject({ branch: 'feature', hasOrigin: true, originDefault: 'main', upstream: undefined });
    git(root, 'switch', '-q', 'main');
    expect(repositoryFacts(root)).toMatchObject({ branch: 'main', upstream: 'main' });
  });

  it("knows whether git ignores DDx's runtime files", () => {
    const root = project();
    expect(ddxRuntimeIgnored(root)).toBe(false);
    writeFileSync(join(root, '.gitignore'), '.ddx/agent-logs/\n');
    expect(ddxRuntimeIgnored(root)).toBe(true);
  });
});

describe('assertDdxCanBuild', () => {
  it("refuses a build over the user's uncommitted changes with 13, naming them", async () => {
    const root = project();
    writeFileSync(join(root, 'notes.md'), 'mine\n');
    const session = await prepareSession(root, CURRENT_DDX, {});
    expect(() => assertDdxCanBuild(session, CURRENT_DDX)).toThrow(expect.objectContaining({ exitCode: 13, message: expect.stringMatching(/^helix: uncommitted changes \(notes\.md\): .* refuses to build over them\./) }));
  });

  it('refuses on a detached HEAD', async () => {
    const root = project();
    git(root, 'switch', '-q', '--detach');
    const session = await prepareSession(root, CURRENT_DDX, {});
    expect(() => assertDdxCanBuild(session, CURRENT_DDX)).toThrow(expect.objectContaining({ exitCode: 13, message: expect.stringMatching(/^helix: HEAD is detached: /) }));
  });

  it("commits DDx's own uncommitted project files, those alone whatever else is staged, and says so", async () => {
    const root = project();
    git(root, 'add', '.ddx/beads.jsonl');
    git(root, 'commit', '-q', '-m', 'tracker');
    mkdirSync(join(root, '.ddx', 'skills'));
    writeFileSync(join(root, '.ddx', 'config.yaml'), 'bead: {}\n');
    writeFileSync(join(root, '.ddx', 'skills', 'x.md'), 'skill\n');
    // helix's tracker, changed and staged: bookkeeping, not DDx's files, and not part of their commit
    writeFileSync(join(root, '.ddx', 'beads.jsonl'), '{"id":"hx-1","title":"t","status":"open","priority":2}\n');
    git(root, 'add', '.ddx/beads.jsonl');
    const session = await prepareSession(root, CURRENT_DDX, {});
    const err: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => (err.push(String(text)), true));
    assertDdxCanBuild(session, CURRENT_DDX);
    expect(git(root, 'log', '-1', '--format=%s')).toBe("chore: add DDx's project files (helix, before ddx try)");
    expect(git(root, 'show', '--name-only', '--format=', 'HEAD').split('\n').sort()).toEqual(['.ddx/config.yaml', '.ddx/skills/x.md']);
    expect(git(root, 'status', '--porcelain')).toBe('M  .ddx/beads.jsonl');
    expect(err.join('')).toMatch(/^helix: committed DDx's own project files before the build \(/);
  });

  it('asks nothing on the direct path: a dirty tree is the agent\'s to work in', async () => {
    const root = project();
    writeFileSync(join(root, 'notes.md'), 'mine\n');
    const session = await prepareSession(root, { PATH: '/usr/bin:/bin' }, {}, false);
    expect(session.buildPath).toBe('direct');
    expect(() => assertDdxCanBuild(session, {})).not.toThrow();
  });
});
