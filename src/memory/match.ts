// How much of a query a memory answers, on an absolute scale: the gate that keeps plausible noise
// out of prompts (issues #25, #33). Ranking (fusion.ts) is relative to the query's best hit, so a
// memory sharing one generic word with an unrelated task ranks first with relevance ~1; the gate
// asks instead what share of the query's evidence the memory holds:
//   match = Σ idf(t) over the query's terms the memory holds / Σ idf(t) over all its terms,
// with idf = ln(1 + (N − n + 0.5)/(n + 0.5)) over the N memories of the store (n = memories with t),
// so a word most memories share counts little and a word no memory has still counts in the
// denominator: a task whose distinctive words the store has never seen is not "covered" by the
// generic words it shares. Read the other way, the share of the memory's trigger (the situation it
// was written for) that the query holds also counts: the larger of the two is the match.
// A query's terms are the words of its prose and the files it (or its task) names. A file is one
// term, not words: not its folders (`api`, `app`, `routers` name where a file lives, not what it is
// about: #25's noise), and not its file name's words either — an edit of `orders.py` is not about
// every memory that says "orders" (#33: those were most of what the edit hook injected wrongly).
// Like a word, a file weighs by how few memories name it; a memory holds it fully when it names the
// file (files.ts's suffix match over two segments, or the whole path), half when it names only the
// same bare file name (`main.py`). So naming the task's file is strong evidence, not a full match:
// a memory about another problem in the same file shares the file and nothing else of the task.
// Calibrated per embedder on the tune split of eval/memory-gate.json (thresholds.ts, docs/memory.md).
import type Database from 'better-sqlite3';
import { cleanPath, queryPaths, sharedSuffix } from './files.js';
import { indexText, queryTerms } from './search-terms.js';
import { namedIdentifiers } from './values.js';

type Sql = { sql(text: string): Database.Statement };

/** A text without the paths it names: its prose. */
function prose(text: string): string {
  let rest = text;
  for (const path of queryPaths(text)) rest = rest.split(path).join(' ');
  return rest;
}

/** The words of a query the match weighs: its prose's content terms (its files are terms of their own). */
export function matchTerms(query: string): string[] {
  return queryTerms(prose(query));
}

/**
 * Inverse document frequency, always positive (BM25's with the +1 inside the log), over the store
 * plus IDF_PRIOR_DOCUMENTS imagined memories that hold none of the terms: frequencies counted in a
 * store of three memories say little, and without the prior a word all three share weighs nothing
 * next to any word they lack, so a bead about "the payment webhook handler" matched none of three
 * memories about the payment webhook handler.
 */
export function idf(documents: number, withTerm: number): number {
  return Math.log(1 + (documents + IDF_PRIOR_DOCUMENTS - withTerm + 0.5) / (withTerm + 0.5));
}

export const IDF_PRIOR_DOCUMENTS = 50;

/**
 * A trigger of fewer terms is weighed as if it had this many, the missing ones absent from the
 * task: a short trigger of common words ("Adding a new query to the dispatch service") is otherwise
 * covered by any task that says it added something new. Counted in terms, not in idf: a trigger
 * whose words are common because its problem recurs (the learning simulation's crowded arm: every
 * note of a family shares the bead's title words) must still reach the bead it names word for
 * word — weighing it as six distinctive words dropped the learned fact from 17% of the crowded
 * arm's prompts (issue #33). Chosen on the tune splits of eval/memory-gate.json and
 * eval/memory-beads.json (docs/memory.md): 7 and 8 did alike, 6 and fewer lost recall.
 */
export const SITUATION_TERMS = 7;

/** How strongly a memory naming a file by `shared` trailing segments (pattern of `segments`) matches. */
export function pathMatchStrength(shared: number, segments: number): number {
  if (shared <= 0) return 0;
  return shared >= 2 || segments >= 2 ? 1 : 0.5;
}

/** What a memory shares with a query: the query's words it holds and the files both name. */
export interface MatchDetail {
  /** In [0, 1]: what the gate compares. */
  match: number;
  words: string[];
  files: string[];
  /**
   * `task`: the share of the task the memory holds; `trigger`: the share of its trigger the task
   * holds; `file`: it names one of the task's files (as far as that file is specific).
   */
  side: 'task' | 'trigger' | 'file';
}

/** A text's evidence: the words of its prose and the paths it names. */
interface Evidence {
  words: string[];
  paths: string[];
}

/** The leading label of a systemic row's trigger: it says the row repeats, not what it is about. */
const SYSTEMIC_LABEL = /^Repeated:\s*/;

