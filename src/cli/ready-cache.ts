// The ready cache: what `helix tracker ready` learns from a large bead file that has not changed,
// kept so the next read does not parse it again. Parsing every line is most of a ready read on a
// big backlog (10K beads: ~5 MB, about 1.6× Node's own start to parse alone; docs/design-notes.md
// "Fast start"), and scripts, agents and the supervisor's callers ask for the ready list far more
// often than the file changes.
//
// What it holds is the file's half of readiness only: the beads open with every dependency closed,
// in ready order, each with its ReadyFacts and its two printed forms (the JSON item and the text
// line). The read-time half — DDx leases, the clock, `--execution` — is decided on every read by
// the same readyNow the uncached path uses.
//
// When it is trusted: its key is the bead file's device, inode, size, mtime and ctime (in ns) and
// the compiled module that wrote it, so any write to the file, DDx's rename included, or a new
// helix misses. Timestamps tick coarsely (a few ms on Linux), so two writes in one tick could look
// alike: as git does with its index, a file changed in the last SETTLE_MS is read but not cached.
//
// Where: $XDG_CACHE_HOME/helix (else ~/.cache/helix), one file per bead file path, written whole
// (temporary file, then rename). Only files of CACHE_FROM_BYTES or more, and only files without
// damaged lines (those keep warning on every read). Any failure to read or write it is a miss: a
// read never fails because of its cache. Removing the folder is always safe.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, readdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import type { BigIntStats } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { printable } from '../terminal-text.js';
import type { ReadyFacts } from '../tracker/ready.js';
import { sha1Hex } from '../tracker/sha1.js';

/** Smaller files parse in a few ms: not worth a file in the user's cache folder. */
export const CACHE_FROM_BYTES = 1024 * 1024;
/** A file changed more recently than this is not cached (see above). */
export const SETTLE_MS = 2000;

const MAGIC = 'helix ready cache 1';

/**
 * The beads the file alone says are ready (open, every dependency closed), in ready order, and how
 * to print a choice of them: from a parse, text; from the cache, the bytes it keeps (UTF-8 made
 * printable already).
 */
export interface ReadyCandidates {
  facts: ReadyFacts[];
  /** The printed forms of the chosen candidates (indexes into facts), joined as a ready list prints them. */
  print(chosen: number[], json: boolean | undefined): string | Buffer;
}

/** A candidate's two printed forms: its item in the JSON array, its text line. */
export interface PrintedForms {
  json: string;
  text: string;
}

/** Where the cache for `file` lives, or undefined when there is no cache folder to use. */
export function cachePath(file: string, env: NodeJS.ProcessEnv): string | undefined {
  const base = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : env.HOME ? join(env.HOME, '.cache') : undefined;
  return base && join(base, 'helix', `ready-${sha1Hex(file).slice(0, 16)}`);
}

/** The key a cache must carry to stand for `file` as it is now, read by this helix. */
export function cacheKey(file: string, stats: BigIntStats): string {
  const code = statSync(fileURLToPath(import.meta.url), { bigint: true });
  return JSON.stringify([file, `${stats.dev}`, `${stats.ino}`, `${stats.size}`, `${stats.mtimeNs}`, `${stats.ctimeNs}`, `${code.size}:${code.mtimeNs}`]);
}

/** Whether a file with these times may be cached at `now` (ms): unchanged for SETTLE_MS, and not dated ahead. */
export function settled(stats: BigIntStats, now: number): boolean {
  const changed = Number((stats.mtimeNs > stats.ctimeNs ? stats.mtimeNs : stats.ctimeNs) / 1_000_000n);
  return changed <= now - SETTLE_MS;
}

/**
 * The file: the magic line, the key line, one JSON array with five values per candidate (id,
 * flags, retry time or null, byte lengths of its two forms), then every candidate's JSON item and
 * text line back to back. Flat, so that reading it builds few objects.
 */
const EPIC = 1;
const ELIGIBLE = 2;
const CONTAINER = 4;

