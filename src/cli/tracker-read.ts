// The hot read commands of `helix tracker` — `ready` and `blocked` — as text. Scripts and the
// supervisor's callers run them constantly, so src/cli/plain.ts serves a plain
// `helix tracker ready|blocked [--execution] [--json]` without commander, writing to the file
// descriptors directly (writeStdout); commands/tracker.ts calls the same functions through its
// output sink, so both paths print exactly the same thing.
import { writeSync } from 'node:fs';
import { printable } from '../terminal-text.js';
import type { Bead } from '../tracker/bead.js';

/**
 * Beads as text lines, or as a JSON array. Given the file's own lines, the array holds each record
 * exactly as stored (one per line): valid JSON, byte-faithful, and no re-serialising of thousands
 * of records on every `ready --json`.
 */
export function formatBeads(beads: Bead[], json: boolean | undefined, rawLines?: Map<string, string>): string {
  if (json) {
    if (!rawLines) return `${JSON.stringify(beads, null, 2)}\n`;
    const items = beads.map((b) => `  ${rawLines.get(b.id)?.trim() ?? JSON.stringify(b)}`);
    return items.length ? `[\n${items.join(',\n')}\n]\n` : '[]\n';
  }
  let out = '';
  for (const bead of beads) out += `${bead.id}  [P${String(bead.priority)}] [${bead.status}] [${String(bead.issue_type ?? 'task')}] ${bead.title}\n`;
  return out;
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
export function writeStdout(text: string): void {
  writeToFd(1, text);
}

export function writeToFd(fd: number, text: string): void {
  // this path skips the wrapped streams (src/cli/terminal.ts): the same rule, applied here
  const bytes = Buffer.from(printable(text), 'utf8');
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

async function readBeads(place: ReadPlace): Promise<{ beads: Bead[]; rawLines: Map<string, string> }> {
  // The read side only: the store's write side (lock, pid checks) is not loaded for a read.
  const [{ parseBeads, problemsWarning, readBeadsText }, { beadsFile, trackerDir }, { assertJsonlBackend }] = await Promise.all([
    import('../tracker/read.js'),
    import('../tracker/paths.js'),
    import('../tracker/backend.js'),
  ]);
  const dir = trackerDir(place.cwd, place.env);
  // DDx may keep the beads elsewhere (axon, bd, br): then this file is not the tracker (exit 14)
  assertJsonlBackend(dir, place.env);
  const file = beadsFile(dir);
  const snapshot = parseBeads(readBeadsText(file));
  if (snapshot.problems.length > 0) place.warn(`${problemsWarning(file, snapshot.problems)}\n`);
  return snapshot;
}

export async function readyText(options: { execution?: boolean; json?: boolean }, place: ReadPlace): Promise<string> {
  const [{ readyBeads }, { leasedIds }, { trackerDir }, { beads, rawLines }] = await Promise.all([
    import('../tracker/ready.js'),
    import('../tracker/liveness.js'),
    import('../tracker/paths.js'),
    readBeads(place),
  ]);
  // A bead a live DDx worker lease holds stays `open` in the file but is taken.
  const held = leasedIds(trackerDir(place.cwd, place.env), { now: new Date() });
  return formatBeads(readyBeads(beads, { execution: options.execution, held }), options.json, rawLines);
}

export async function blockedText(options: { json?: boolean }, place: ReadPlace): Promise<string> {
  const [{ blockedEntries }, { beads, rawLines }] = await Promise.all([import('../tracker/ready.js'), readBeads(place)]);
  const entries = blockedEntries(beads);
  if (!options.json) return formatBeads(entries.map((e) => e.bead), false);
  // Each record as stored, with DDx's `blocker` object added (`ddx bead blocked --json`).
  const items = entries.map(({ bead, blocker }) => {
    const raw = rawLines.get(bead.id)?.trim() ?? JSON.stringify(bead);
    return `  ${raw.slice(0, -1)},"blocker":${JSON.stringify(blocker)}}`;
  });
  return items.length ? `[\n${items.join(',\n')}\n]\n` : '[]\n';
}