/**
 * The match of each candidate, in [0, 1], with what it shares: the larger of two idf-weighted
 * shares — of the query's evidence the memory holds, and of the memory's trigger (the situation
 * it was written for) the query holds. Evidence is words and files: a file is one term, weighted
 * like a word by how few memories name it, present as strongly as the two name it
 * (pathMatchStrength). Naming a file the task touches is no longer a full match: a memory about
 * another problem in the same file shares the file and nothing else of the task (issue #33).
 */
export function matchDetails(db: Sql & { db: Database.Database }, query: string, files: string[], candidates: number[]): Map<number, MatchDetail> {
  const out = new Map<number, MatchDetail>(candidates.map((id) => [id, { match: 0, words: [], files: [], side: 'task' }]));
  if (candidates.length === 0) return out;
  const task: Evidence = { words: matchTerms(query), paths: [...new Set([...queryPaths(query), ...files.map(cleanPath)])] };
  const documents = (db.sql('SELECT COUNT(*) AS n FROM memories').get() as { n: number }).n;
  const naming = fileNaming(db);
  const ids = JSON.stringify(candidates);
  const count = db.sql('SELECT COUNT(*) AS n FROM memory_search WHERE memory_search MATCH ?');
  const store: StoreCounts = { documents, naming, count };
  taskShares(db, store, task, candidates, ids, out);
  triggerShares(db, store, task, query, ids, out);
  fileShares(store, task, candidates, out);
  return out;
}

/** What the match weighs terms by: the store's size, which memories name a file, how many hold a word. */
interface StoreCounts {
  documents: number;
  naming: (path: string) => Map<number, number>;
  count: Database.Statement;
}

/** The query's side: the idf-weighted share of the task's evidence each candidate holds. */
function taskShares(db: Sql, { documents, naming, count }: StoreCounts, task: Evidence, candidates: number[], ids: string, out: Map<number, MatchDetail>): void {
  const among = db.sql('SELECT rowid AS id FROM memory_search WHERE memory_search MATCH ? AND rowid IN (SELECT value FROM json_each(?))');
  const held = new Map<number, { sum: number; words: string[]; files: string[] }>();
  const hold = (id: number) => {
    let h = held.get(id);
    if (!h) held.set(id, (h = { sum: 0, words: [], files: [] }));
    return h;
  };
  let total = 0;
  for (const term of task.words) {
    const phrase = quote(term);
    const weight = idf(documents, (count.get(phrase) as { n: number }).n);
    total += weight;
    for (const { id } of among.all(phrase, ids) as { id: number }[]) {
      const h = hold(id);
      h.sum += weight;
      h.words.push(term);
    }
  }
  for (const path of task.paths) {
    const named = naming(path);
    const weight = idf(documents, named.size);
    total += weight;
    for (const id of candidates) {
      const strength = named.get(id);
      if (!strength) continue;
      const h = hold(id);
      h.sum += weight * strength;
      h.files.push(path);
    }
  }
  // Weighed as at least one distinctive term: an edit of a file forty memories name is not
  // answered by each of them (a query of one common term would otherwise be matched fully).
  const weighed = Math.max(total, idf(documents, 1));
  for (const [id, h] of held) out.set(id, { match: h.sum / weighed, words: h.words, files: h.files, side: 'task' });
}

/**
 * The memory's side: how much of its situation the query describes (a long bead may describe
 * several memories' situations and still be mostly about other things); it counts where it is the larger share.
 */
function triggerShares(db: Sql & { db: Database.Database }, { documents, naming, count }: StoreCounts, task: Evidence, query: string, ids: string, out: Map<number, MatchDetail>): void {
  const rows = db.sql('SELECT id, trigger FROM memories WHERE id IN (SELECT value FROM json_each(?))').all(ids) as { id: number; trigger: string }[];
  const present = taskWords(db, prose(query));
  const taskSegments = task.paths.map(segmentsOf);
  const wordWeight = wordWeigher({ documents, count });
  for (const row of rows) {
    const situation = row.trigger.replace(SYSTEMIC_LABEL, '');
    const own: Evidence = { words: matchTerms(situation), paths: queryPaths(situation) };
    let sum = 0;
    let all = 0;
    const words: string[] = [];
    const shared: string[] = [];
    for (const term of own.words) {
      const weight = wordWeight(term);
      all += weight;
      if (present(term)) {
        sum += weight;
        words.push(term);
      }
    }
    for (const path of own.paths) {
      const weight = idf(documents, naming(path).size);
      all += weight;
      const pattern = segmentsOf(path);
      const strength = Math.max(0, ...taskSegments.map((file) => pathStrength(pattern, file)));
      if (strength > 0) {
        sum += weight * strength;
        shared.push(path);
      }
    }
    const terms = own.words.length + own.paths.length;
    const share = all > 0 ? (sum / all) * Math.min(1, terms / SITUATION_TERMS) : 0;
    const current = out.get(row.id)!;
    if (share > current.match) out.set(row.id, { match: share, words, files: shared, side: 'trigger' });
  }
}

