// Whether the tracker's folder and bead file can be used at all, told in one line (exit 16) before
// any command trips over them with a stack: `.ddx` (or DDX_BEAD_DIR) that is a file or a link to
// nothing, a bead file that is a link to nothing, and a relative DDX_BEAD_DIR that names one
// folder from the project root and another from the subfolder helix was started in.
// Kept apart from tracker-dir.ts's pure path rules: these look at the filesystem.
import { existsSync, lstatSync, readlinkSync, statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { HelixError } from '../errors.js';
import { quoted } from '../numbers.js';

const unusable = (message: string) => new HelixError('trackerUnusable', message);

/** What is at `path`: nothing, a folder, a file, or a link to nothing. */
function kindOf(path: string): 'missing' | 'folder' | 'file' | 'dangling' | 'blocked' {
  let link = false;
  try {
    link = lstatSync(path).isSymbolicLink();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: a folder on the way is a file
    return code === 'ENOTDIR' ? 'blocked' : 'missing';
  }
  try {
    return statSync(path).isDirectory() ? 'folder' : 'file';
  } catch {
    return link ? 'dangling' : 'missing';
  }
}

function linkTarget(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '?';
  }
}

/** Throws (exit 16) when the tracker folder `dir` is a file, a dangling link, or under a file. */
export function assertUsableTrackerDir(dir: string): void {
  const kind = kindOf(dir);
  if (kind === 'file') throw unusable(`helix: ${dir} is a file, not a folder: the bead tracker needs a folder there (move the file away)`);
  if (kind === 'dangling') throw unusable(`helix: ${dir} is a link to ${linkTarget(dir)}, which does not exist: create that folder or remove the link`);
  if (kind === 'blocked') throw unusable(`helix: ${dir} cannot be a folder: a folder on its path is a file`);
}

/** Throws (exit 16) when the bead file is a link to nothing: a write would not know where to go. */
export function assertUsableBeadsFile(file: string): void {
  const kind = kindOf(file);
  if (kind === 'dangling') throw unusable(`helix: ${file} is a link to ${linkTarget(file)}, which does not exist: restore the file it points to or remove the link`);
  if (kind === 'folder') throw unusable(`helix: ${file} is a folder, not the bead file`);
}

/**
 * The folder a DDX_BEAD_DIR / HELIX_TRACKER_DIR value names. A relative value is read from the
 * project root (`top`), so a subfolder sees the same backlog; where it also names a different
 * existing folder from `cwd` (which DDx, reading it from its working folder, would use), helix
 * refuses rather than guess.
 */
export function overrideTrackerDir(name: string, value: string, cwd: string, top: string): string {
  if (isAbsolute(value)) return resolve(value);
  const fromTop = resolve(top, value);
  const fromHere = resolve(cwd, value);
  if (fromHere === fromTop || !existsSync(fromHere)) return fromTop;
  throw unusable(
    `helix: ${name}=${quoted(value)} is relative: helix reads it from the project root (${fromTop}), but from here it names another folder (${fromHere}); set an absolute path`,
  );
}
