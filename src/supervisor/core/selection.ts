// Which bead the loop works on next (docs/contract/cli.md §6.2): epic focus first, then beads that carry their
// own governance (spec-id, acceptance or design), then any task, then an epic that hands over to a
// child. Pure: the ready list and the whole file in, a decision out.
// Epics are not execution work (DDx's `ready --execution` leaves them out, and so does helix's),
// so the epics the loop may focus or close come in their own list: open epics whose dependencies
// are closed (`readyEpics`). An epic is never attempted itself; focus hands over to its children.
import { type Bead, issueTypeOf, labelsOf } from '../../tracker/bead.js';

/**
 * `focus`: how the bead relates to epic focus — `child` of the focused epic (focus goes on),
 * `parent` a task whose parent epic now takes focus. `released`: the focused epic still has
 * unclosed children but none can be worked now, so focus was dropped (docs/contract/bash-interface.md §2.3).
 */
export type Selection =
  | { kind: 'attempt'; bead: Bead; focusedEpic: string | undefined; focus?: 'child' | 'parent'; released?: ReleasedFocus }
  | { kind: 'closeEpic'; epic: Bead; released?: ReleasedFocus }
  | { kind: 'drained'; focusedEpic: string | undefined; released?: ReleasedFocus };

export interface ReleasedFocus {
  epic: string;
  /** Its children that are not closed. */
  open: number;
}

export interface SelectionInput {
  /** `ready --execution`, in ready order (no epics). */
  ready: Bead[];
  /** Open, dependency-ready epics in ready order (`readyEpics`); default: the epics in `ready`. */
  epics?: Bead[];
  /** Every bead in the file. */
  beads: Bead[];
  focusedEpic: string | undefined;
  /** Skipped for the run, or passed over in this pass. */
  excluded: ReadonlySet<string>;
}

const isEpic = (bead: Bead) => issueTypeOf(bead) === 'epic';
const hasGovernance = (bead: Bead) => Boolean(bead['spec-id'] || bead.acceptance || bead.design);

function childrenOf(beads: Bead[], epicId: string): Bead[] {
  return beads.filter((b) => b.parent === epicId);
}

export function selectNext(input: SelectionInput): Selection {
  const { ready, beads, excluded } = input;
  const byId = new Map(beads.map((b) => [b.id, b]));
  const candidates = ready.filter((b) => !excluded.has(b.id));
  let focus = input.focusedEpic;
  let released: ReleasedFocus | undefined;

  if (focus) {
    const epic = byId.get(focus);
    if (!epic || epic.status === 'closed' || excluded.has(focus)) focus = undefined;
    else {
      const children = childrenOf(beads, focus);
      if (children.length > 0 && children.every((c) => c.status === 'closed')) return { kind: 'closeEpic', epic };
      const child = candidates.find((b) => b.parent === focus && !isEpic(b));
      if (child) return { kind: 'attempt', bead: child, focusedEpic: focus, focus: 'child' };
      // nothing of the epic is workable now (claimed or blocked children): look elsewhere
      released = { epic: focus, open: children.filter((c) => c.status !== 'closed').length };
      focus = undefined;
    }
  }
  const withRelease = <T extends object>(selection: T): T => (released ? { ...selection, released } : selection);

  const tasks = candidates.filter((b) => !isEpic(b));
  const task = tasks.find(hasGovernance) ?? tasks[0];
  if (task) {
    const parent = task.parent ? byId.get(task.parent) : undefined;
    const parentEpic = parent && isEpic(parent) && parent.status !== 'closed' && !excluded.has(parent.id) ? parent.id : undefined;
    return withRelease<Selection>(
      parentEpic ? { kind: 'attempt', bead: task, focusedEpic: parentEpic, focus: 'parent' } : { kind: 'attempt', bead: task, focusedEpic: undefined },
    );
  }

  for (const epic of (input.epics ?? ready.filter(isEpic)).filter((b) => !excluded.has(b.id))) {
    const children = childrenOf(beads, epic.id);
    // An epic nobody has broken down yet is not "done": it waits for design, it is not closed.
    if (children.length > 0 && children.every((c) => c.status === 'closed')) return withRelease<Selection>({ kind: 'closeEpic', epic });
  }
  return withRelease<Selection>({ kind: 'drained', focusedEpic: focus });
}

/** Tasks that gained more than one child: they are epics now (docs/contract/cli.md §6.2). */
export function tasksToPromote(beads: Bead[]): Bead[] {
  const childCount = new Map<string, number>();
  for (const b of beads) if (b.parent) childCount.set(b.parent, (childCount.get(b.parent) ?? 0) + 1);
  return beads.filter((b) => !isEpic(b) && b.status !== 'closed' && (childCount.get(b.id) ?? 0) > 1);
}

/** Up to 3 related ready beads for one direct prompt: same parent, else spec-id, else an area:* label. */
export function batchFor(primary: Bead, ready: Bead[], excluded: ReadonlySet<string>, size = 3): Bead[] {
  const others = ready.filter((b) => b.id !== primary.id && !excluded.has(b.id) && !isEpic(b));
  const areas = labelsOf(primary).filter((l) => l.startsWith('area:'));
  const related =
    (primary.parent && others.filter((b) => b.parent === primary.parent).length > 0
      ? others.filter((b) => b.parent === primary.parent)
      : undefined) ??
    (primary['spec-id'] && others.some((b) => b['spec-id'] === primary['spec-id'])
      ? others.filter((b) => b['spec-id'] === primary['spec-id'])
      : undefined) ??
    others.filter((b) => labelsOf(b).some((l) => areas.includes(l)));
  return [primary, ...related.slice(0, size - 1)];
}

/**
 * The build selector (docs/contract/bash-interface.md §11): the first ready bead, in ready order, whose id, parent
 * or spec-id equals it, that carries it as a label, or whose title contains it. helix also takes
 * a unique id suffix or a unique case-insensitive title match. No selector: the first ready bead.
 */
export function resolveSelector<T extends { id: string; title: string; parent?: string; labels?: string[]; [key: string]: unknown }>(ready: T[], selector: string | undefined): T | undefined {
  if (!selector) return ready[0];
  const first = ready.find(
    (b) =>
      b.id === selector ||
      b.parent === selector ||
      b['spec-id'] === selector ||
      (Array.isArray(b.labels) && b.labels.includes(selector)) ||
      (typeof b.title === 'string' && b.title.includes(selector)),
  );
  if (first) return first;
  const bySuffix = ready.filter((b) => b.id.endsWith(`-${selector}`) || b.id.endsWith(selector));
  if (bySuffix.length === 1) return bySuffix[0];
  const needle = selector.toLowerCase();
  const byTitle = ready.filter((b) => b.title.toLowerCase().includes(needle));
  return byTitle.length === 1 ? byTitle[0] : undefined;
}
