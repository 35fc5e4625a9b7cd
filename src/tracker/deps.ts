// Dependency edges between beads: add/remove with self- and cycle-rejection, and the tree view.
import { HelixError } from '../errors.js';
import { type Bead, allDependencyIds, dependencyList, hasUnreadableDependencies, nowIso } from './bead.js';
import type { Draft } from './store.js';

/** The cycle through `start` as a list of ids (start … start), or undefined. */
export function findCycle(beads: Bead[], start: string): string[] | undefined {
  const byId = new Map(beads.map((b) => [b.id, b]));
  const path: string[] = [];
  const onPath = new Set<string>();
  const done = new Set<string>();
  const visit = (id: string): string[] | undefined => {
    if (onPath.has(id)) return [...path.slice(path.indexOf(id)), id];
    if (done.has(id)) return undefined;
    const bead = byId.get(id);
    if (!bead) return undefined;
    path.push(id);
    onPath.add(id);
    for (const dep of allDependencyIds(bead)) {
      const cycle = visit(dep);
      if (cycle) return cycle;
    }
    path.pop();
    onPath.delete(id);
    done.add(id);
    return undefined;
  };
  return visit(start);
}

/** Every dependency cycle in the file, each reported once (for doctor). */
export function allCycles(beads: Bead[]): string[][] {
  const seen = new Set<string>();
  const cycles: string[][] = [];
  for (const bead of beads) {
    const cycle = findCycle(beads, bead.id);
    if (!cycle) continue;
    const key = [...new Set(cycle)].sort().join(',');
    if (!seen.has(key)) {
      seen.add(key);
      cycles.push(cycle);
    }
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

/** Text tree of what `id` depends on (or every bead with dependencies when no id is given). */
export function dependencyTree(beads: Bead[], id?: string): string {
  const byId = new Map(beads.map((b) => [b.id, b]));
  const lines: string[] = [];
  const walk = (beadId: string, depth: number, seen: Set<string>) => {
    const bead = byId.get(beadId);
    const label = bead ? `${beadId} [${bead.status}] ${bead.title}` : `${beadId} [unknown]`;
    lines.push(`${'  '.repeat(depth)}${depth ? '└─ ' : ''}${label}`);
    if (!bead || seen.has(beadId)) return;
    for (const dep of allDependencyIds(bead)) walk(dep, depth + 1, new Set([...seen, beadId]));
  };
  const roots = id ? [id] : beads.filter((b) => allDependencyIds(b).length > 0).map((b) => b.id);
  for (const root of roots) walk(root, 0, new Set());
  return lines.join('\n');
}
