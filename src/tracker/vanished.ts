// Beads that vanished from the file while something else held it: an agent that truncated
// beads.jsonl or deleted `.ddx` during its call. Not queue drift — beads are never deleted (DDx
// has no delete; its `bead archive` moves closed beads to beads-archive.jsonl, and those are not
// lost) — so the run stops loudly (exit 15), after saving each lost bead's last line where
// `helix tracker import` can put it back.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HelixError } from '../errors.js';
import { createUniquely } from '../unique-path.js';
import { encodeBeadsText } from './bytes.js';
import { parseBeads, readBeadsText, type Snapshot } from './read.js';

/** DDx's archive of closed beads, beside the bead file (internal/bead/archive.go). */
export const ARCHIVE_FILE = 'beads-archive.jsonl';

/** Ids in `before` that are in neither `after` nor DDx's archive, in file order. */
export function vanishedIds(before: Snapshot, after: Snapshot, archived: () => Set<string>): string[] {
  const gone = before.beads.map((b) => b.id).filter((id) => !after.byId.has(id));
  if (gone.length === 0) return [];
  const moved = archived();
  return gone.filter((id) => !moved.has(id));
}

/** Ids DDx archived in the tracker folder `dir` (empty without an archive). */
export function archivedIds(dir: string): Set<string> {
  try {
    return new Set(parseBeads(readBeadsText(join(dir, ARCHIVE_FILE))).byId.keys());
  } catch {
    return new Set();
  }
}

/**
 * Saves the lost beads' lines (as `before` had them) to `<dir>/beads.lost-<stamp>.jsonl` and says
 * in one line which went and where they are: `the bead file lost 3 bead(s) during the claude call:
 * …; their last lines are in … (…)` (the caller says what happens next).
 */
export function saveLostBeads(dir: string, before: Snapshot, ids: string[], during: string, now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  let saved: string;
  try {
    mkdirSync(dir, { recursive: true });
    // two saves in one second (a run that goes on after one) each get a file of their own
    const file = createUniquely(join(dir, `beads.lost-${stamp}`), '.jsonl', (path) =>
      writeFileSync(path, encodeBeadsText(ids.map((id) => `${before.rawLines.get(id) ?? ''}\n`).join('')), { flag: 'wx' }),
    );
    saved = `their last lines are in ${file} (\`helix tracker import ${file}\` puts them back)`;
  } catch (error) {
    saved = `their last lines could not be saved (${(error as Error).message})`;
  }
  const shown = ids.length > 10 ? `${ids.slice(0, 10).join(', ')} and ${ids.length - 10} more` : ids.join(', ');
  return `helix: the bead file lost ${ids.length} bead(s) during the ${during} call: ${shown}; ${saved}`;
}

/** Saves the lost beads (saveLostBeads) and returns the error that stops the run, naming them. */
export function beadsLostError(dir: string, before: Snapshot, ids: string[], during: string, now: Date): HelixError {
  return new HelixError('beadsLost', `${saveLostBeads(dir, before, ids, during, now)}; stopping`);
}
