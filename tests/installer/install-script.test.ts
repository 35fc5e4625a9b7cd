// The real install-local-skills.sh, run by real Bash against temp HOMEs with real symlinks.
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from '../helpers/cli.js';
import { checkoutCopy, freshHome, requireBuild, runInstaller, SKILL_NAMES, snapshot, tempHome, VERSION } from './fixtures.js';

beforeAll(requireBuild);

const linkOf = (path: string) => readlinkSync(path);

describe('install-local-skills.sh', () => {
  it('a fresh install links every skill into ~/.agents and ~/.claude and writes a launcher that runs helix --version', () => {
    const checkout = checkoutCopy();
    const home = tempHome(); // does not exist yet: the installer creates what it needs
    const r = runInstaller(checkout, home);
    expect(r.status).toBe(0);
    for (const dir of [join(home, '.agents/skills'), join(home, '.claude/skills')]) {
      for (const skill of SKILL_NAMES) {
        expect(linkOf(join(dir, skill))).toBe(join(checkout, 'skills', skill));
        expect(readFileSync(join(dir, skill, 'SKILL.md'), 'utf8')).toContain(`name: ${skill}`);
      }
    }
    expect(existsSync(join(home, '.codex'))).toBe(false);
    const launcher = join(home, '.local/bin/helix');
    expect(statSync(launcher).mode & 0o111).toBe(0o111);
    const version = spawnSync(launcher, ['--version'], { encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(version.stdout).toBe(`helix ${VERSION}\n`);
    expect(r.stdout).toContain(`Installed skills into:\n  ${home}/.agents/skills\n  ${home}/.claude/skills\n`);
    expect(r.stdout).toContain(`Note: ${home}/.local/bin is not on PATH`);
  });

  it('a second run changes nothing and says so', () => {
    const checkout = checkoutCopy();
    const home = freshHome();
    expect(runInstaller(checkout, home).status).toBe(0);
    const before = snapshot(home);
    const r = runInstaller(checkout, home);
    expect(r.status).toBe(0);
    expect(snapshot(home)).toEqual(before);
    expect(r.stdout).toContain('Nothing to change: helix is already installed.');
    expect(r.stdout).not.toMatch(/^linked /m);
  });

  it('does not print the PATH note when ~/.local/bin is on PATH', () => {
    const checkout = checkoutCopy();
    const home = freshHome();
    const r = runInstaller(checkout, home, [], { PATH: `${join(home, '.local/bin')}:${process.env.PATH}` });
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain('is not on PATH');
  });

  it('leaves an existing real folder at a skill path alone, says so on stderr, and installs the rest', () => {
    const checkout = checkoutCopy();
    const home = freshHome();
    const own = join(home, '.claude/skills/helix-run');
    mkdirSync(own, { recursive: true });
    writeFileSync(join(own, 'SKILL.md'), 'my own skill\n');
    const r = runInstaller(checkout, home);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`skip existing non-symlink: ${own}`);
    expect(readFileSync(join(own, 'SKILL.md'), 'utf8')).toBe('my own skill\n');
    expect(linkOf(join(home, '.claude/skills/helix-build'))).toBe(join(checkout, 'skills/helix-build'));
    expect(linkOf(join(home, '.agents/skills/helix-run'))).toBe(join(checkout, 'skills/helix-run'));
  });

  it('leaves a symlink that points at something other than a helix skill alone', () => {
    const checkout = checkoutCopy();
    const home = freshHome();
    const elsewhere = join(tempDir(), 'some-tool/helix-run');
    mkdirSync(elsewhere, { recursive: true });
    const link = join(home, '.claude/skills/helix-run');
    mkdirSync(join(home, '.claude/skills'), { recursive: true });
    symlinkSync(elsewhere, link);
    const r = runInstaller(checkout, home);
    expect(r.status).toBe(0);
    expect(linkOf(link)).toBe(elsewhere);
    expect(r.stderr).toContain(`skip existing foreign symlink: ${link}`);
  });

  it('replaces a stale helix link whose checkout was removed', () => {
    const old = checkoutCopy();
    const home = freshHome();
    expect(runInstaller(old, home).status).toBe(0);
    const current = checkoutCopy();
    rmSync(old, { recursive: true });
    const r = runInstaller(current, home);
    expect(r.status).toBe(0);
    for (const skill of SKILL_NAMES) expect(linkOf(join(home, '.claude/skills', skill))).toBe(join(current, 'skills', skill));
    expect(r.stdout).toContain(`replaced stale helix link: ${home}/.claude/skills/helix-run`);
  });

  it('re-points a link into another live helix checkout without writing into that checkout', () => {
    const other = checkoutCopy();
    const checkout = checkoutCopy();
    const home = freshHome();
    expect(runInstaller(other, home).status).toBe(0);
    const before = snapshot(other);
    expect(runInstaller(checkout, home).status).toBe(0);
    expect(linkOf(join(home, '.claude/skills/helix-run'))).toBe(join(checkout, 'skills/helix-run'));
    expect(snapshot(other)).toEqual(before);
  });

  it('replaces a helix link whose checkout moved', () => {
    const old = checkoutCopy();
    const home = freshHome();
    expect(runInstaller(old, home).status).toBe(0);
    const moved = `${old} moved`;
    renameSync(old, moved);
    const r = runInstaller(moved, home);
    expect(r.status).toBe(0);
    expect(linkOf(join(home, '.agents/skills/helix-check'))).toBe(join(moved, 'skills/helix-check'));
  });

  it('--uninstall removes exactly its links and launcher and leaves unrelated files untouched', () => {
    const checkout = checkoutCopy();
    const other = checkoutCopy();
    const home = freshHome();
    const skills = join(home, '.claude/skills');
    mkdirSync(join(skills, 'helix-review'), { recursive: true }); // a real folder: skipped, then kept
    writeFileSync(join(skills, 'helix-review/SKILL.md'), 'mine\n');
    mkdirSync(join(skills, 'other-skill'));
    writeFileSync(join(skills, 'other-skill/SKILL.md'), 'other\n');
    symlinkSync(join(other, 'skills/helix-run'), join(skills, 'helix-run')); // helix, but another checkout
    mkdirSync(join(home, '.local/bin'), { recursive: true });
    writeFileSync(join(home, '.local/bin/other-tool'), '#!/bin/sh\n');
    const untouched = snapshot(home);

    expect(runInstaller(checkout, home).status).toBe(0);
    const r = runInstaller(checkout, home, ['--uninstall']);
    expect(r.status).toBe(0);
    // The other checkout's helix-run link was replaced at install (it is a helix link) …
    expect(existsSync(join(skills, 'helix-run'))).toBe(false);
    delete untouched['/.claude/skills/helix-run'];
    // … and everything else is exactly as before the install.
    const after = snapshot(home);
    expect(after).toEqual(expect.objectContaining(untouched));
    expect(Object.keys(after).filter((k) => !(k in untouched))).toEqual(['/.agents', '/.agents/skills']);
    expect(r.stdout).toContain(`removed launcher ${home}/.local/bin/helix`);
  });

  it('--uninstall keeps links into another checkout and a launcher it did not write', () => {
    const checkout = checkoutCopy();
    const other = checkoutCopy();
    const home = freshHome();
    expect(runInstaller(other, home).status).toBe(0);
    const r = runInstaller(checkout, home, ['--uninstall']);
    expect(r.status).toBe(0);
    expect(linkOf(join(home, '.claude/skills/helix-run'))).toBe(join(other, 'skills/helix-run'));
    expect(existsSync(join(home, '.local/bin/helix'))).toBe(true);
    expect(r.stdout).toContain('Nothing to remove');

    writeFileSync(join(home, '.local/bin/helix'), '#!/bin/sh\necho my own helix\n');
    expect(runInstaller(other, home, ['--uninstall']).status).toBe(0);
    expect(readFileSync(join(home, '.local/bin/helix'), 'utf8')).toBe('#!/bin/sh\necho my own helix\n');
  });

  it('skips a launcher path that holds someone else\'s file', () => {
    const checkout = checkoutCopy();
    const home = freshHome();
    mkdirSync(join(home, '.local/bin'), { recursive: true });
    writeFileSync(join(home, '.local/bin/helix'), '#!/bin/sh\necho mine\n');
    const r = runInstaller(checkout, home);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain(`skip existing launcher not written by helix: ${home}/.local/bin/helix`);
    expect(readFileSync(join(home, '.local/bin/helix'), 'utf8')).toBe('#!/bin/sh\necho mine\n');
  });

  it('works when HOME and the checkout path both contain spaces', () => {
    const checkout = checkoutCopy('helix with space-');
    const home = freshHome();
    expect(checkout).toContain(' ');
    expect(home).toContain(' ');
    expect(runInstaller(checkout, home).status).toBe(0);
    expect(linkOf(join(home, '.agents/skills/helix-next'))).toBe(join(checkout, 'skills/helix-next'));
    const version = spawnSync(join(home, '.local/bin/helix'), ['--version'], { encoding: 'utf8' });
    expect(version.stdout).toBe(`helix ${VERSION}\n`);
    expect(runInstaller(checkout, home, ['--uninstall']).status).toBe(0);
    expect(existsSync(join(home, '.agents/skills/helix-next'))).toBe(false);
    expect(existsSync(join(home, '.local/bin/helix'))).toBe(false);
  });

  it('honours AGENTS_HOME, CLAUDE_HOME and CODEX_HOME', () => {
    const checkout = checkoutCopy();
    const home = freshHome();
    const base = tempDir('helix homes-');
    const env = { AGENTS_HOME: join(base, 'agents'), CLAUDE_HOME: join(base, 'claude'), CODEX_HOME: join(base, 'co dex') };
    const r = runInstaller(checkout, home, [], env);
    expect(r.status).toBe(0);
    for (const dir of Object.values(env)) expect(linkOf(join(dir, 'skills/helix-run'))).toBe(join(checkout, 'skills/helix-run'));
    expect(existsSync(join(home, '.claude'))).toBe(false);
    expect(existsSync(join(home, '.agents'))).toBe(false);
    expect(r.stdout).toContain(`  ${join(base, 'co dex')}/skills\n`);
  });

  it('links into ~/.codex/skills when ~/.codex exists', () => {
    const checkout = checkoutCopy();
    const home = freshHome();
    mkdirSync(join(home, '.codex'));
    expect(runInstaller(checkout, home).status).toBe(0);
    expect(linkOf(join(home, '.codex/skills/helix-memory'))).toBe(join(checkout, 'skills/helix-memory'));
  });

  it('--dry-run prints the plan and changes nothing', () => {
    const checkout = checkoutCopy();
    const home = freshHome();
    const before = snapshot(home);
    const r = runInstaller(checkout, home, ['--dry-run', '--with-hooks']);
    expect(r.status).toBe(0);
    expect(snapshot(home)).toEqual(before);
    expect(r.stdout).toContain(`would link ${home}/.claude/skills/helix-run -> ${checkout}/skills/helix-run`);
    expect(r.stdout).toContain(`would write launcher ${home}/.local/bin/helix`);
    expect(r.stdout).toContain(`would add helix hooks to ${home}/.claude/settings.json`);
  });

  it('--uninstall --dry-run removes nothing', () => {
    const checkout = checkoutCopy();
    const home = freshHome();
    expect(runInstaller(checkout, home, ['--with-hooks']).status).toBe(0);
    const before = snapshot(home);
    const r = runInstaller(checkout, home, ['--uninstall', '--dry-run']);
    expect(r.status).toBe(0);
    expect(snapshot(home)).toEqual(before);
    expect(r.stdout).toContain(`would remove ${home}/.agents/skills/helix-run`);
  });

  it('refuses a skills target that is a file, exits non-zero and writes nothing', () => {
    const checkout = checkoutCopy();
    const home = freshHome();
    mkdirSync(join(home, '.claude'));
    writeFileSync(join(home, '.claude/skills'), 'not a folder\n');
    const before = snapshot(home);
    const r = runInstaller(checkout, home);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`refusing ${home}/.claude/skills: it exists and is not a directory`);
    expect(snapshot(home)).toEqual(before);
  });

  it('rejects an unknown option with exit 1', () => {
    const r = runInstaller(checkoutCopy(), freshHome(), ['--bogus']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('unknown option: --bogus');
  });
});

describe('install-local-skills.sh --with-hooks', () => {
  const settingsOf = (home: string) =>
    JSON.parse(readFileSync(join(home, '.claude/settings.json'), 'utf8')) as { hooks?: Record<string, { matcher?: string; hooks: { command: string }[] }[]> } & Record<string, unknown>;

  it('twice leaves one entry per hook, keeps the user\'s settings, backs up, and --uninstall removes only ours', () => {
    const checkout = checkoutCopy();
    const home = freshHome();
    mkdirSync(join(home, '.claude'));
    const userSettings = {
      model: 'opus',
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo mine' }] }] },
    };
    writeFileSync(join(home, '.claude/settings.json'), JSON.stringify(userSettings));

    const first = runInstaller(checkout, home, ['--with-hooks']);
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/added helix hooks to .*settings\.json \(backup: .*settings\.json\.helix-backup-\d{8}T\d{6}Z\)/);
    const second = runInstaller(checkout, home, ['--with-hooks']);
    expect(second.status).toBe(0);
    expect(second.stdout).toContain('Nothing to change');

    const settings = settingsOf(home);
    expect(settings.model).toBe('opus');
    const pre = settings.hooks!.PreToolUse!;
    expect(pre.map((g) => g.matcher)).toEqual(['Bash', 'Edit|Write|MultiEdit']);
    const commands = Object.values(settings.hooks!).flatMap((groups) => groups.flatMap((g) => g.hooks.map((h) => h.command)));
    expect(commands.filter((c) => c.endsWith('hook pre-tool-use'))).toHaveLength(1);
    expect(commands.filter((c) => c.endsWith('hook session-start'))).toHaveLength(1);
    expect(commands).toContain(`node '${checkout}/bin/helix' hook pre-tool-use`);

    expect(runInstaller(checkout, home, ['--uninstall']).status).toBe(0);
    expect(settingsOf(home)).toEqual(userSettings);
  });

  it('refuses a settings.json that is not JSON, exits non-zero, and leaves it as it was', () => {
    const checkout = checkoutCopy();
    const home = freshHome();
    mkdirSync(join(home, '.claude'));
    writeFileSync(join(home, '.claude/settings.json'), '{ not json');
    const r = runInstaller(checkout, home, ['--with-hooks']);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('settings.json is not valid JSON');
    expect(readFileSync(join(home, '.claude/settings.json'), 'utf8')).toBe('{ not json');
  });
});

describe('helix install', () => {
  it('runs the installer script with the flags given', () => {
    const home = freshHome();
    const r = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/helix'), 'install', '--dry-run'], {
      env: { PATH: process.env.PATH, HOME: home },
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`would link ${home}/.claude/skills/helix-run -> ${REPO_ROOT}/skills/helix-run`);
    expect(snapshot(home)).toEqual({ '/': expect.stringMatching(/^dir /) });
  });

  it('passes the script\'s failure through as a non-zero exit', () => {
    const home = freshHome();
    writeFileSync(join(home, '.agents'), 'a file where a folder should be\n');
    const r = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/helix'), 'install'], {
      env: { PATH: process.env.PATH, HOME: home, AGENTS_HOME: join(home, '.agents') },
      encoding: 'utf8',
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('is not a directory');
  });
});
