// Which ready beads may start now, when several build at once (`helix run --jobs N`, current DDx):
// a pure decision over the ready queue (already in dependency-ready, priority order), the beads in
// flight, the free slots and the run's pauses. helix only schedules: DDx owns each attempt's
// worktree, lease, land and retry.
//
// The file overlap rule: two beads whose files overlap are never in flight together, because DDx lands
// a text conflict by letting the tip win every conflicting hunk and closes the later bead as a
// success (measured on ae663ca012: docs/scale.md) — the later bead's work would be lost without a
// word. A bead's files are the paths its text names, its `spec-id` when that is a path, its
// `relevant_files`, and the globs of its `touches:<glob>` labels. A bead that names no files could
// touch anything: it overlaps with every other bead and runs alone.

import { type Bead, blockingDependencyIds, priorityOf } from '../../tracker/bead.js';

export interface FileClaim {
  /** Named paths (files or folders), relative to the repository root, without `./`. */
  paths: string[];
  /** `touches:` label globs (`*` within a segment, `**` across segments). */
  globs: string[];
}

/** A bead that names no files: it may touch anything. */
export const ANY_FILES: FileClaim = Object.freeze({ paths: [], globs: ['**'] }) as FileClaim;

interface BeadText {
  id: string;
  title?: unknown;
  description?: unknown;
  acceptance?: unknown;
  labels?: unknown;
  'spec-id'?: unknown;
  relevant_files?: unknown;
}

