// The JSONL bead file: reading it (tolerantly, with problems reported by line number) and changing
// it (strictly, under the lock, atomically). Reads go on past malformed lines, duplicate ids and
// conflict markers; writes refuse until `helix tracker doctor --fix` has resolved them, so no line
// is ever dropped or folded silently. Records a write did not change are written back verbatim.
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { isAscii } from 'node:buffer';
import { dirname, join } from 'node:path';
import { HelixError } from '../errors.js';
import type { Bead } from './bead.js';
import { withLock } from './lock.js';
import { beadsFile, excludeRuntimeFiles } from './paths.js';
import { isPidAlive, sleepSync } from './process.js';

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

/** The warning a read prints when the file has problems; it goes on, writes will refuse. */
export function problemsWarning(file: string, problems: StoreProblem[]): string {
  return `helix: warning: ${describeProblems(file, problems)}; run 'helix tracker doctor --fix'`;
}

/** A set of changes to apply to a snapshot; tracks which beads were touched. */
export class Draft {
  readonly snapshot: Snapshot;
  private readonly dirty = new Set<Bead>();
  private readonly removed = new Set<Bead>();

  constructor(snapshot: Snapshot) {
    this.snapshot = snapshot;
  }

  get beads(): Bead[] {
    return this.snapshot.beads;
  }

  get(id: string): Bead | undefined {
    return this.snapshot.byId.get(id);
  }

  require(id: string): Bead {
    const bead = this.get(id);
    if (!bead) throw new HelixError('notFound', `bead: not found: ${id}`);
    return bead;
  }

  /** Applies `change` to the bead and marks it for re-serialisation. */
  change(id: string, change: (bead: Bead) => void): Bead {
    const bead = this.require(id);
    change(bead);
    this.dirty.add(bead);
    return bead;
  }

  add(bead: Bead): Bead {
    if (this.snapshot.byId.has(bead.id)) throw new HelixError('validation', `bead: id already exists: ${bead.id}`);
    this.snapshot.beads.push(bead);
    this.snapshot.byId.set(bead.id, bead);
    this.dirty.add(bead);
    return bead;
  }

  get changed(): boolean {
    return this.dirty.size > 0 || this.removed.size > 0;
  }

  /** The whole file text, sorted by id; untouched records keep their original line. */
  serialise(): string {
    const sorted = [...this.snapshot.beads].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    let out = '';
    for (const bead of sorted) {
      const raw = this.dirty.has(bead) ? undefined : this.snapshot.rawLines.get(bead.id);
      out += `${raw ?? JSON.stringify(bead)}\n`;
    }
    return out;
  }
}

export class BeadStore {
  readonly dir: string;
  readonly file: string;
  private readonly env: NodeJS.ProcessEnv;

  constructor(dir: string, env: NodeJS.ProcessEnv = process.env) {
    this.dir = dir;
    this.file = beadsFile(dir);
    this.env = env;
  }

  exists(): boolean {
    return existsSync(this.file);
  }

  /** Reads without the lock (a rename makes every read see a whole file). Missing file = empty. */
  read(): Snapshot {
    return parseBeads(this.readText());
  }

  readText(): string {
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
      throw error;
    }
    // Most bead files are pure ASCII; decoding those as latin1 skips UTF-8 decoding (half the
    // read time on a 5 MB file) and yields the same string.
    return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  }

  /**
   * Takes the lock, re-reads the file, lets `apply` change a draft, and writes the whole file back
   * atomically when anything changed. Refuses (malformedStore) while the file has problems.
   */
  mutate<T>(apply: (draft: Draft) => T): T {
    mkdirSync(this.dir, { recursive: true });
    excludeRuntimeFiles(dirname(this.dir), this.dir);
    return withLock(
      this.dir,
      () => {
        const snapshot = this.read();
        if (snapshot.problems.length > 0) {
          throw new HelixError(
            'malformedStore',
            `bead: refusing to write: ${describeProblems(this.file, snapshot.problems)}; run 'helix tracker doctor --fix'`,
          );
        }
        const draft = new Draft(snapshot);
        const result = apply(draft);
        if (draft.changed) {
          this.removeAbandonedTempFiles();
          this.writeAtomically(draft.serialise());
        }
        return result;
      },
      this.env,
    );
  }

  /** Replaces the file while already holding the lock (doctor --fix uses this with its own text). */
  writeLocked(text: string): void {
    this.writeAtomically(text);
  }

  withLock<T>(work: () => T): T {
    mkdirSync(this.dir, { recursive: true });
    return withLock(this.dir, work, this.env);
  }

  /**
   * A writer killed between writing its temp file and the rename leaves `beads.jsonl.tmp-<pid>-<ms>`
   * behind. Under the lock no live writer has one in flight, so those of dead pids are removed.
   */
  private removeAbandonedTempFiles(): void {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    for (const name of names) {
      const pid = /^beads\.jsonl\.tmp-(\d+)-\d+$/.exec(name)?.[1];
      if (pid === undefined || isPidAlive(Number(pid))) continue;
      try {
        unlinkSync(join(this.dir, name));
      } catch {
        // removed by someone else
      }
    }
  }

  /** temp file → fsync → rename → fsync the directory: readers see the old file or the new one. */
  private writeAtomically(text: string): void {
    const temp = join(this.dir, `beads.jsonl.tmp-${process.pid}-${Date.now()}`);
    let fd: number | undefined;
    try {
      fd = openSync(temp, 'wx', 0o644);
      const buffer = Buffer.from(text, 'utf8');
      let offset = 0;
      while (offset < buffer.length) offset += writeSync(fd, buffer, offset, buffer.length - offset);
      fsyncSync(fd);
      closeSync(fd);
      fd = undefined;
      this.testHoldBeforeRename();
      renameSync(temp, this.file);
    } catch (error) {
      if (fd !== undefined) closeSync(fd);
      try {
        unlinkSync(temp);
      } catch {
        // already gone
      }
      const err = error as NodeJS.ErrnoException;
      throw new HelixError('writeFailed', `bead: could not write ${this.file}: ${err.message}; the previous file is unchanged`);
    }
    syncDirectory(this.dir);
  }

  /**
   * Test-only crash window: with HELIX_TRACKER_TEST_HOLD_LOCK_SEC set, the writer touches
   * `<dir>/beads.test-hold` after the temp file is complete and waits before the rename, so a test
   * can SIGKILL it at exactly that point.
   */
  private testHoldBeforeRename(): void {
    const hold = Number(this.env.HELIX_TRACKER_TEST_HOLD_LOCK_SEC ?? '');
    if (!(hold > 0)) return;
    closeSync(openSync(join(this.dir, 'beads.test-hold'), 'w'));
    sleepSync(hold * 1000);
  }
}

function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // some filesystems refuse fsync on directories; the rename is still atomic
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
