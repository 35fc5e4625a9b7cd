// Where the tracker lives: `<git top>/.ddx` unless HELIX_TRACKER_DIR / DDX_BEAD_DIR say otherwise,
// and keeping helix's runtime files out of `git status` through `.git/info/exclude`.
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { assertUsableTrackerDir, overrideTrackerDir } from './location.js';
import { HelixError } from '../errors.js';
import { quoted } from '../numbers.js';

export const BEADS_FILE = 'beads.jsonl';
export const QUARANTINE_FILE = 'beads.quarantine.jsonl';

/** Runtime files that must never show up in `git status` (docs/contract/cli.md §5). */
export const RUNTIME_EXCLUDES = [
  '.ddx/beads.lock',
  '.ddx/beads.lock.stale-*',
  '.ddx/beads.lock.break',
  '.ddx/beads.lock.tombstone.*',
  '.ddx/beads.jsonl.tmp-*',
  '.ddx/beads.jsonl.bak-*',
  '.ddx/helix.pid',
  '.ddx/run-state.json',
  '.ddx/run-state.json.tmp-*',
  '.helix/',
  '.helix-logs/',
  // helix's pre-merge check on current DDx (and its temp file while written): never the user's
  // change, never in DDx's uncommitted-changes refusal (docs/ddx.md#verified-before-it-lands)
  '.ddx/checks/helix-verify.yaml*',
];

/** The nearest ancestor of `start` holding `.git` (directory or worktree file), or undefined. */
export function gitTopLevel(start: string = process.cwd()): string | undefined {
  let dir = resolve(start);
  for (;;) {
    if (existsSync(join(dir, '.git'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export function projectRoot(cwd: string = process.cwd()): string {
  return gitTopLevel(cwd) ?? resolve(cwd);
}

/**
 * The tracker folder: HELIX_TRACKER_DIR, else DDX_BEAD_DIR (a relative one read from the project
 * root), else `<project root>/.ddx`. Exit 16 when it is a file or a dangling link (location.ts).
 */
export function trackerDir(cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): string {
  const name = env.HELIX_TRACKER_DIR ? 'HELIX_TRACKER_DIR' : 'DDX_BEAD_DIR';
  const override = env[name];
  const dir = override ? overrideTrackerDir(name, override, resolve(cwd), projectRoot(cwd)) : join(projectRoot(cwd), '.ddx');
  assertUsableTrackerDir(dir);
  return dir;
}

export function beadsFile(dir: string): string {
  return join(dir, BEADS_FILE);
}

/** Id prefix: DDX_BEAD_PREFIX, else `bead.id_prefix` in `.ddx/config.yaml`, else the project folder name, else `bx`. */
export function idPrefix(dir: string, cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): string {
  if (env.DDX_BEAD_PREFIX) return validPrefix('DDX_BEAD_PREFIX', env.DDX_BEAD_PREFIX);
  const fromConfig = configScalar(join(dir, 'config.yaml'), 'bead', 'id_prefix')?.split(/\s/)[0];
  if (fromConfig) return validPrefix(`bead.id_prefix in ${join(dir, 'config.yaml')}`, fromConfig);
  const top = gitTopLevel(cwd);
  const name = top ? basename(top).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '') : '';
  return name || 'bx';
}

/** The longest prefix whose ids (`<prefix>-<8 hex>`) stay within DDx's 64 characters. */
export const MAX_PREFIX_LENGTH = 64 - 9;

/**
 * An id prefix as DDx accepts ids (internal/bead/id.go ValidateID: letters, digits and dashes, at
 * most 64 characters): anything else — a path separator, a dot, a space — would put the character
 * into every new id, where DDx refuses it and tools that name files after ids go astray. Exit 7.
 */
export function validPrefix(source: string, prefix: string): string {
  if (/^[A-Za-z0-9-]+$/.test(prefix) && prefix.length <= MAX_PREFIX_LENGTH) return prefix;
  throw new HelixError('validation', `helix: ${source} must be letters, digits and dashes, at most ${MAX_PREFIX_LENGTH} characters, got ${quoted(prefix)}`);
}

/**
 * One `section:` → `  key: value` scalar of DDx's `.ddx/config.yaml`, read without a YAML
 * dependency (DDx writes these two-level keys only): quotes and a trailing comment dropped.
 */
export function configScalar(file: string, section: string, key: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  let inSection = false;
  const entry = new RegExp(`^\\s+${key}:\\s*["']?([^"'#]+?)["']?\\s*(#.*)?$`);
  for (const line of text.split('\n')) {
    if (/^\S/.test(line)) inSection = line.trimEnd() === `${section}:`;
    const match = inSection ? entry.exec(line) : null;
    if (match?.[1]) return match[1].trim();
  }
  return undefined;
}

/** The `info/exclude` file of the repository at `top` (worktrees share the common git dir). */
function excludeFile(top: string): string | undefined {
  const dotGit = join(top, '.git');
  try {
    if (statSync(dotGit).isDirectory()) return join(dotGit, 'info', 'exclude');
    const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
    if (!pointer) return undefined;
    const gitDir = resolve(top, pointer);
    const common = existsSync(join(gitDir, 'commondir'))
      ? resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim())
      : gitDir;
    return join(common, 'info', 'exclude');
  } catch {
    return undefined;
  }
}

/** The same runtime files for a tracker folder moved by HELIX_TRACKER_DIR / DDX_BEAD_DIR. */
function trackerDirExcludes(top: string, dir: string | undefined): string[] {
  if (!dir) return [];
  const rel = relative(top, resolve(dir)).split(sep).join('/');
  if (!rel || rel === '.ddx' || rel.startsWith('..') || isAbsolute(rel)) return [];
  return RUNTIME_EXCLUDES.filter((p) => p.startsWith('.ddx/')).map((p) => `/${rel}/${p.slice('.ddx/'.length)}`);
}

/** Repositories whose exclude file this process already checked: every write calls in here. */
const excludedAlready = new Set<string>();

/** Adds the runtime patterns missing from `.git/info/exclude`; a no-op outside git. */
export function excludeRuntimeFiles(cwd: string = process.cwd(), dir?: string): void {
  const top = gitTopLevel(cwd);
  const file = top ? excludeFile(top) : undefined;
  const key = `${file}\0${dir ?? ''}`;
  if (!top || !file || excludedAlready.has(key)) return;
  excludedAlready.add(key);
  const patterns = [...RUNTIME_EXCLUDES, ...trackerDirExcludes(top, dir)];
  let existing = '';
  try {
    existing = readFileSync(file, 'utf8');
  } catch {
    mkdirSync(dirname(file), { recursive: true });
  }
  const present = new Set(existing.split('\n').map((l) => l.trim()));
  const missing = patterns.filter((p) => !present.has(p));
  if (missing.length === 0) return;
  const lead = existing && !existing.endsWith('\n') ? '\n' : '';
  appendFileSync(file, `${lead}# helix runtime files\n${missing.join('\n')}\n`);
}
