// The disambiguation eval from the real trackers (issue #39): near-duplicate beads that differ in a
// detail. The rule (docs/memory.md states it):
//   - a lesson is a bead closed before the query is filed (updated_at < the query's created_at);
//     it is stored as the real-data eval stores a lesson (trigger: its title; resolution: its
//     notes, or its description when it has none; whitespace folded, the first 1,200 characters),
//     at its closing time, into a store that grows in time order: each query sees only the lessons
//     closed before it;
//   - a query is a later bead, read as the run reads it (title, description, acceptance without
//     HELIX's <context-digest>; the files it names);
//   - its near-duplicates are the lessons whose title shares most of its words: at least
//     NEAR_SHARE of the shorter title's content words and at least two of them;
//   - a separating detail is a content word of the query's title that at most 2% of the tracker's
//     titles hold (at least 3: real-beads.mjs's DISTINCTIVE_*) and that some of its near-duplicates'
//     titles hold and some do not, compared by stem (porter, as the store's index stems);
//   - the query is an item when it has one: its gold is the near-duplicates whose titles hold the
//     most of its details; the others are what the detail must beat;
//   - the item's kind is its detail's: identifier/path (a `/`, `_`, `.`, a digit, an inner capital),
//     version (`v1.2`, `0.6.1`), error text (an error code or error word), component (another
//     word), paraphrase (the gold holds the detail only in another form of the word: same stem);
//   - items are split by time: the first half of each tracker's items (by the query's creation)
//     is the tune half, the rest held out.
// `npm run eval:memory -- --real` prints its table; `--disambiguation-only` prints nothing else.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DISTINCTIVE_MIN, DISTINCTIVE_SHARE, RESOLUTION_CHARS } from './lib/real-beads.mjs';

/** Of the shorter title's content words, the share two titles must share to be near-duplicates. */
export const NEAR_SHARE = 0.6;
export const KINDS = ['identifier/path', 'version', 'error text', 'component', 'paraphrase'];

const DIGEST = /<context-digest>[\s\S]*?<\/context-digest>/g;
const str = (v) => (typeof v === 'string' ? v : '');
const fold = (text) => str(text).replace(DIGEST, ' ').replace(/\s+/g, ' ').trim();