/** A token that reads as a path: a folder separator, or a name with a source-file extension. */
const PATH_TOKEN = /(?:^|[\s`'"(\[])((?:[\w.-]+\/)+(?:[\w.*-]+)?|[\w-]+\.(?:ts|tsx|js|mjs|cjs|jsx|json|md|go|py|rs|java|c|h|cc|cpp|hpp|rb|sh|yaml|yml|toml|txt|css|html|sql))(?=$|[\s`'"),.:;\]])/g;

function pathsIn(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(PATH_TOKEN)) {
    const path = (match[1] ?? '').replace(/^\.\//, '').replace(/[./]+$/, '');
    if (path && !/^https?:/.test(path) && !/^\d+(\.\d+)+$/.test(path)) found.push(path);
  }
  return found;
}

/** The files a bead names (see the header); ANY_FILES when it names none. */
export function filesOf(bead: BeadText): FileClaim {
  const text = [bead.title, bead.description, bead.acceptance].filter((v): v is string => typeof v === 'string').join('\n');
  const paths = new Set(pathsIn(text));
  const spec = bead['spec-id'];
  if (typeof spec === 'string' && spec.includes('/')) paths.add(spec.replace(/^\.\//, ''));
  const relevant = bead.relevant_files;
  for (const f of Array.isArray(relevant) ? relevant : typeof relevant === 'string' ? relevant.split(/[,\s]+/) : []) {
    if (typeof f === 'string' && f.trim()) paths.add(f.trim().replace(/^\.\//, ''));
  }
  const globs = (Array.isArray(bead.labels) ? bead.labels : []).filter((l): l is string => typeof l === 'string' && l.startsWith('touches:')).map((l) => l.slice('touches:'.length).trim()).filter(Boolean);
  return paths.size === 0 && globs.length === 0 ? ANY_FILES : { paths: [...paths].sort(), globs };
}

/** `*` within one path segment, `**` across any number of them. */
function globMatches(glob: string, path: string): boolean {
  let pattern = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      pattern += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (c === '*') pattern += '[^/]*';
    else pattern += c.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${pattern}(/.*)?$`).test(path);
}

/** One path names the other, or a folder holding it. */
const samePlace = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);

/** Could the two touch one file? (A glob against a glob overlaps when either matches the other's literal part.) */
export function overlaps(a: FileClaim, b: FileClaim): boolean {
  if (a.paths.some((p) => b.paths.some((q) => samePlace(p, q)))) return true;
  if (a.globs.some((g) => b.paths.some((p) => globMatches(g, p))) || b.globs.some((g) => a.paths.some((p) => globMatches(g, p)))) return true;
  const literal = (g: string) => g.replace(/\/?\*.*$/, '');
  return a.globs.some((g) => b.globs.some((h) => globMatches(g, literal(h)) || globMatches(h, literal(g)) || samePlace(literal(g), literal(h))));
}

export interface InFlight {
  id: string;
  files: FileClaim;
}

export interface SchedulingInput<B extends BeadText> {
  /** The ready queue, in the order the run would take it. */
  ready: B[];
  inFlight: InFlight[];
  slots: number;
  /** Beads not to start now: skipped, passed over, or waiting out a backoff. */
  excluded: ReadonlySet<string>;
  /** Dispatch is paused (a usage limit, an infrastructure wait, a stop waiting for the slots). */
  paused: boolean;
}

/**
 * The beads to start now, in queue order: as many as there are free slots, each overlapping
 * neither a bead in flight nor one chosen before it. A bead that waits for a file keeps its place:
 * nothing behind it that overlaps it goes first (only beads on other files pass it).
 */
export function whichMayStart<B extends BeadText>(input: SchedulingInput<B>): B[] {
  if (input.paused) return [];
  const free = input.slots - input.inFlight.length;
  if (free <= 0) return [];
  const taken = input.inFlight.map((f) => f.files);
  const chosen: B[] = [];
  const inFlightIds = new Set(input.inFlight.map((f) => f.id));
  for (const bead of input.ready) {
    if (chosen.length >= free) break;
    if (input.excluded.has(bead.id) || inFlightIds.has(bead.id)) continue;
    const files = filesOf(bead);
    const clash = taken.some((t) => overlaps(t, files));
    // waiting or starting, it holds its files against the beads behind it
    taken.push(files);
    if (!clash) chosen.push(bead);
  }
  return chosen;
}

/**
 * The order several slots take the beads that may start (docs/contract/cli.md §6.2), so that no slot
 * idles at the end of a night while one bead's repeats or one chain's last steps run alone:
 *   1. priority, as the queue has it — a P0 still goes before a P2;
 *   2. the longer expected work first (longest processing time first, which shortens the makespan):
 *      a bead that failed tonight, or whose last attempt before tonight failed, will be repeated;
 *      a bead that carries its own verify command can be refuted and repeated; the rest cannot;
 *   3. the work it holds up, most first: the longest chain of open beads waiting on it, or the open
 *      beads that name a file it names (never in flight beside it: a serial path as well), whichever
 *      is longer;
 *   4. the queue's order.
 * With one slot the queue order alone decides (the Bash CLI's), and epic focus with it.
 */
export function fleetOrder<B extends Bead>(ready: B[], beads: readonly Bead[], failedTonight: (id: string) => number): B[] {
  const depth = waitingChains(beads);
  const sharing = sharingFiles(ready, beads);
  const keyed = ready.map((bead, index) => ({ bead, index, priority: priorityOf(bead), repeats: expectedRepeats(bead, failedTonight(bead.id)), unblocks: Math.max(depth.get(bead.id) ?? 0, sharing.get(bead.id) ?? 0) }));
  keyed.sort((a, b) => a.priority - b.priority || b.repeats - a.repeats || b.unblocks - a.unblocks || a.index - b.index);
  return keyed.map((k) => k.bead);
}

/** 2: it failed (tonight, or the attempt before tonight); 1: its own verification may refute it; 0: neither. */
function expectedRepeats(bead: Bead, failures: number): number {
  const last = bead['work-last-status'];
  if (failures > 0 || (typeof last === 'string' && last !== '' && last !== 'success')) return 2;
  return typeof bead.verify === 'string' && bead.verify.trim() !== '' ? 1 : 0;
}

/**
 * For each ready bead, how many other open beads name a file it names. A bead that names none
 * (ANY_FILES) counts none and is counted by none: it runs alone wherever it comes.
 */
function sharingFiles(ready: readonly Bead[], beads: readonly Bead[]): Map<string, number> {
  const named = beads.filter((b) => b.status !== 'closed').map((b) => ({ id: b.id, files: filesOf(b) })).filter((b) => b.files !== ANY_FILES);
  const sharing = new Map<string, number>();
  for (const bead of ready) {
    const files = filesOf(bead);
    if (files === ANY_FILES) continue;
    sharing.set(bead.id, named.filter((other) => other.id !== bead.id && overlaps(files, other.files)).length);
  }
  return sharing;
}

/** For each open bead, how many open beads wait on it in the longest chain behind it (0: none). */
function waitingChains(beads: readonly Bead[]): Map<string, number> {
  const open = new Map(beads.filter((b) => b.status !== 'closed').map((b) => [b.id, b]));
  const waiting = new Map<string, string[]>();
  for (const bead of open.values()) {
    for (const on of blockingDependencyIds(bead)) if (open.has(on)) waiting.set(on, [...(waiting.get(on) ?? []), bead.id]);
  }
  const depth = new Map<string, number>();
  const visit = (id: string, path: Set<string>): number => {
    const known = depth.get(id);
    if (known !== undefined) return known;
    if (path.has(id)) return 0; // a dependency cycle: the tracker refuses one, a hand-edited file may hold one
    path.add(id);
    const behind = Math.max(0, ...(waiting.get(id) ?? []).map((next) => 1 + visit(next, path)));
    path.delete(id);
    depth.set(id, behind);
    return behind;
  };
  for (const id of open.keys()) visit(id, new Set());
  return depth;
}
