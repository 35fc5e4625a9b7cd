// The JSONL bead file: reading it (tolerantly, with problems reported by line number) and changing
// it (strictly, under the lock, atomically). Reads go on past malformed lines, duplicate ids and
// conflict markers; writes refuse until `helix tracker doctor --fix` has resolved them, so no line
// is ever dropped or folded silently. Records a write did not change are written back verbatim.
import { existsSync, lstatSync, mkdirSync, readdirSync, realpathSync, unlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { writeFileAtomically } from '../atomic-write.js';
import { HelixError } from '../errors.js';
import type { Bead } from './bead.js';
import { withLock } from './lock.js';
import { beadsFile, excludeRuntimeFiles } from './tracker-dir.js';
import { assertUsableBeadsFile } from './location.js';
import { isPidAlive } from './process.js';
import { describeProblems, parseBeads, readBeadsText, type Snapshot } from './read.js';
import { schemaProblems } from './schema.js';
import { leaseDir, leasedIn } from './liveness.js';
import { encodeBeadsText } from './bytes.js';
import { stringifyKeeping } from './lossless.js';

export { describeProblems, parseBeads, problemsWarning, type ProblemKind, type Snapshot, type StoreProblem } from './read.js';

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

  /** The records this draft rewrites. */
  get changedBeads(): Bead[] {
    return [...this.dirty];
  }

  /** The whole file text, sorted by id; untouched records keep their original line. */
  serialise(): string {
    const sorted = [...this.snapshot.beads].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    let out = '';
    for (const bead of sorted) {
      const raw = this.snapshot.rawLines.get(bead.id);
      // a changed record keeps the text of every value it did not change (lossless.ts)
      out += `${this.dirty.has(bead) || raw === undefined ? stringifyKeeping(bead, raw) : raw}\n`;
    }
    return out;
  }
}

export class BeadStore {
  readonly dir: string;
  readonly file: string;
  private readonly env: NodeJS.ProcessEnv;
  private leases: string | undefined;

  constructor(dir: string, env: NodeJS.ProcessEnv = process.env) {
    this.dir = dir;
    this.file = beadsFile(dir);
    this.env = env;
  }

  exists(): boolean {
    return existsSync(this.file);
  }

  /** Where current DDx keeps its worker leases for this project (see liveness.ts). */
  get leaseDir(): string {
    this.leases ??= leaseDir(this.dir, this.env);
    return this.leases;
  }

  /** Ids of beads a live DDx worker lease holds (taken, though DDx leaves them `open`). */
  leased(now: Date = new Date()): Set<string> {
    return leasedIn(this.leaseDir, { now });
  }

  /** Reads without the lock (a rename makes every read see a whole file). Missing file = empty. */
  read(): Snapshot {
    return parseBeads(this.readText());
  }

  readText(): string {
    return readBeadsText(this.file);
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
        assertDdxCanKeep(draft.changedBeads);
        if (draft.changed) {
          this.removeAbandonedTempFiles();
          this.writeAtomically(draft.serialise());
          if (snapshot.bomLines.length > 0) warnBomDropped(this.file, snapshot.bomLines);
        }
        return result;
      },
      this.env,
    );
  }

  /**
   * Where the bytes of the bead file live: the file itself, or — when `beads.jsonl` is a symbolic
   * link (a backlog shared between checkouts) — the file it points to. helix replaces that file,
   * never the link, so every checkout keeps seeing the same backlog; the lock stays this
   * checkout's `beads.lock`, the one DDx here takes. A link to nothing is refused (exit 16).
   */
  writeTarget(): string {
    try {
      return realpathSync(this.file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      assertUsableBeadsFile(this.file);
      return this.file;
    }
  }

  /** The file `beads.jsonl` links to, or undefined when it is a plain file (or missing). */
  linkTarget(): string | undefined {
    try {
      return lstatSync(this.file).isSymbolicLink() ? this.writeTarget() : undefined;
    } catch {
      return undefined;
    }
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
    const target = this.writeTarget();
    const dir = dirname(target);
    const prefix = `${basename(target)}.tmp-`;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const pid = name.startsWith(prefix) ? /^(\d+)-\d+$/.exec(name.slice(prefix.length))?.[1] : undefined;
      if (pid === undefined || isPidAlive(Number(pid))) continue;
      try {
        unlinkSync(join(dir, name));
      } catch {
        // removed by someone else
      }
    }
  }

  /** temp file → fsync → rename → fsync the directory: readers see the old file or the new one. */
  private writeAtomically(text: string): void {
    const target = this.writeTarget();
    try {
      writeFileAtomically(target, encodeBeadsText(text), { mode: 0o644 });
    } catch (error) {
      throw new HelixError('writeFailed', `bead: could not write ${this.file}: ${(error as Error).message}; the previous file is unchanged`);
    }
  }
}

/** A write drops a byte order mark (DDx rejects a line starting with one, and sorting would move it into the file). */
function warnBomDropped(file: string, lines: number[]): void {
  process.stderr.write(`helix: warning: ${file}: removed the UTF-8 byte order mark at the start of line ${lines.join(', ')} (DDx cannot read a line that starts with one)\n`);
}

/** Refuses a write that would put a record in the file that DDx's next rewrite would damage. */
function assertDdxCanKeep(beads: Bead[]): void {
  for (const bead of beads) {
    const problems = schemaProblems(bead);
    if (problems.length > 0) {
      throw new HelixError('validation', `bead: refusing to write ${bead.id}: ${problems.join('; ')}`);
    }
  }
}