/** The cached candidates for `key`, or undefined on any miss. */
export function readCache(path: string, key: string): ReadyCandidates | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return undefined;
  }
  const magicEnd = bytes.indexOf(0x0a);
  const keyEnd = bytes.indexOf(0x0a, magicEnd + 1);
  const rowsEnd = bytes.indexOf(0x0a, keyEnd + 1);
  if (rowsEnd < 0 || bytes.toString('utf8', 0, magicEnd) !== MAGIC || bytes.toString('utf8', magicEnd + 1, keyEnd) !== key) return undefined;
  let rows: Array<string | number | null>;
  try {
    rows = JSON.parse(bytes.toString('utf8', keyEnd + 1, rowsEnd)) as typeof rows;
  } catch {
    return undefined;
  }
  const facts: ReadyFacts[] = [];
  const formsAt: number[] = []; // per candidate: where its JSON item starts, where its text line starts and ends
  let at = rowsEnd + 1;
  for (let i = 0; i + ROW - 1 < rows.length; i += ROW) {
    const flags = rows[i + 1] as number;
    const fact: ReadyFacts = { id: rows[i] as string, epic: (flags & EPIC) !== 0, eligible: (flags & ELIGIBLE) !== 0 };
    if (flags & CONTAINER) fact.container = true;
    if (rows[i + 2] !== null) fact.retryAt = rows[i + 2] as number;
    if (rows[i + 3] !== null) fact.workRetryAt = rows[i + 3] as number;
    facts.push(fact);
    formsAt.push(at, at + (rows[i + 4] as number), (at += (rows[i + 4] as number) + (rows[i + 5] as number)));
  }
  if (at !== bytes.length || rows.length !== facts.length * ROW) return undefined; // a short or padded file is not this cache
  return {
    facts,
    print(chosen, json) {
      const parts: Buffer[] = [];
      for (const i of chosen) {
        if (json) parts.push(parts.length ? ITEM_SEPARATOR : ARRAY_START, bytes.subarray(formsAt[3 * i], formsAt[3 * i + 1]));
        else parts.push(bytes.subarray(formsAt[3 * i + 1], formsAt[3 * i + 2]));
      }
      if (json) parts.push(parts.length ? ARRAY_END : EMPTY_ARRAY);
      return Buffer.concat(parts);
    },
  };
}

/** Values a candidate takes in the cache's row list: id, flags, the two retry times, the lengths of its two printed forms. */
const ROW = 6;

// The JSON array around the items, as joinForms (tracker-read.ts) writes it.
const ARRAY_START = Buffer.from('[\n');
const ITEM_SEPARATOR = Buffer.from(',\n');
const ARRAY_END = Buffer.from('\n]\n');
const EMPTY_ARRAY = Buffer.from('[]\n');

/** mkdir of one level; `recursive` is not used because Node's loops forever under /proc. */
function makeFolder(path: string): void {
  try {
    mkdirSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** Writes the cache whole, or not at all. */
export function writeCache(path: string, key: string, facts: ReadyFacts[], formsOf: (index: number) => PrintedForms): void {
  const rows: Array<string | number | null> = [];
  const forms: Buffer[] = [];
  facts.forEach((fact, i) => {
    const printed = formsOf(i);
    const json = Buffer.from(printable(printed.json), 'utf8');
    const text = Buffer.from(printable(printed.text), 'utf8');
    rows.push(fact.id, (fact.epic ? EPIC : 0) | (fact.eligible ? ELIGIBLE : 0) | (fact.container ? CONTAINER : 0), fact.retryAt ?? null, fact.workRetryAt ?? null, json.length, text.length);
    forms.push(json, text);
  });
  const temp = `${path}.${process.pid}.tmp`;
  try {
    makeFolder(dirname(dirname(path)));
    makeFolder(dirname(path));
    writeFileSync(temp, Buffer.concat([Buffer.from(`${MAGIC}\n${key}\n${JSON.stringify(rows)}\n`, 'utf8'), ...forms]));
    renameSync(temp, path);
    forgetGoneFiles(dirname(path));
  } catch {
    // a cache folder that cannot be written (read-only home, full disk) only means no cache
    try {
      unlinkSync(temp);
    } catch {
      // nothing was written
    }
  }
}

/**
 * Removes the caches of bead files that are gone (a deleted clone, a test's temporary folder) and
 * temporary files a killed helix left, so the folder holds one cache per bead file that exists.
 * Runs only after a cache is written, which is once per change of a large file.
 */
function forgetGoneFiles(folder: string): void {
  for (const name of readdirSync(folder)) {
    const path = join(folder, name);
    try {
      if (name.endsWith('.tmp')) {
        if (statSync(path).mtimeMs < Date.now() - 60 * 60 * 1000) unlinkSync(path);
      } else if (name.startsWith('ready-') && !existsSync(cachedFileOf(path) ?? '')) unlinkSync(path);
    } catch {
      // another helix removed or replaced it meanwhile
    }
  }
}

/** The bead file a cache stands for: the first value of its key. */
function cachedFileOf(path: string): string | undefined {
  const key = JSON.parse(keyLineOf(path) ?? 'null') as unknown;
  return Array.isArray(key) && typeof key[0] === 'string' ? key[0] : undefined;
}

/** The key line of a cache file (read from its head alone), or undefined when it is not one. */
function keyLineOf(path: string): string | undefined {
  const head = Buffer.alloc(64 * 1024);
  const fd = openSync(path, 'r');
  try {
    const lines = head.toString('utf8', 0, readSync(fd, head, 0, head.length, 0)).split('\n', 3);
    return lines[0] === MAGIC && lines.length === 3 ? lines[1] : undefined;
  } finally {
    closeSync(fd);
  }
}
