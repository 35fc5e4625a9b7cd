// Inspection and repair of the skill links install-local-skills.sh makes (docs/contract/cli.md §11), for
// `helix doctor` and `helix doctor --fix`. The rules are the script's: a link is helix's when it
// points at <checkout>/skills/<its own name>; only helix's links are ever replaced, and nothing is
// written through a link.
import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  statSync,
  symlinkSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

export type SkillLinkState =
  /** a link to this checkout's skill */
  | 'ok'
  /** nothing there yet */
  | 'missing'
  /** a helix link pointing elsewhere: a moved or removed checkout, or another checkout */
  | 'broken'
  /** a link to something that is not a helix skill: left alone */
  | 'foreign'
  /** a real file or folder: left alone */
  | 'not-a-link'
  /** the skills folder itself exists and is not a directory: nothing can be linked there */
  | 'folder-unusable';

export interface SkillLink {
  skill: string;
  /** the link's path, e.g. ~/.claude/skills/helix-run */
  target: string;
  state: SkillLinkState;
  /** where the link points now, for links */
  pointsTo?: string;
}

export interface SkillLinkOptions {
  home: string;
  env: NodeJS.ProcessEnv;
  helixRoot: string;
}

/** The skill folders the installer links into, in the order of docs/contract/cli.md §11. */
export function skillTargetDirs({ home, env }: Pick<SkillLinkOptions, 'home' | 'env'>): string[] {
  const dirs = [join(env.AGENTS_HOME || join(home, '.agents'), 'skills'), join(env.CLAUDE_HOME || join(home, '.claude'), 'skills')];
  if (env.CODEX_HOME || isDirectory(join(home, '.codex'))) dirs.push(join(env.CODEX_HOME || join(home, '.codex'), 'skills'));
  return dirs;
}

/** The skills this checkout ships: every skills/<name> holding a SKILL.md. */
export function helixSkillNames(helixRoot: string): string[] {
  const dir = join(helixRoot, 'skills');
  if (!isDirectory(dir)) return [];
  return readdirSync(dir)
    .filter((name) => existsSync(join(dir, name, 'SKILL.md')))
    .sort();
}

/**
 * True when a link's destination is a helix skill folder for `skill`: `…/skills/<skill>` whose
 * checkout holds bin/helix, or such a path that no longer exists (a moved or deleted checkout).
 */
export function isHelixSkillDestination(linkPath: string, destination: string, skill: string): boolean {
  if (!skill.startsWith('helix-')) return false;
  const dest = resolve(dirname(linkPath), destination.replace(/\/+$/, ''));
  if (basename(dest) !== skill || basename(dirname(dest)) !== 'skills') return false;
  if (!existsSync(dest)) return true;
  return existsSync(join(dirname(dirname(dest)), 'bin', 'helix'));
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The nearest existing path on the way to `path` when it is not a directory (nothing fits below it). */
function nonDirectoryOnPath(path: string): string | undefined {
  let current = path;
  while (!lstatOrUndefined(current)) {
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
  return isDirectory(current) ? undefined : current;
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** The checkout's real path: the installer links to it with symlinks resolved (`cd -P`). */
function realRoot(helixRoot: string): string {
  try {
    return realpathSync(helixRoot);
  } catch {
    return resolve(helixRoot);
  }
}

export function inspectSkillLinks(options: SkillLinkOptions): SkillLink[] {
  const skillsDir = join(realRoot(options.helixRoot), 'skills');
  const result: SkillLink[] = [];
  for (const dir of skillTargetDirs(options)) {
    const folderUsable = nonDirectoryOnPath(dir) === undefined;
    for (const skill of helixSkillNames(options.helixRoot)) {
      const target = join(dir, skill);
      if (!folderUsable) {
        result.push({ skill, target, state: 'folder-unusable' });
        continue;
      }
      const stat = lstatOrUndefined(target);
      if (!stat) {
        result.push({ skill, target, state: 'missing' });
      } else if (!stat.isSymbolicLink()) {
        result.push({ skill, target, state: 'not-a-link' });
      } else {
        const pointsTo = readlinkSync(target);
        const ours = resolve(dir, pointsTo) === join(skillsDir, skill) && isDirectory(target);
        const state = ours ? 'ok' : isHelixSkillDestination(target, pointsTo, skill) ? 'broken' : 'foreign';
        result.push({ skill, target, state, pointsTo });
      }
    }
  }
  return result;
}

export interface SkillLinkRepair extends SkillLink {
  /** what repair did: linked a missing one, relinked a broken one, or left it as it was */
  action: 'linked' | 'relinked' | 'left';
}

/**
 * Links missing skills and re-points broken helix links at this checkout. Foreign links, real
 * files and folders, and unusable skill folders are left alone. `dryRun` reports without writing.
 */
export function repairSkillLinks(options: SkillLinkOptions & { dryRun?: boolean }): SkillLinkRepair[] {
  const skillsDir = join(realRoot(options.helixRoot), 'skills');
  return inspectSkillLinks(options).map((link): SkillLinkRepair => {
    if (link.state !== 'missing' && link.state !== 'broken') return { ...link, action: 'left' };
    if (!options.dryRun) {
      mkdirSync(dirname(link.target), { recursive: true });
      // unlink removes the link itself; symlinkSync never writes through an existing link.
      if (link.state === 'broken') unlinkSync(link.target);
      symlinkSync(join(skillsDir, link.skill), link.target);
    }
    return { ...link, action: link.state === 'missing' ? 'linked' : 'relinked' };
  });
}

/** The launcher the installer writes, and whether it runs this checkout. */
export type LauncherState = 'ok' | 'missing' | 'other-checkout' | 'foreign';

export function inspectLauncher({ home, helixRoot }: Pick<SkillLinkOptions, 'home' | 'helixRoot'>): { path: string; state: LauncherState } {
  const path = join(home, '.local', 'bin', 'helix');
  const stat = lstatOrUndefined(path);
  if (!stat) return { path, state: 'missing' };
  if (!stat.isFile()) return { path, state: 'foreign' };
  const second = readLauncherMarker(path);
  if (second === undefined) return { path, state: 'foreign' };
  return { path, state: second === realRoot(helixRoot) ? 'ok' : 'other-checkout' };
}

const LAUNCHER_MARKER = '# helix launcher written by install-local-skills.sh for: ';

function readLauncherMarker(path: string): string | undefined {
  try {
    const line = (readFileHead(path, 4096).split('\n')[1] ?? '').trimEnd();
    return line.startsWith(LAUNCHER_MARKER) ? line.slice(LAUNCHER_MARKER.length) : undefined;
  } catch {
    return undefined;
  }
}

/** The first bytes of a file: a launcher is tiny and a foreign binary need not be read whole. */
function readFileHead(path: string, bytes: number): string {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const n = readSync(fd, buffer, 0, bytes, 0);
    return buffer.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}
