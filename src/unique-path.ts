// Files named by the second they were made in (session logs, blocker reports, backups) must not
// collide when two are made in the same second: a second run would append to the first run's log
// and report wrong line ranges, a second backup would overwrite the only copy of the original.
// The name is taken exclusively; a taken name gets `-2`, `-3`, … before its extension.

/** Most files one second can plausibly produce; past it, something is wrong with the folder. */
const MAX_TRIES = 1000;

/**
 * Calls `create(path)` — which must fail with EEXIST when the path exists (flag 'wx',
 * COPYFILE_EXCL) — for `<base><ext>`, then `<base>-2<ext>`, … ; returns the path it created.
 */
export function createUniquely(base: string, ext: string, create: (path: string) => void): string {
  for (let n = 1; n <= MAX_TRIES; n++) {
    const path = n === 1 ? `${base}${ext}` : `${base}-${n}${ext}`;
    try {
      create(path);
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new Error(`${base}${ext}: ${MAX_TRIES} files of this name exist already`);
}
