// Keyword search: BM25 (SQLite FTS5) over the code-aware terms of search-terms.ts, in three columns —
// trigger, resolution and the files the memory names — weighted so a word in the trigger counts
// more than the same word in a long resolution. User text never reaches MATCH as syntax: every
// term is quoted, so `"`, `*`, `:`, `-`, NEAR, AND/OR/NOT are inert.
import type Database from 'better-sqlite3';
import { BM25_WEIGHTS } from './constants.js';
import { searchRow } from './migrations.js';
import { keywordQueryTerms } from './search-terms.js';

type Sql = { sql(text: string): Database.Statement };

/** A term as an FTS5 phrase: quoted, so no character of it is query syntax. */
const quoted = (term: string): string => `"${term.replace(/"/g, '""')}"`;

/**
 * `"term1" OR "term2" …` for the content terms of `text`; undefined when nothing is left. A
 * compound word the store knows whole (`known`) is searched whole (search-terms.ts: keywordQueryTerms).
 */
export function ftsQuery(text: string, known: (whole: string) => boolean = () => false): string | undefined {
  const terms = keywordQueryTerms(text, known);
  if (terms.length === 0) return undefined;
  return terms.map(quoted).join(' OR ');
}

const RANK = `bm25(memory_search, ${BM25_WEIGHTS.trigger}, ${BM25_WEIGHTS.resolution}, ${BM25_WEIGHTS.files})`;

/** Memories best first by BM25 (score: higher is better), optionally of one type. */
export function keywordSearch(db: Sql, text: string, limit: number, type?: string): { id: number; score: number }[] {
  const indexed = db.sql('SELECT 1 FROM memory_search WHERE memory_search MATCH ? LIMIT 1');
  const query = ftsQuery(text, (whole) => indexed.get(quoted(whole)) !== undefined);
  if (!query) return [];
  // FTS5's bm25() is negative (best lowest); computed once per row and sorted by its negation.
  const sql = type
    ? `SELECT s.rowid AS id, -${RANK} AS score FROM memory_search s JOIN memories m ON m.id = s.rowid
       WHERE memory_search MATCH ? AND m.type = ? ORDER BY score DESC LIMIT ?`
    : `SELECT rowid AS id, -${RANK} AS score FROM memory_search WHERE memory_search MATCH ? ORDER BY score DESC LIMIT ?`;
  const params = type ? [query, type, limit] : [query, limit];
  return db.sql(sql).all(...params) as { id: number; score: number }[];
}

/** Indexes a memory's text (call in the transaction that inserts it). */
export function indexMemory(db: Sql, id: number, trigger: string, resolution: string): void {
  db.sql('INSERT INTO memory_search (rowid, trigger, resolution, files) VALUES (?, ?, ?, ?)').run(id, ...searchRow(trigger, resolution));
}

export function unindexMemory(db: Sql, id: number): void {
  db.sql('DELETE FROM memory_search WHERE rowid = ?').run(id);
}