/**
 * The file query (the contract's second query, docs/contract/design.md §6): a memory naming one
 * of the task's files surfaces with it even when the task shares none of its words ("circular
 * imports in auth.py" for "add user endpoints" touching auth.py). The file's weight is shared by
 * the memories that name it: one alone answers it fully, two half each; where more name it they
 * are look-alikes in the same file, and each must also share the task's words (issue #33).
 */
function fileShares({ naming }: StoreCounts, task: Evidence, candidates: number[], out: Map<number, MatchDetail>): void {
  for (const path of task.paths) {
    const named = naming(path);
    if (named.size === 0) continue;
    for (const id of candidates) {
      const strength = (named.get(id) ?? 0) / named.size;
      if (strength > out.get(id)!.match) out.set(id, { match: strength, words: [], files: [path], side: 'file' });
    }
  }
}

/**
 * How alike a bead's headline (the first line of a query of several lines: a bead's title) and each
 * candidate's trigger are, in [0, 1]: the idf-weighted Dice of the two shares — the headline's terms
 * the trigger holds, and the trigger's terms the headline holds (stemmed as the store stems). Near-
 * duplicate beads differ in their titles' detail, while their bodies share the same acceptance text
 * (issue #39); a one-line query is its own headline, and the match weighs it whole already: 0 for all.
 */
export function headlineShares(db: Sql & { db: Database.Database }, query: string, candidates: number[]): Map<number, number> {
  const out = new Map<number, number>();
  const lines = query.split('\n').map((l) => l.trim()).filter(Boolean);
  if (lines.length < 2 || candidates.length === 0) return out;
  const headline = lines[0]!;
  const terms = queryTerms(headline);
  if (terms.length === 0) return out;
  const documents = (db.sql('SELECT COUNT(*) AS n FROM memories').get() as { n: number }).n;
  const weight = wordWeigher({ documents, count: db.sql('SELECT COUNT(*) AS n FROM memory_search WHERE memory_search MATCH ?') });
  const ids = JSON.stringify(candidates);
  const inTrigger = db.sql('SELECT rowid AS id FROM memory_search WHERE memory_search MATCH ? AND rowid IN (SELECT value FROM json_each(?))');
  const held = new Map<number, number>();
  let total = 0;
  for (const term of terms) {
    total += weight(term);
    for (const { id } of inTrigger.all(`trigger : ${quote(term)}`, ids) as { id: number }[]) held.set(id, (held.get(id) ?? 0) + weight(term));
  }
  const inHeadline = taskWords(db, headline);
  const rows = db.sql('SELECT id, trigger FROM memories WHERE id IN (SELECT value FROM json_each(?))').all(ids) as { id: number; trigger: string }[];
  for (const row of rows) {
    const own = held.get(row.id) ?? 0;
    if (own === 0) continue;
    let sum = 0;
    let all = 0;
    for (const term of queryTerms(row.trigger.replace(SYSTEMIC_LABEL, ''))) {
      all += weight(term);
      if (inHeadline(term)) sum += weight(term);
    }
    const a = own / total;
    const b = all > 0 ? sum / all : 0;
    const dice = a + b > 0 ? (2 * a * b) / (a + b) : 0;
    out.set(row.id, dice);
  }
  return out;
}

/** The match alone (recall's `_match`, the gate). */
export function matchScores(db: Sql & { db: Database.Database }, query: string, files: string[], candidates: number[]): Map<number, number> {
  return new Map([...matchDetails(db, query, files, candidates)].map(([id, d]) => [id, d.match]));
}

const quote = (term: string): string => `"${term.replace(/"/g, '""')}"`;

/** A path split into its segments, once: a queried path may be 128 KB long (the edit hook's bench). */
const segmentsOf = (path: string): string[] => cleanPath(path).split('/');

/** How strongly a stored path and a queried one (both split) name the same file (0: they do not). */
function pathStrength(pattern: string[], file: string[]): number {
  return pathMatchStrength(sharedSuffix(pattern, file), pattern.length);
}

/** For a path: the memories that name it, with how strongly (one lookup by file name, memoised). */
function fileNaming(db: Sql): (path: string) => Map<number, number> {
  const sameName = db.sql('SELECT memory_id AS id, pattern FROM memory_files WHERE basename = ?');
  const memo = new Map<string, Map<number, number>>();
  return (path) => {
    let named = memo.get(path);
    if (named) return named;
    named = new Map();
    const file = segmentsOf(path);
    for (const { id, pattern } of sameName.all(file[file.length - 1]!) as { id: number; pattern: string }[]) {
      const strength = pathStrength(segmentsOf(pattern), file);
      if (strength > (named.get(id) ?? 0)) named.set(id, strength);
    }
    memo.set(path, named);
    return named;
  };
}

