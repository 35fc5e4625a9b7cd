// inspectSkillLinks / repairSkillLinks / inspectLauncher (what `helix doctor [--fix]` reports and
// repairs), on real symlinks in temp HOMEs, cross-checked against the real installer script.
import { mkdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import {
  helixSkillNames,
  inspectLauncher,
  inspectSkillLinks,
  repairSkillLinks,
  skillTargetDirs,
  type SkillLink,
} from '../../src/installer/skill-links.js';
import { checkoutCopy, freshHome, requireBuild, runInstaller, SKILL_NAMES, snapshot } from './fixtures.js';

beforeAll(requireBuild);

const stateOf = (links: SkillLink[], target: string) => links.find((l) => l.target === target)?.state;

describe('skill link inspection', () => {
  it('finds every skill of the checkout', () => {
    expect(helixSkillNames(checkoutCopy())).toEqual(SKILL_NAMES);
  });

  it('targets ~/.agents and ~/.claude, and Codex only when CODEX_HOME is set or ~/.codex exists', () => {
    const home = freshHome();
    expect(skillTargetDirs({ home, env: {} })).toEqual([join(home, '.agents/skills'), join(home, '.claude/skills')]);
    expect(skillTargetDirs({ home, env: { CODEX_HOME: '/x/codex', CLAUDE_HOME: '/x/claude', AGENTS_HOME: '/x/agents' } })).toEqual([
      '/x/agents/skills',
      '/x/claude/skills',
      '/x/codex/skills',
    ]);
    mkdirSync(join(home, '.codex'));
    expect(skillTargetDirs({ home, env: {} })).toContain(join(home, '.codex/skills'));
  });

  it('reports every link ok after the real installer ran', () => {
    const checkout = checkoutCopy();
    const home = freshHome();
    expect(runInstaller(checkout, home).status).toBe(0);
    const links = inspectSkillLinks({ home, env: {}, helixRoot: checkout });
    expect(links).toHaveLength(SKILL_NAMES.length * 2);
    expect(new Set(links.map((l) => l.state))).toEqual(new Set(['ok']));
    expect(inspectLauncher({ home, helixRoot: checkout }).state).toBe('ok');
  });

  it('tells missing, broken, foreign and not-a-link apart', () => {
    const checkout = checkoutCopy();
    const home = freshHome();
    const skills = join(home, '.claude/skills');
    mkdirSync(skills, { recursive: true });
    const gone = join(tempDir(), 'moved-away/skills/helix-run');
    symlinkSync(gone, join(skills, 'helix-run'));
    const foreign = join(tempDir(), 'tool/helix-build');
    mkdirSync(foreign, { recursive: true });
    symlinkSync(foreign, join(skills, 'helix-build'));
    mkdirSync(join(skills, 'helix-check'));
    const links = inspectSkillLinks({ home, env: {}, helixRoot: checkout });
    expect(stateOf(links, join(skills, 'helix-run'))).toBe('broken');
    expect(stateOf(links, join(skills, 'helix-build'))).toBe('foreign');
    expect(stateOf(links, join(skills, 'helix-check'))).toBe('not-a-link');
    expect(stateOf(links, join(skills, 'helix-next'))).toBe('missing');
    expect(stateOf(links, join(home, '.agents/skills/helix-run'))).toBe('missing');
  });

  it('reports a skills folder blocked by a file as unusable', () => {
    const home = freshHome();
    writeFileSync(join(home, '.claude'), 'a file\n');
    const links = inspectSkillLinks({ home, env: {}, helixRoot: checkoutCopy() });
    expect(stateOf(links, join(home, '.claude/skills/helix-run'))).toBe('folder-unusable');
    expect(stateOf(links, join(home, '.agents/skills/helix-run'))).toBe('missing');
  });
});

describe('skill link repair', () => {
  it('links missing skills and relinks broken helix links, leaving foreign links and real folders alone', () => {
    const checkout = checkoutCopy();
    const home = freshHome();
    const skills = join(home, '.claude/skills');
    mkdirSync(skills, { recursive: true });
    symlinkSync(join(tempDir(), 'old checkout/skills/helix-run'), join(skills, 'helix-run'));
    const foreign = join(tempDir(), 'tool/helix-build');
    mkdirSync(foreign, { recursive: true });
    symlinkSync(foreign, join(skills, 'helix-build'));
    mkdirSync(join(skills, 'helix-check'));
    writeFileSync(join(skills, 'helix-check/SKILL.md'), 'mine\n');

    const repairs = repairSkillLinks({ home, env: {}, helixRoot: checkout });
    const action = (target: string) => repairs.find((r) => r.target === target)?.action;
    expect(action(join(skills, 'helix-run'))).toBe('relinked');
    expect(action(join(skills, 'helix-next'))).toBe('linked');
    expect(action(join(skills, 'helix-build'))).toBe('left');
    expect(action(join(skills, 'helix-check'))).toBe('left');

    expect(readlinkSync(join(skills, 'helix-run'))).toBe(join(checkout, 'skills/helix-run'));
    expect(readlinkSync(join(skills, 'helix-build'))).toBe(foreign);
    expect(readFileSync(join(skills, 'helix-check/SKILL.md'), 'utf8')).toBe('mine\n');
    const after = inspectSkillLinks({ home, env: {}, helixRoot: checkout });
    expect(after.filter((l) => l.state !== 'ok').map((l) => l.target)).toEqual([join(skills, 'helix-build'), join(skills, 'helix-check')]);
  });

  it('is idempotent: a second repair leaves everything', () => {
    const checkout = checkoutCopy();
    const home = freshHome();
    repairSkillLinks({ home, env: {}, helixRoot: checkout });
    const before = snapshot(home);
    expect(repairSkillLinks({ home, env: {}, helixRoot: checkout }).every((r) => r.action === 'left')).toBe(true);
    expect(snapshot(home)).toEqual(before);
  });

  it('with dryRun reports what it would do and writes nothing', () => {
    const home = freshHome();
    const before = snapshot(home);
    const repairs = repairSkillLinks({ home, env: {}, helixRoot: checkoutCopy(), dryRun: true });
    expect(repairs.every((r) => r.action === 'linked')).toBe(true);
    expect(snapshot(home)).toEqual(before);
  });

  it('repairs the same links the installer would make, so the installer then has nothing to do', () => {
    const checkout = checkoutCopy();
    const home = freshHome();
    repairSkillLinks({ home, env: {}, helixRoot: checkout });
    rmSync(join(home, '.claude/skills/helix-run'));
    symlinkSync(join(tempDir(), 'gone/skills/helix-run'), join(home, '.claude/skills/helix-run'));
    repairSkillLinks({ home, env: {}, helixRoot: checkout });
    const r = runInstaller(checkout, home);
    expect(r.status).toBe(0);
    expect(r.stdout).not.toMatch(/^(linked|replaced)/m);
  });
});

describe('launcher inspection', () => {
  it('tells missing, foreign and another checkout\'s launcher apart', () => {
    const checkout = checkoutCopy();
    const home = freshHome();
    expect(inspectLauncher({ home, helixRoot: checkout }).state).toBe('missing');
    expect(runInstaller(checkoutCopy(), home).status).toBe(0);
    expect(inspectLauncher({ home, helixRoot: checkout }).state).toBe('other-checkout');
    writeFileSync(join(home, '.local/bin/helix'), '#!/bin/sh\necho mine\n');
    expect(inspectLauncher({ home, helixRoot: checkout }).state).toBe('foreign');
  });
});
