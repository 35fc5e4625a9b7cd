import { spawnSync } from 'node:child_process';
// Small builders for tracker tests: beads as plain objects, drafts over them, and bead files on disk.
import { HelixError } from '../../src/errors.js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Bead, Draft, parseBeads } from '../../src/tracker/index.js';

export function jsonl(beads: object[]): string {
  return beads.map((b) => `${JSON.stringify(b)}\n`).join('');
}

/** A draft over these beads, as a write would see it after reading the file. */
export function draftOf(...beads: Bead[]): Draft {
  return new Draft(parseBeads(jsonl(beads)));
}

export function ids(beads: Bead[]): string[] {
  return beads.map((b) => b.id);
}

/** Writes `.ddx/beads.jsonl` under `root` and returns the file path. */
export function writeBeadsFile(root: string, text: string): string {
  mkdirSync(join(root, '.ddx'), { recursive: true });
  const file = join(root, '.ddx', 'beads.jsonl');
  writeFileSync(file, text);
  return file;
}

export function readBeadsFile(root: string): string {
  return readFileSync(join(root, '.ddx', 'beads.jsonl'), 'utf8');
}

/** Every line of the file parsed (throws on a bad line: a written file must always parse). */
export function parsedLines(text: string): Bead[] {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Bead);
}

/** The HelixError `action` throws (fails the test when it throws nothing or something else). */
export function errorOf(action: () => unknown): HelixError {
  try {
    action();
  } catch (error) {
    if (error instanceof HelixError) return error;
    throw error;
  }
  throw new Error('expected a HelixError, but nothing was thrown');
}

/** The pid of a process that has already exited (reuse within a test run is vanishingly unlikely). */
export function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  if (!child.pid) throw new Error('could not start a child process');
  return child.pid;
}