/** A word's idf over the store, asked of the index once a word. */
function wordWeigher({ documents, count }: Pick<StoreCounts, 'documents' | 'count'>): (term: string) => number {
  const weights = new Map<string, number>();
  return (term) => {
    let weight = weights.get(term);
    if (weight === undefined) weights.set(term, (weight = idf(documents, (count.get(quote(term)) as { n: number }).n)));
    return weight;
  };
}

/**
 * Whether a word is in the task's prose, stemmed as the store stems it: the whole prose goes into
 * a per-connection temp index (a long bead may name a memory's situation past its first words).
 */
function taskWords(db: Sql & { db: Database.Database }, taskProse: string): (term: string) => boolean {
  db.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.task_words USING fts5(text, tokenize = "porter unicode61 tokenchars '_'")`);
  db.sql('DELETE FROM temp.task_words').run();
  db.sql('INSERT INTO temp.task_words (text) VALUES (?)').run(indexText(taskProse));
  const inTask = db.sql('SELECT 1 FROM temp.task_words WHERE task_words MATCH ?');
  return (term) => inTask.get(quote(term)) !== undefined;
}

/**
 * Whether a memory is about a task, for feedback (issue #25's fair credit). Two tests, both needed:
 * - its situation: at least ABOUT_TASK of its trigger — the situation it was written for, weighted
 *   by idf over the store — appears in the task's text (triggerCoverage). The direction is the
 *   memory's: a long bead that describes a memory's situation among other things still has it;
 *   a memory that shares only a file or a generic word with the task does not.
 * - its subject (addressesTask): when the task names the settings or identifiers it is about and
 *   the memory names its own, they share one. A trigger can repeat a bead's subject ("Payment
 *   webhook retries logs fill the disk") and still be about another setting of the same file
 *   (`log_level`, while the bead is about `retry_policy`): such a note is no rival of the fix
 *   that passed, and its not being used says nothing of it.
 */
export const ABOUT_TASK = 0.5;

/**
 * The second test: the memory names none of the settings or identifiers the task names while it
 * names some of its own (values.ts: namedIdentifiers) — then it is about something else. When
 * either names none, there is nothing to compare and the situation decides alone.
 */
export function addressesTask(memory: { trigger: string; resolution: string }, taskNames: Set<string>): boolean {
  if (taskNames.size === 0) return true;
  const own = namedIdentifiers(`${memory.trigger}\n${memory.resolution}`);
  return own.size === 0 || [...own].some((name) => taskNames.has(name));
}

export type TaskText = { objective: string; files?: string[] };

/**
 * For each memory, the idf-weighted share of its trigger's terms that the task's text contains.
 * The task's text goes into a per-connection temp index, so its words meet the trigger's through
 * the same tokenizer and stemmer as the store's own index.
 */
export function triggerCoverage<T extends { trigger: string }>(db: Sql & { db: Database.Database }, task: TaskText, memories: T[]): Map<T, number> {
  db.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.task_text USING fts5(text, tokenize = "porter unicode61 tokenchars '_'")`);
  db.sql('DELETE FROM temp.task_text').run();
  db.sql('INSERT INTO temp.task_text (text) VALUES (?)').run(indexText([task.objective, ...(task.files ?? [])].join('\n')));
  const documents = (db.sql('SELECT COUNT(*) AS n FROM memories').get() as { n: number }).n;
  const count = db.sql('SELECT COUNT(*) AS n FROM memory_search WHERE memory_search MATCH ?');
  const inTask = db.sql('SELECT 1 FROM temp.task_text WHERE task_text MATCH ?');
  const weights = new Map<string, { weight: number; present: boolean }>();
  const termWeight = (term: string) => {
    let known = weights.get(term);
    if (!known) {
      const phrase = `"${term.replace(/"/g, '""')}"`;
      known = { weight: idf(documents, (count.get(phrase) as { n: number }).n), present: inTask.get(phrase) !== undefined };
      weights.set(term, known);
    }
    return known;
  };
  const out = new Map<T, number>();
  for (const memory of memories) {
    let present = 0;
    let total = 0;
    for (const term of queryTerms(memory.trigger)) {
      const { weight, present: found } = termWeight(term);
      total += weight;
      if (found) present += weight;
    }
    out.set(memory, total > 0 ? present / total : 0);
  }
  return out;
}
