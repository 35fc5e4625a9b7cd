// Keyword search over trigger and resolution with SQLite FTS5 (BM25). User text never reaches
// MATCH as syntax: each content word is quoted, so `"`, `*`, `:`, `-`, NEAR, AND/OR/NOT are inert.
import type Database from 'better-sqlite3';
import { contentWords } from './text.js';

const MAX_QUERY_TERMS = 32;

/** `"word1" OR "word2" …` for the content words of `text`; undefined when nothing is left. */
export function ftsQuery(text: string): string | undefined {
  const terms = [...new Set(contentWords(text))].slice(0, MAX_QUERY_TERMS);
  if (terms.length === 0) return undefined;
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
}

/** Memory ids best first by BM25, optionally of one type. */
export function keywordSearch(db: { sql(text: string): Database.Statement }, text: string, limit: number, type?: string): number[] {
  const query = ftsQuery(text);
  if (!query) return [];
  const sql = type
    ? `SELECT f.rowid AS id FROM memories_fts f JOIN memories m ON m.id = f.rowid
       WHERE memories_fts MATCH ? AND m.type = ? ORDER BY bm25(memories_fts) LIMIT ?`
    : `SELECT rowid AS id FROM memories_fts WHERE memories_fts MATCH ? ORDER BY bm25(memories_fts) LIMIT ?`;
  const params = type ? [query, type, limit] : [query, limit];
  return (db.sql(sql).all(...params) as { id: number }[]).map((r) => r.id);
}
