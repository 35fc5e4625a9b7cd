// The one bead builder of the tests: a bead as the file holds it, with DDx's defaults. Each call is
// a second younger than the last (created_at = updated_at), so ready order is creation order;
// `deps: ['a']` adds a `blocks` dependency on `a`; without an id one is made up.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Bead } from '../../src/tracker/index.js';

let created = 0;

export interface BeadSpec extends Partial<Bead> {
  /** Shorthand for `dependencies`: ids this bead is blocked by. */
  deps?: string[];
}

export function bead(spec: BeadSpec = {}): Bead {
  const { deps, ...fields } = spec;
  created++;
  const id = fields.id ?? `t-${created.toString(16).padStart(8, '0')}`;
  const stamp = new Date(Date.UTC(2026, 0, 1, 0, 0, created)).toISOString();
  const made: Bead = { id, title: `bead ${id}`, status: 'open', priority: 2, issue_type: 'task', created_at: stamp, updated_at: stamp, ...fields };
  if (deps) made.dependencies = deps.map((dep) => ({ issue_id: id, depends_on_id: dep, type: 'blocks', created_at: stamp }));
  return made;
}

/** The beads of a project's tracker file, as written (`<root>/.ddx/beads.jsonl`). */
export function beadsIn(root: string): Bead[] {
  return readFileSync(join(root, '.ddx', 'beads.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Bead);
}

/** One bead of a project's tracker file; a missing one fails the test. */
export function beadIn(root: string, id: string): Bead {
  const found = beadsIn(root).find((b) => b.id === id);
  if (!found) throw new Error(`no bead ${id}`);
  return found;
}
