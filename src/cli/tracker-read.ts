// The hot read commands of `helix tracker` — `ready` and `blocked` — as text. Scripts and the
// supervisor's callers run them constantly, so src/cli/plain.ts serves a plain
// `helix tracker ready|blocked [--execution] [--json]` without commander, writing to the file
// descriptors directly (writeStdout); commands/tracker.ts calls the same functions through its
// output sink, so both paths print exactly the same thing.
import { type BigIntStats, readFileSync, statSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { findOnPath } from '../agents/discovery.js';
import { projectDdxSurface } from '../ddx-version.js';
import { printable } from '../terminal-text.js';
import type { Bead } from '../tracker/bead.js';
import type { ReadyCandidates } from './ready-cache.js';

/**
 * Beads as text lines, or as a JSON array. Given the file's own lines, the array holds each record
 * exactly as stored (one per line): valid JSON, byte-faithful, and no re-serialising of thousands
 * of records on every `ready --json`.
 */
export function formatBeads(beads: Bead[], json: boolean | undefined, rawLines?: Map<string, string>): string {
  if (json && !rawLines) return `${JSON.stringify(beads, null, 2)}\n`;
  return joinForms(
    beads.map((b) => (json ? jsonItem(b, rawLines) : textLine(b))),
    json,
  );
}

/** One bead as an item of the JSON array: its line as stored, indented. */
function jsonItem(bead: Bead, rawLines?: Map<string, string>): string {
  return `  ${rawLines?.get(bead.id)?.trim() ?? JSON.stringify(bead)}`;
}

function textLine(bead: Bead): string {
  return `${bead.id}  [P${String(bead.priority)}] [${bead.status}] [${String(bead.issue_type ?? 'task')}] ${bead.title}\n`;
}

/** The printed forms of the beads put together: a JSON array of items, or the text lines. */
function joinForms(forms: string[], json: boolean | undefined): string {
  if (!json) return forms.join('');
  return forms.length ? `[\n${forms.join(',\n')}\n]\n` : '[]\n';
}

/** Where a read happens and where its warning about damaged lines goes. */
interface ReadPlace {
  cwd: string;
  env: NodeJS.ProcessEnv;
  warn(text: string): void;
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * The fast path writes to fd 1 directly: creating `process.stdout` on a pipe loads the stream and
 * net modules, about 2.5 ms of its start-up, to write one string. (The commander path has a
 * process.stdout already and uses it: that stream makes the pipe non-blocking.) A pipe shared with
 * a Node parent can be non-blocking too, hence the EAGAIN loop.
 */
export function writeStdout(text: string | Buffer): void {
  writeToFd(1, text);
}

/** Writes text, made printable, or bytes that are printable UTF-8 already (the ready cache's). */
export function writeToFd(fd: number, text: string | Buffer): void {
  // this path skips the wrapped streams (src/cli/terminal.ts): the same rule, applied here
  const bytes = typeof text === 'string' ? Buffer.from(printable(text), 'utf8') : text;
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') return; // the reader went away (`| head`): not an error, as in bin/helix
      if (code !== 'EAGAIN') throw error;
      Atomics.wait(pause, 0, 0, 1); // a non-blocking pipe is full: give the reader a moment
    }
  }
}

/** The bead file to read, after the checks every read makes: a usable folder, DDx's JSONL backend. */
async function beadsFileOf(place: ReadPlace): Promise<{ dir: string; file: string }> {
  const [{ beadsFile, trackerDir }, { assertJsonlBackend }] = await Promise.all([import('../tracker/tracker-dir.js'), import('../tracker/backend.js')]);
  const dir = trackerDir(place.cwd, place.env);
  // DDx may keep the beads elsewhere (axon, bd, br): then this file is not the tracker (exit 14)
  assertJsonlBackend(dir, place.env);
  return { dir, file: beadsFile(dir) };
}

async function readBeads(place: ReadPlace, file: string): Promise<{ beads: Bead[]; rawLines: Map<string, string>; damaged: boolean }> {
  // The read side only: the store's write side (lock, pid checks) is not loaded for a read.
  const { parseBeads, problemsWarning, readBeadsText } = await import('../tracker/read.js');
  const snapshot = parseBeads(readBeadsText(file));
  if (snapshot.problems.length > 0) place.warn(`${problemsWarning(file, snapshot.problems)}\n`);
  return { ...snapshot, damaged: snapshot.problems.length > 0 };
}

