// Dependency edges between beads: add/remove with self- and cycle-rejection, and the tree view.
import { HelixError } from '../errors.js';
import { type Bead, allDependencyIds, dependencyList, hasUnreadableDependencies, nowIso } from './bead.js';
import type { Draft } from './bead-store.js';

type Visit = Map<string, 'on-path' | 'done'>;

/**
 * Depth-first from `start`, skipping beads already `done` in `visit`; calls `onCycle` for each
 * dependency that leads back onto the current path and stops when it returns true. Iterative, so a
 * long dependency chain cannot overflow the stack.
 */
function walkForCycles(start: string, byId: Map<string, Bead>, visit: Visit, onCycle: (cycle: string[]) => boolean): boolean {
  const path: string[] = [];
  const frames: Array<{ id: string; deps: string[]; next: number }> = [];
  const enter = (id: string) => {
    visit.set(id, 'on-path');
    path.push(id);
    frames.push({ id, deps: allDependencyIds(byId.get(id)!), next: 0 });
  };
  enter(start);
  while (frames.length > 0) {
    const top = frames[frames.length - 1]!;
    if (top.next >= top.deps.length) {
      frames.pop();
      path.pop();
      visit.set(top.id, 'done');
      continue;
    }
    const dep = top.deps[top.next++]!;
    if (!byId.has(dep)) continue;
    const state = visit.get(dep);
    if (state === 'on-path') {
      if (onCycle([...path.slice(path.indexOf(dep)), dep])) return true;
    } else if (state === undefined) {
      enter(dep);
    }
  }
  return false;
}

/** The first dependency cycle reachable from `start` as a list of ids (a … a), or undefined. */
export function findCycle(beads: Bead[], start: string): string[] | undefined {
  const byId = new Map(beads.map((b) => [b.id, b]));
  if (!byId.has(start)) return undefined;
  let found: string[] | undefined;
  walkForCycles(start, byId, new Map(), (cycle) => {
    found = cycle;
    return true;
  });
  return found;
}

/**
 * Dependency cycles in the file, each set of beads reported once (for doctor). One pass over the
 * whole graph: walking again from every bead was quadratic (10 s on 10K beads).
 */
export function allCycles(beads: Bead[]): string[][] {
  const byId = new Map(beads.map((b) => [b.id, b]));
  const visit: Visit = new Map();
  const seen = new Set<string>();
  const cycles: string[][] = [];
  for (const bead of beads) {
    if (visit.has(bead.id)) continue;
    walkForCycles(bead.id, byId, visit, (cycle) => {
      const key = [...new Set(cycle)].sort().join(',');
      if (!seen.has(key)) {
        seen.add(key);
        cycles.push(cycle);
      }
      return false;
    });
  }
  return cycles;
}

export function assertNoCycle(beads: Bead[], id: string): void {
  const cycle = findCycle(beads, id);
  if (cycle) throw new HelixError('validation', `bead: dependency cycle: ${cycle.join(' -> ')}`);
}

/** Edits must not silently replace a `dependencies` value another tool wrote in some other shape. */
function assertReadableDependencies(bead: Bead): void {
  if (hasUnreadableDependencies(bead)) {
    throw new HelixError('validation', `bead: ${bead.id} has a dependencies value that is not a list; fix it with --set dependencies=[...]`);
  }
}

export function addDependency(draft: Draft, id: string, dependsOn: string, now: Date = new Date()): Bead {
  if (id === dependsOn) throw new HelixError('validation', `bead: ${id} cannot depend on itself`);
  draft.require(dependsOn);
  const bead = draft.require(id);
  assertReadableDependencies(bead);
  if (allDependencyIds(bead).includes(dependsOn)) return bead;
  draft.change(id, (b) => {
    b.dependencies = [...dependencyList(b), { issue_id: id, depends_on_id: dependsOn, type: 'blocks', created_at: nowIso(now) }];
    b.updated_at = nowIso(now);
  });
  assertNoCycle(draft.beads, id);
  return bead;
}

export function removeDependency(draft: Draft, id: string, dependsOn: string, now: Date = new Date()): Bead {
  const bead = draft.require(id);
  assertReadableDependencies(bead);
  if (!allDependencyIds(bead).includes(dependsOn)) {
    throw new HelixError('notFound', `bead: ${id} has no dependency on ${dependsOn}`);
  }
  return draft.change(id, (b) => {
    b.dependencies = dependencyList(b).filter((d) => (typeof d === 'string' ? d : d?.depends_on_id) !== dependsOn);
    b.updated_at = nowIso(now);
  });
}

/**
 * Text tree of what `id` depends on (or every bead with dependencies when no id is given). A bead
 * whose dependencies were already listed is marked `(see above)` instead of being expanded again:
 * expanding shared dependencies every time grows exponentially with the depth of the graph.
 */
/** One line of a dependency tree; a bead already expanded above appears again as a `repeat`. */
export interface DependencyRow {
  id: string;
  depth: number;
  status: string | null;
  title: string | null;
  repeat?: true;
}

/**
 * The dependency trees of `id`, or of every bead with dependencies, depth-first, each bead
 * expanded once. Flat rows with a depth (not nested objects): a chain thousands deep stays cheap
 * to walk and to print as JSON.
 */
export function dependencyRows(beads: Bead[], id?: string): DependencyRow[] {
  const byId = new Map(beads.map((b) => [b.id, b]));
  const rows: DependencyRow[] = [];
  const expanded = new Set<string>();
  const roots = id ? [id] : beads.filter((b) => allDependencyIds(b).length > 0).map((b) => b.id);
  const stack = roots.map((root) => ({ id: root, depth: 0 })).reverse();
  while (stack.length > 0) {
    const { id: beadId, depth } = stack.pop()!;
    const bead = byId.get(beadId);
    const deps = bead ? allDependencyIds(bead) : [];
    const repeat = deps.length > 0 && expanded.has(beadId);
    rows.push({ id: beadId, depth, status: bead?.status ?? null, title: bead?.title ?? null, ...(repeat ? { repeat: true as const } : {}) });
    if (!bead || repeat) continue;
    expanded.add(beadId);
    for (let i = deps.length - 1; i >= 0; i--) stack.push({ id: deps[i]!, depth: depth + 1 });
  }
  return rows;
}

/** The rows as indented text, one bead a line. */
export function dependencyTree(beads: Bead[], id?: string): string {
  return dependencyRows(beads, id)
    .map((row) => {
      const label = row.status === null ? `${row.id} [unknown]` : `${row.id} [${row.status}] ${row.title}${row.repeat ? ' (see above)' : ''}`;
      return `${'  '.repeat(row.depth)}${row.depth ? '└─ ' : ''}${label}`;
    })
    .join('\n');
}
