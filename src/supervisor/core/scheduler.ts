// Which ready beads may start now, when several build at once (`helix run --jobs N`, current DDx):
// a pure decision over the ready queue (already in dependency-ready, priority order), the beads in
// flight, the free slots and the run's pauses. helix only schedules: DDx owns each attempt's
// worktree, lease, land and retry.
//
// The files gate: two beads whose files overlap are never in flight together, because DDx lands
// a text conflict by letting the tip win every conflicting hunk and closes the later bead as a
// success (measured on ae663ca012: docs/scale.md) — the later bead's work would be lost without a
// word. A bead's files are the paths its text names, its `spec-id` when that is a path, its
// `relevant_files`, and the globs of its `touches:<glob>` labels. A bead that names no files could
// touch anything: it overlaps with every other bead and runs alone.

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
