// The real-data gate eval's rule (issue #33): from a real DDx tracker, the lessons a store would
// hold, the later beads that query it, and which lessons each bead should get. The rule, kept simple:
//   - the history splits at the creation time of the middle bead (by creation order), T;
//   - a lesson is a bead closed before T (updated_at < T: its notes existed by then) with notes;
//     it is stored as helix stores what a successful bead taught (chunk: a `pattern`, trigger
//     the bead's title, resolution its notes, whitespace folded, the first 1,200 characters);
//   - a task is a bead created at T or later, read as the run reads a bead (title, description,
//     acceptance; the files its text names);
//   - a lesson fits a task (is gold) when they share the spec-id, or the parent (or one is the
//     other's parent), or the task's text names a path or identifier the lesson's text (with its
//     notes) names, and that path or identifier is distinctive: named by at most 2% of the
//     tracker's beads (at least 3). AGENTS.md or the test script every tenth bead names says
//     nothing about what a lesson is about. Texts are read without the `<context-digest>` block
//     HELIX prepends to every bead (principles, concerns, practices: the same for all beads);
//   - a task no lesson fits should get nothing;
//   - hook events: each file a task's text names (at most 3 per task) is edited for that task, so
//     the lessons that fit the task fit the edit, and an edit for a task nothing fits should get
//     nothing.
// Nothing after T is seen by the store: lessons closed later are not stored, whatever their time.
import { readFileSync } from 'node:fs';

/** The `<context-digest>` block HELIX's tracker prepends to bead descriptions. */
const DIGEST = /<context-digest>[\s\S]*?<\/context-digest>/g;
/** A DDx bead id (`helix-004375e5`, `ddx-00d406ce`). */
const BEAD_ID = /\b[a-z][a-z0-9]*-[0-9a-f]{8}\b/g;
/** What a stored lesson keeps of a bead's notes. */
export const RESOLUTION_CHARS = 1200;
export const HOOK_FILES_PER_TASK = 3;
export const DISTINCTIVE_SHARE = 0.02;
export const DISTINCTIVE_MIN = 3;

export function readTracker(path) {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

const str = (v) => (typeof v === 'string' ? v : '');
/** A bead's own text: title, description and acceptance without the digest. */
export const ownText = (b) => [str(b.title), str(b.description), str(b.acceptance)].join('\n').replace(DIGEST, ' ');

/**
 * The paths and identifiers a text names, as the run reads a bead's files (a folder or a source
 * extension: memory-port's beadFiles keeps those of the store's path matcher) plus its settings and
 * code identifiers (values.ts) and the bead ids it mentions.
 */
export function namedThings(text, { filePatterns, namedIdentifiers }) {
  const out = new Set();
  for (const f of filePatterns(text)) if (f.includes('/') || /\.(ts|js|mjs|cjs|tsx|jsx|py|go|rs|rb|java|kt|c|h|cc|cpp|md|json|ya?ml|toml|sh|sql|css|html)$/i.test(f)) out.add(`path:${f}`);
  for (const id of namedIdentifiers(text)) out.add(`id:${id}`);
  for (const id of text.match(BEAD_ID) ?? []) out.add(`bead:${id}`);
  return out;
}

/** The split, the lessons, the tasks, the gold pairs and the hook events of one tracker. */
export function realSet(beads, helpers) {
  const { filePatterns } = helpers;
  const middle = beads[Math.floor(beads.length / 2)];
  const T = middle.created_at;
  const named = new Map(beads.map((b) => [b.id, namedThings(`${ownText(b)}\n${str(b.notes)}`, helpers)]));
  const ownNamed = new Map(beads.map((b) => [b.id, namedThings(ownText(b), helpers)]));
  const frequency = new Map();
  for (const things of named.values()) for (const t of things) frequency.set(t, (frequency.get(t) ?? 0) + 1);
  const limit = Math.max(DISTINCTIVE_MIN, Math.ceil(DISTINCTIVE_SHARE * beads.length));
  const distinctive = (t) => (frequency.get(t) ?? 0) <= limit;

  const lessons = beads.filter((b) => b.status === 'closed' && str(b.notes).trim() !== '' && str(b.updated_at) < T);
  const tasks = beads.filter((b) => b.created_at >= T);
  const spec = (b) => str(b['spec-id']).trim();
  const parent = (b) => str(b.parent).trim();
  const why = (lesson, task) => {
    if (spec(task) && spec(task) === spec(lesson)) return 'spec-id';
    if (parent(task) && (parent(task) === parent(lesson) || parent(task) === lesson.id)) return 'parent';
    if (parent(lesson) === task.id) return 'parent';
    for (const t of ownNamed.get(task.id)) if (distinctive(t) && named.get(lesson.id).has(t)) return t;
    if (ownNamed.get(task.id).has(`bead:${lesson.id}`)) return `bead:${lesson.id}`;
    return undefined;
  };
  const reasons = new Map();
  const items = tasks.map((task) => {
    const relevant = [];
    const linkedBy = {};
    for (const lesson of lessons) {
      const reason = why(lesson, task);
      if (reason === undefined) continue;
      relevant.push(lesson.id);
      const kind = reason.includes(':') ? reason.slice(0, reason.indexOf(':')) : reason;
      linkedBy[lesson.id] = kind;
      reasons.set(kind, (reasons.get(kind) ?? 0) + 1);
    }
    return { id: task.id, kind: 'bead', relevant, linkedBy, bead: task };
  });
  const edits = items.flatMap((item) =>
    [...new Set(filePatterns(ownText(item.bead)).filter((f) => f.includes('/') || /\.\w+$/.test(f)))]
      .slice(0, HOOK_FILES_PER_TASK)
      .map((file, i) => ({ id: `${item.id}#${i + 1}`, kind: 'hook', file, relevant: item.relevant })),
  );
  const memories = lessons.map((b) => ({
    id: b.id,
    type: 'pattern',
    trigger: str(b.title).trim(),
    resolution: str(b.notes).replace(/\s+/g, ' ').trim().slice(0, RESOLUTION_CHARS),
    source: `real:${b.id}`,
    at: Date.parse(b.updated_at),
  })).sort((a, b) => a.at - b.at);
  return { T, lessons, tasks, memories, beads: items, edits, reasons, distinctiveLimit: limit };
}

/**
 * Of the (task, lesson) pairs each part of the rule links, how many reached their task: what a
 * memory's text can carry (a shared path or identifier) against what it cannot (spec-id, parent).
 */
export function recallByLink(items) {
  const out = new Map();
  for (const q of items) {
    for (const [lesson, kind] of Object.entries(q.linkedBy ?? {})) {
      const r = out.get(kind) ?? { pairs: 0, reached: 0 };
      r.pairs++;
      if (q.injected.includes(lesson)) r.reached++;
      out.set(kind, r);
    }
  }
  return out;
}
