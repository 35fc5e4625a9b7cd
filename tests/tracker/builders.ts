import { spawnSync } from 'node:child_process';
// Small builders for tracker tests: beads as plain objects, drafts over them, and bead files on disk.
import { HelixError } from '../../src/errors.js';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Bead, Draft, parseBeads } from '../../src/tracker/index.js';

let counter = 0;

export interface BeadSpec extends Partial<Bead> {
  /** Shorthand for `dependencies`: ids this bead is blocked by. */
  deps?: string[];
}

/** A bead with DDx defaults; `deps: ['a']` becomes a `blocks` dependency on `a`. */
export function bead(spec: BeadSpec = {}): Bead {
  const { deps, ...rest } = spec;
  const id = rest.id ?? `t-${(++counter).toString(16).padStart(8, '0')}`;
  const result: Bead = {
    id,
    title: `bead ${id}`,
    status: 'open',
    priority: 2,
    issue_type: 'task',
    created_at: '2025-01-01T00:00:00Z',
    updated_at: '2025-01-01T00:00:00Z',
    ...rest,
  };
  if (deps) {
    result.dependencies = deps.map((dep) => ({ issue_id: id, depends_on_id: dep, type: 'blocks', created_at: '2025-01-01T00:00:00Z' }));
  }
  return result;
}

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
