// Reading the JSONL bead file, tolerantly: malformed lines, duplicate ids and conflict markers are
// reported by line number and the read goes on. Kept apart from the store's write side (lock,
// pid checks) so `helix tracker ready|blocked` loads only what a read needs.
import { readFileSync } from 'node:fs';
import { HelixError } from '../errors.js';
import type { Bead } from './bead.js';
import { decodeBeadsBytes } from './bytes.js';
import { assertUsableBeadsFile } from './location.js';

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
  /** Lines that started with a UTF-8 byte order mark (DDx cannot read such a line); a write drops it. */
  bomLines: number[];
}

/** DDx reads lines up to 16 MiB (bufio.Scanner's buffer in store.go); a longer line is damage. */
export const MAX_LINE_CHARS = 16 * 1024 * 1024;
/** Nesting deeper than this is damage: far past any real bead (3 levels), short of Node's stack. */
export const MAX_DEPTH = 1000;
/** A larger file is not a bead file helix can hold in one string (V8 strings stop near 512 MiB). */
export const MAX_FILE_BYTES = 256 * 1024 * 1024;

const BOM = '\uFEFF';

const CONFLICT_MARKER = /^(<{7}|={7}|>{7}|\|{7})(\s|$)/;

export function parseBeads(text: string): Snapshot {
  const beads: Bead[] = [];
  const byId = new Map<string, Bead>();
  const lineOf = new Map<string, number>();
  // Keyed by id, not by bead object: keying a Map by 10K parsed objects cost measurable time.
  const rawLines = new Map<string, string>();
  const superseded = new Set<Bead>();
  const problems: StoreProblem[] = [];
  const bomLines: number[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let raw = lines[i] ?? '';
    const lineNo = i + 1;
    if (raw.startsWith(BOM)) {
      raw = raw.slice(1);
      bomLines.push(lineNo);
    }
    const line = raw.trim();
    if (!line) continue;
    const tooBig = line.length > MAX_LINE_CHARS ? `longer than ${MAX_LINE_CHARS / 1024 / 1024} MiB` : nestedDeeperThan(line, MAX_DEPTH) ? `nested deeper than ${MAX_DEPTH} levels` : undefined;
    if (tooBig) {
      problems.push({ line: lineNo, kind: 'malformed', detail: tooBig, raw: lines[i] ?? '' });
      continue;
    }
    if (CONFLICT_MARKER.test(line)) {
      problems.push({ line: lineNo, kind: 'conflict-marker', detail: 'git conflict marker', raw: lines[i] ?? '' });
      continue;
    }
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch (error) {
      problems.push({ line: lineNo, kind: 'malformed', detail: (error as Error).message, raw: lines[i] ?? '' });
      continue;
    }
    if (!record || typeof record !== 'object' || Array.isArray(record) || typeof (record as Bead).id !== 'string' || !(record as Bead).id) {
      problems.push({ line: lineNo, kind: 'malformed', detail: 'not a bead object with a string id', raw: lines[i] ?? '' });
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
  return { beads: superseded.size ? beads.filter((b) => !superseded.has(b)) : beads, byId, problems, rawLines, bomLines };
}

/**
 * Whether a JSON line nests arrays and objects deeper than `limit`. Its length, then its number of
 * opening brackets (indexOf: cheap) settle almost every line: depth can exceed neither.
 */
export function nestedDeeperThan(line: string, limit: number): boolean {
  if (line.length <= 2 * limit) return false; // each level takes an opening and a closing bracket
  let brackets = 0;
  for (const open of ['[', '{']) {
    for (let at = line.indexOf(open); at >= 0 && brackets <= limit; at = line.indexOf(open, at + 1)) brackets++;
  }
  if (brackets <= limit) return false;
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 0x22) {
      // skip the string, escapes included
      for (i++; i < line.length && line.charCodeAt(i) !== 0x22; i++) if (line.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
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
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      assertUsableBeadsFile(file); // a link to nothing is not an empty backlog
      return '';
    }
    if (code === 'ERR_FS_FILE_TOO_LARGE') throw tooLarge(file);
    throw error;
  }
  if (bytes.length > MAX_FILE_BYTES) throw tooLarge(file);
  return decodeBeadsBytes(bytes);
}

const tooLarge = (file: string) => new HelixError('trackerUnusable', `bead: ${file} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MiB, more than helix reads; split or archive it (ddx bead archive)`);