/** Porter stems as SQLite's FTS5 computes them (the store's index), memoised. */
export function stemmer() {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE w USING fts5(t, tokenize = "porter unicode61 tokenchars '_'"); CREATE VIRTUAL TABLE v USING fts5vocab(w, 'row');`);
  const memo = new Map();
  const put = db.prepare('INSERT INTO w (t) VALUES (?)');
  const read = db.prepare('SELECT term FROM v');
  const clear = db.prepare('DELETE FROM w');
  return {
    stem(word) {
      let s = memo.get(word);
      if (s === undefined) {
        clear.run();
        put.run(word.replace(/[^\p{L}\p{N}_]+/gu, ' '));
        s = read.all().map((r) => r.term).join(' ') || word;
        memo.set(word, s);
      }
      return s;
    },
    close: () => db.close(),
  };
}

/** The lessons of a tracker's beads as the store gets them: every closed bead, at its closing time. */
export function lessonMemories(beads) {
  return beads
    .filter((b) => b.status === 'closed' && str(b.updated_at) !== '')
    .map((b) => ({
      id: b.id,
      type: 'pattern',
      trigger: str(b.title).trim(),
      resolution: (fold(b.notes) || fold(b.description) || str(b.title)).slice(0, RESOLUTION_CHARS),
      source: `real:${b.id}`,
      at: Date.parse(b.updated_at),
    }));
}

/** A title's content words, lower case, as written (punctuation at the ends dropped). */
export function titleWords(title, stopwords) {
  const out = new Set();
  for (const raw of str(title).match(/[\p{L}\p{N}_./:@-]+/gu) ?? []) {
    const w = raw.toLowerCase().replace(/^[./:@-]+|[./:@-]+$/g, '');
    if (w.length > 1 && !stopwords.has(w)) out.add(w);
  }
  return out;
}

/** What kind of detail a word is (as the query's title writes it). */
export function detailKind(word, original) {
  if (/^v?\d+(?:\.\d+)+[a-z0-9-]*$/i.test(word)) return 'version';
  if (/^(?:[A-Z]{1,5}\d{2,}|E[A-Z]{4,}|ERR_[A-Z_]+)$/.test(original ?? '') || /^(?:error|errors|panic|panics|exception|timeout|timeouts|crash|crashes|enoent|eacces|sigkill|sigterm|oom|oomkilled|segfault|traceback)$/i.test(word)) return 'error text';
  if (/[/_.\d]/.test(word) || /[a-z][A-Z]/.test(original ?? '') || /^[a-z]+-[0-9a-f]{8}$/.test(word)) return 'identifier/path';
  return 'component';
}

/**
 * The items of one tracker (beads sorted by creation): each later bead whose near-duplicate lessons
 * a detail of its title tells apart, with its gold, its kind and its split; and the lessons.
 */
export function disambiguationSet(beads, { stopwords }) {
  const stems = stemmer();
  try {
    const words = new Map(beads.map((b) => [b.id, titleWords(b.title, stopwords)]));
    const stemsOf = new Map([...words].map(([id, ws]) => [id, new Map([...ws].map((w) => [stems.stem(w), w]))]));
    const frequency = new Map();
    for (const s of stemsOf.values()) for (const stem of s.keys()) frequency.set(stem, (frequency.get(stem) ?? 0) + 1);
    const limit = Math.max(DISTINCTIVE_MIN, Math.ceil(DISTINCTIVE_SHARE * beads.length));
    const lessons = beads.filter((b) => b.status === 'closed' && str(b.updated_at) !== '');
    const near = (a, b) => {
      const x = stemsOf.get(a.id);
      const y = stemsOf.get(b.id);
      if (x.size === 0 || y.size === 0) return false;
      let shared = 0;
      for (const s of x.keys()) if (y.has(s)) shared++;
      return shared >= 2 && shared / Math.min(x.size, y.size) >= NEAR_SHARE;
    };
    const items = [];
    const group = new Map();
    const root = (id) => {
      while (group.has(id) && group.get(id) !== id) id = group.get(id);
      return id;
    };
    const join = (a, b) => {
      for (const id of [a, b]) if (!group.has(id)) group.set(id, id);
      group.set(root(a), root(b));
    };
    for (const query of beads) {
      const candidates = lessons.filter((l) => l.id !== query.id && str(l.updated_at) < query.created_at && near(query, l));
      if (candidates.length < 2) continue;
      const own = stemsOf.get(query.id);
      const details = [...own.keys()].filter((s) => {
        if ((frequency.get(s) ?? 0) > limit) return false;
        const holding = candidates.filter((c) => stemsOf.get(c.id).has(s)).length;
        return holding > 0 && holding < candidates.length;
      });
      if (details.length === 0) continue;
      const held = (c) => details.filter((s) => stemsOf.get(c.id).has(s)).length;
      const best = Math.max(...candidates.map(held));
      const gold = candidates.filter((c) => held(c) === best);
      const goldDetails = details.filter((s) => gold.some((g) => stemsOf.get(g.id).has(s)));
      const originals = str(query.title).match(/[\p{L}\p{N}_./:@-]+/gu) ?? [];
      const kinds = goldDetails.map((s) => {
        const written = own.get(s);
        const samePlace = gold.some((g) => words.get(g.id).has(written));
        if (!samePlace) return 'paraphrase';
        return detailKind(written, originals.find((o) => o.toLowerCase().replace(/^[./:@-]+|[./:@-]+$/g, '') === written));
      });
      const kind = KINDS.find((k) => kinds.includes(k));
      items.push({ id: query.id, at: query.created_at, kind, details: goldDetails.map((s) => own.get(s)), relevant: gold.map((g) => g.id), candidates: candidates.map((c) => c.id), bead: query });
      for (const c of candidates) join(query.id, c.id);
    }
    const half = Math.ceil(items.length / 2);
    items.forEach((item, i) => (item.heldout = i >= half));
    const memories = lessonMemories(beads);
    const groups = new Set([...group.keys()].map(root)).size;
    return { items, memories, groups, detailLimit: limit };
  } finally {
    stems.close();
  }
}

/**
 * A fixture the test runs without ../shared/data: the items (found on the whole tracker) and the
 * beads they need (their queries and near-duplicates), with the fields the eval reads.
 */
export function slice(beads, items) {
  const needed = new Set(items.flatMap((q) => [q.id, ...q.candidates]));
  const keep = ['id', 'title', 'description', 'acceptance', 'notes', 'status', 'created_at', 'updated_at'];
  return {
    items: items.map(({ bead, ...item }) => item),
    beads: beads.filter((b) => needed.has(b.id)).map((b) => Object.fromEntries(keep.filter((k) => b[k] !== undefined).map((k) => [k, b[k]]))),
  };
}

/** A fixture written by `slice` as the set rankItems takes: its items with their beads, its lessons. */
export function fromSlice({ items, beads }) {
  const byId = new Map(beads.map((b) => [b.id, b]));
  return { items: items.map((item) => ({ ...item, bead: byId.get(item.id) })), memories: lessonMemories(beads) };
}

/**
 * Ranks every item's query against a store that grows in time order (each query sees the lessons
 * closed before it): through `store.recall` with the bead's objective and files as the run reads
 * them, the first `limit`. Returns the items with `ranked` (lesson ids, a merged memory counting
 * as each lesson merged into it).
 */
export async function rankItems(mods, choice, set, { limit = 10 } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'helix-eval-disambiguation-'));
  let now = 0;
  const store = mods.memory.openMemoryStore({ dbPath: join(dir, 'helix.db'), env: { HELIX_EMBEDDER: choice }, now: () => new Date(now), warn: () => {} });
  try {
    const embedderId = await store.embedderId();
    if (choice !== 'lexical' && embedderId.startsWith('lexical')) return { skipped: 'fell back to lexical' };
    const events = [
      ...set.memories.map((m) => ({ at: m.at, order: 0, memory: m })),
      ...set.items.map((item) => ({ at: Date.parse(item.at), order: 1, item })),
    ].sort((a, b) => a.at - b.at || a.order - b.order);
    const idsOf = new Map();
    const ranked = [];
    for (const e of events) {
      now = e.at;
      if (e.memory) {
        const r = await store.store({ trigger: e.memory.trigger, resolution: e.memory.resolution, type: e.memory.type, source: e.memory.source });
        if (r.status !== 'rejected') idsOf.set(r.name, [...(idsOf.get(r.name) ?? []), e.memory.id]);
        continue;
      }
      const { bead } = e.item;
      const found = await store.recall(mods.port.beadObjective(bead), { limit, files: mods.port.beadFiles(bead) });
      ranked.push({ ...e.item, ranked: found.map((f) => idsOf.get(f.name) ?? [f.name]) });
    }
    return { embedderId, items: ranked };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** R@1, R@5 (a gold lesson in the top 5) and MRR@10 of ranked items. */
export function figures(items) {
  let r1 = 0, r5 = 0, rr = 0;
  for (const q of items) {
    const gold = new Set(q.relevant);
    const first = q.ranked.findIndex((ids) => ids.some((id) => gold.has(id)));
    if (first === 0) r1++;
    if (first >= 0 && first < 5) r5++;
    if (first >= 0) rr += 1 / (first + 1);
  }
  const n = items.length;
  return { n, r1: n ? r1 / n : NaN, r5: n ? r5 / n : NaN, mrr: n ? rr / n : NaN };
}

const f3 = (x) => (Number.isFinite(x) ? x.toFixed(3) : '–');
const cell = (f) => (f.n ? `${f3(f.r1)} / ${f3(f.r5)} / ${f3(f.mrr)} (${f.n})` : '– (0)');

/** The table `eval:memory -- --real` prints: R@1 / R@5 / MRR per split, all items and per kind. */
export function disambiguationTable(rows) {
  const out = [`| set | split | all R@1 / R@5 / MRR (n) | ${KINDS.join(' | ')} |`, `|---|---|---|${KINDS.map(() => '---').join('|')}|`];
  for (const { label, items } of rows) {
    for (const [split, pick] of [['tune', (q) => !q.heldout], ['held-out', (q) => q.heldout]]) {
      const chosen = items.filter(pick);
      out.push(`| ${label} | ${split} | ${cell(figures(chosen))} | ${KINDS.map((k) => cell(figures(chosen.filter((q) => q.kind === k)))).join(' | ')} |`);
    }
  }
  return out.join('\n');
}

/** The items whose gold is not first: what came first instead. */
export function misses(items, titleOf) {
  return items
    .filter((q) => !q.ranked[0]?.some((id) => q.relevant.includes(id)))
    .map((q) => {
      const rank = q.ranked.findIndex((ids) => ids.some((id) => q.relevant.includes(id)));
      return `  ${q.heldout ? 'held-out' : 'tune'} ${q.id} [${q.kind}: ${q.details.join(', ')}] ${rank < 0 ? 'missed' : `rank ${rank + 1}`}: ${titleOf(q.id).slice(0, 60)} → first ${titleOf(q.ranked[0]?.[0] ?? '').slice(0, 60)}`;
    });
}