/**
 * The beads the file alone says are ready, and how to print a choice of them: from the ready cache
 * when it stands for the file as it is, else parsed (and cached when the file is large and settled).
 */
async function readyCandidates(place: ReadPlace, file: string): Promise<ReadyCandidates> {
  const [cache, { readyByFile, readyFactsOf, parentIds }] = await Promise.all([import('./ready-cache.js'), import('../tracker/ready.js')]);
  let stats: BigIntStats | undefined;
  try {
    stats = statSync(file, { bigint: true });
  } catch {
    // no file (an empty backlog) or one readBeads will report
  }
  // A file that is not settled now has changed since any cache of it was written: no cache to look for.
  const cacheable = stats && stats.isFile() && stats.size >= cache.CACHE_FROM_BYTES && cache.settled(stats, Date.now());
  const path = cacheable ? cache.cachePath(resolve(file), place.env) : undefined;
  const key = path && stats ? cache.cacheKey(resolve(file), stats) : undefined;
  const cached = path && key ? cache.readCache(path, key) : undefined;
  if (cached) return cached;
  const { beads, rawLines, damaged } = await readBeads(place, file);
  const ready = readyByFile(beads);
  const parents = parentIds(beads);
  const facts = ready.map((bead) => readyFactsOf(bead, parents));
  const print = (chosen: number[], json: boolean | undefined) => joinForms(chosen.map((i) => (json ? jsonItem(ready[i]!, rawLines) : textLine(ready[i]!))), json);
  if (path && key && !damaged) {
    cache.writeCache(path, key, facts, (i) => ({ json: jsonItem(ready[i]!, rawLines), text: textLine(ready[i]!) }));
  }
  return { facts, print };
}

/**
 * Current DDx's `ddx bead ready` leaves out what it may not execute (tracker/ready.ts
 * asCurrentDdx), v0.6.1's lists every open bead whose dependencies are closed: `helix tracker
 * ready` answers as the project's DDx does — the one `.ddx/versions.yaml` names, when a `ddx` is
 * installed — and as v0.6.1 without one.
 */
function readsAsCurrentDdx(dir: string, env: NodeJS.ProcessEnv): boolean {
  let versions: string;
  try {
    versions = readFileSync(join(dir, 'versions.yaml'), 'utf8');
  } catch {
    return false;
  }
  return projectDdxSurface(versions) === 'current' && findOnPath('ddx', env) !== undefined;
}

/** `helix tracker ready`'s output: text, or bytes from the ready cache (UTF-8, printable already). */
export async function readyText(options: { execution?: boolean; json?: boolean }, place: ReadPlace): Promise<string | Buffer> {
  const { file, dir } = await beadsFileOf(place);
  const [{ readyNow }, { leasedIds }, candidates] = await Promise.all([import('../tracker/ready.js'), import('../tracker/liveness.js'), readyCandidates(place, file)]);
  const now = new Date();
  // A bead a live DDx worker lease holds stays `open` in the file but is taken.
  const decide = { execution: options.execution, asCurrentDdx: !options.execution && readsAsCurrentDdx(dir, place.env), held: leasedIds(dir, { now }), now };
  const chosen: number[] = [];
  candidates.facts.forEach((facts, i) => {
    if (readyNow(facts, decide)) chosen.push(i);
  });
  return candidates.print(chosen, options.json);
}

export async function blockedText(options: { json?: boolean }, place: ReadPlace): Promise<string> {
  const { file } = await beadsFileOf(place);
  const [{ blockedEntries }, { beads, rawLines }] = await Promise.all([import('../tracker/ready.js'), readBeads(place, file)]);
  const entries = blockedEntries(beads);
  if (!options.json) return formatBeads(entries.map((e) => e.bead), false);
  // Each record as stored, with DDx's `blocker` object added (`ddx bead blocked --json`).
  const items = entries.map(({ bead, blocker }) => {
    const raw = rawLines.get(bead.id)?.trim() ?? JSON.stringify(bead);
    return `  ${raw.slice(0, -1)},"blocker":${JSON.stringify(blocker)}}`;
  });
  return items.length ? `[\n${items.join(',\n')}\n]\n` : '[]\n';
}
