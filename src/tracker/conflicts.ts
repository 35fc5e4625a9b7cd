// Which copy of a bead `tracker doctor --fix` keeps when the file has several — a git conflict, or
// a plain duplicate line. Pure: lines in, a choice per id out; integrity.ts moves the rest, verbatim,
// to the quarantine file, so nothing is lost either way.
//
// Inside a git conflict the two copies are two branches' edits of one bead and neither side is
// right by position (`ours` is the branch merged into, or the one rebased onto), so the newer edit
// wins: the later `updated_at`, and on a tie (or without dates) the later line, which is also the
// copy every read shows. A diff3 base section holds the common ancestor and never wins. Plain
// duplicates outside a conflict keep the later line, as reads do.

export type ConflictSide = 'ours' | 'base' | 'theirs';

export interface BeadCopy {
  /** 1-based line number. */
  line: number;
  raw: string;
  updatedAt: string | undefined;
  /** Where the line sits in a git conflict, if it does. */
  side: ConflictSide | undefined;
  /** The marker's label: `HEAD`, a branch name, a commit. */
  label: string | undefined;
}

export interface CopyChoice {
  id: string;
  kept: BeadCopy;
  moved: BeadCopy[];
  /** A git conflict decided it (else a plain duplicate). */
  conflict: boolean;
}

const MARKER = /^(<{7}|\|{7}|={7}|>{7})(?:\s+(.*))?$/;

/** The side of each line (by index) inside conflict markers; undefined outside. */
export function conflictSides(lines: string[]): Array<{ side: ConflictSide; label: string | undefined } | undefined> {
  const sides: Array<{ side: ConflictSide; label: string | undefined } | undefined> = [];
  let current: { side: ConflictSide; label: string | undefined } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const marker = MARKER.exec((lines[i] ?? '').trim());
    sides.push(marker ? undefined : current);
    if (!marker) continue;
    const [, kind, label] = marker;
    if (kind?.startsWith('<')) current = { side: 'ours', label: label?.trim() || undefined };
    else if (kind?.startsWith('|')) current = { side: 'base', label: label?.trim() || undefined };
    else if (kind?.startsWith('=')) current = current ? { side: 'theirs', label: undefined } : undefined;
    else {
      // `>>>>>>> label` names the theirs side after the fact
      const theirs = label?.trim() || undefined;
      for (let j = i - 1; j >= 0 && sides[j]?.side === 'theirs'; j--) sides[j] = { side: 'theirs', label: theirs };
      current = undefined;
    }
  }
  return sides;
}

const timeOf = (value: string | undefined) => (value ? Date.parse(value) : Number.NaN);

/** Whether `a` is the newer edit than `b`: a later updated_at; a dated copy over an undated one; else the later line. */
function newerEdit(a: BeadCopy, b: BeadCopy): boolean {
  const ta = timeOf(a.updatedAt);
  const tb = timeOf(b.updatedAt);
  if (!Number.isNaN(ta) && !Number.isNaN(tb) && ta !== tb) return ta > tb;
  if (Number.isNaN(ta) !== Number.isNaN(tb)) return !Number.isNaN(ta);
  return a.line > b.line;
}

/** For every id with more than one copy: the copy to keep and the ones to move. */
export function chooseCopies(copiesById: Map<string, BeadCopy[]>): CopyChoice[] {
  const choices: CopyChoice[] = [];
  for (const [id, copies] of copiesById) {
    if (copies.length < 2) continue;
    const conflict = copies.some((c) => c.side !== undefined);
    const candidates = conflict ? copies.filter((c) => c.side !== 'base') : copies;
    const last = (candidates.length > 0 ? candidates : copies).at(-1) as BeadCopy;
    const kept = conflict ? candidates.reduce((best, copy) => (newerEdit(copy, best) ? copy : best), last) : last;
    choices.push({ id, kept, moved: copies.filter((c) => c !== kept), conflict });
  }
  return choices;
}

/** One line saying which copy was kept and where the others went. */
export function describeChoice(choice: CopyChoice, quarantineFile: string): string {
  const where = (c: BeadCopy) => `${c.side ? `${c.side}${c.label ? ` (${c.label})` : ''}, ` : ''}line ${c.line}${c.updatedAt ? `, updated ${c.updatedAt}` : ''}`;
  const why = choice.conflict ? 'git conflict: kept the newer edit' : 'duplicate id: kept the last line';
  return `${why} of ${choice.id} — ${where(choice.kept)}; moved ${choice.moved.map(where).join('; ')} to ${quarantineFile}`;
}
