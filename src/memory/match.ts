// How much of a query a memory answers, on an absolute scale: the gate that keeps plausible noise
// out of prompts (issue #25). Ranking (fusion.ts) is relative to the query's best hit, so a memory
// sharing one generic word with an unrelated task ranks first with relevance ~1; the gate asks
// instead what share of the query's information the memory holds:
//   match = Σ idf(t) over the query's terms the memory contains / Σ idf(t) over all its terms,
// with idf = ln(1 + (N − n + 0.5)/(n + 0.5)) over the N memories of the store (n = memories with t),
// so a word most memories share counts little and a word no memory has still counts in the
// denominator: a task whose distinctive words the store has never seen is not "covered" by the
// generic words it shares. Read the other way, the share of the memory's trigger (the situation it
// was written for) that the query contains also counts: the larger of the two is the match. A path contributes its file name (`webhooks` of
// api/app/routers/webhooks.py), not its folders: `api`, `app`, `routers` name where a file lives,
// not what it is about, and were the noise the issue measured. A memory that names one of the
// query's files (files.ts's suffix match over at least two segments, or the whole path) matches
// fully; one naming only the same bare file name (`main.py`) half.
// Calibrated per embedder on the tune split of eval/memory-gate.json (thresholds.ts, docs/memory.md).
import type Database from 'better-sqlite3';
import { baseName, cleanPath, queryPaths } from './files.js';
import { indexText, queryTerms } from './search-terms.js';
import { namedIdentifiers } from './values.js';

type Sql = { sql(text: string): Database.Statement };

/** The query's terms: words of its prose and the stems of the file names it or the task names. */
export function matchTerms(query: string, files: string[]): string[] {
  const inQuery = queryPaths(query);
  let prose = query;
  for (const path of inQuery) prose = prose.split(path).join(' ');
  const terms = new Set(queryTerms(prose));
  for (const path of new Set([...inQuery, ...files.map(cleanPath)])) {
    const name = baseName(path);
    const dot = name.lastIndexOf('.');
    for (const term of queryTerms(dot > 0 ? name.slice(0, dot) : name)) terms.add(term);
  }
  return [...terms];
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

/** How strongly a memory naming a file by `shared` trailing segments (pattern of `segments`) matches. */
export function pathMatchStrength(shared: number, segments: number): number {
  if (shared <= 0) return 0;
  return shared >= 2 || segments >= 2 ? 1 : 0.5;
}

/**
 * The match of each candidate in [0, 1]: the idf-weighted share of the query's terms it contains,
 * at least its path strength (`named`: id → strength). Candidates outside the store's text index
 * keep only their path strength.
 */
export function matchScores(db: Sql & { db: Database.Database }, query: string, files: string[], candidates: number[], named: Map<number, number>): Map<number, number> {
  const out = new Map<number, number>(candidates.map((id) => [id, named.get(id) ?? 0]));
  const terms = matchTerms(query, files);
  if (terms.length === 0 || candidates.length === 0) return out;
  // The memory's side: how much of its situation the query describes (a long bead may describe
  // several memories' situations and still be mostly about other things).
  const rows = db.sql('SELECT id, trigger FROM memories WHERE id IN (SELECT value FROM json_each(?))').all(JSON.stringify(candidates)) as { id: number; trigger: string }[];
  for (const [row, share] of triggerCoverage(db, { objective: query, files }, rows)) out.set(row.id, Math.max(out.get(row.id) ?? 0, share));
  const documents = (db.sql('SELECT COUNT(*) AS n FROM memories').get() as { n: number }).n;
  const count = db.sql('SELECT COUNT(*) AS n FROM memory_search WHERE memory_search MATCH ?');
  const among = db.sql('SELECT rowid AS id FROM memory_search WHERE memory_search MATCH ? AND rowid IN (SELECT value FROM json_each(?))');
  const ids = JSON.stringify(candidates);
  const covered = new Map<number, number>();
  let total = 0;
  for (const term of terms) {
    const phrase = `"${term.replace(/"/g, '""')}"`;
    const weight = idf(documents, (count.get(phrase) as { n: number }).n);
    total += weight;
    for (const { id } of among.all(phrase, ids) as { id: number }[]) covered.set(id, (covered.get(id) ?? 0) + weight);
  }
  for (const [id, sum] of covered) out.set(id, Math.max(out.get(id) ?? 0, sum / total));
  return out;
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
