// Reading the JSONL bead file, tolerantly: malformed lines, duplicate ids and conflict markers are
// reported by line number and the read goes on. Kept apart from the store's write side (lock,
// pid checks) so `helix tracker ready|blocked` loads only what a read needs.
import { readFileSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import type { Bead } from './bead.js';

export type ProblemKind = 'malformed' | 'duplicate' | 'conflict-marker';

export interface StoreProblem {
  /** 1-based line number in the file. */
  line: number;
  kind: ProblemKind;
  detail: string;
  /** The line exactly as it is in the file. */
  raw: string;
}

export interface Snapshot {
  /** Beads in file order, one per id (for a duplicate id the last line wins). */
  beads: Bead[];
  byId: Map<string, Bead>;
  problems: StoreProblem[];
  /** The original text of each bead's line by id, so unchanged records are rewritten byte for byte. */
  rawLines: Map<string, string>;
}

const CONFLICT_MARKER = /^(<{7}|={7}|>{7}|\|{7})(\s|$)/;

export function parseBeads(text: string): Snapshot {
  const beads: Bead[] = [];
  const byId = new Map<string, Bead>();
  const lineOf = new Map<string, number>();
  // Keyed by id, not by bead object: keying a Map by 10K parsed objects cost measurable time.
  const rawLines = new Map<string, string>();
  const superseded = new Set<Bead>();
  const problems: StoreProblem[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? '';
    const line = raw.trim();
    if (!line) continue;
    const lineNo = i + 1;
    if (CONFLICT_MARKER.test(line)) {
      problems.push({ line: lineNo, kind: 'conflict-marker', detail: 'git conflict marker', raw });
      continue;
    }
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (error) {
      problems.push({ line: lineNo, kind: 'malformed', detail: (error as Error).message, raw });
      continue;
    }
    if (!record || typeof record !== 'object' || Array.isArray(record) || typeof (record as Bead).id !== 'string' || !(record as Bead).id) {
      problems.push({ line: lineNo, kind: 'malformed', detail: 'not a bead object with a string id', raw });
      continue;
    }
    const bead = record as Bead;
    const earlier = byId.get(bead.id);
    if (earlier) {
      const earlierLine = lineOf.get(bead.id) ?? 0;
      problems.push({ line: earlierLine, kind: 'duplicate', detail: `duplicate id ${bead.id} (also on line ${lineNo})`, raw: rawLines.get(bead.id) ?? '' });
      superseded.add(earlier); // removed once at the end: splicing per duplicate was quadratic
    }
    beads.push(bead);
    byId.set(bead.id, bead);
    lineOf.set(bead.id, lineNo);
    rawLines.set(bead.id, raw);
  }
  problems.sort((a, b) => a.line - b.line);
  return { beads: superseded.size ? beads.filter((b) => !superseded.has(b)) : beads, byId, problems, rawLines };
}

/** One warning line naming the problem lines, for reads that go on regardless. */
export function describeProblems(file: string, problems: StoreProblem[]): string {
  const byKind = (kind: ProblemKind) => problems.filter((p) => p.kind === kind).map((p) => p.line);
  const parts: string[] = [];
  const malformed = byKind('malformed');
  const duplicate = byKind('duplicate');
  const markers = byKind('conflict-marker');
  if (malformed.length) parts.push(`malformed line(s) ${malformed.join(', ')}`);
  if (duplicate.length) parts.push(`duplicate id line(s) ${duplicate.join(', ')}`);
  if (markers.length) parts.push(`conflict marker line(s) ${markers.join(', ')}`);
  return `${file}: ${parts.join('; ')}`;
}

/**
 * The warning a read prints when the file has problems; it goes on, writes will refuse. A read
 * that shows counts or picks a bead (`status`, `next`) says what the numbers leave out.
 */
export function problemsWarning(file: string, problems: StoreProblem[], options: { counts?: boolean } = {}): string {
  const note = options.counts ? `; counts and choices here leave out ${problems.length === 1 ? 'that line' : 'those lines'}` : '';
  return `helix: warning: ${describeProblems(file, problems)}${note}; run 'helix tracker doctor --fix'`;
}

/** The file's text; a missing file reads as empty. */
export function readBeadsText(file: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
  // Most bead files are pure ASCII; decoding those as latin1 skips UTF-8 decoding (half the
  // read time on a 5 MB file) and yields the same string.
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}
