// Numbered schema migrations, applied in order and recorded in `schema_version`. Each runs once,
// inside the same immediate transaction that re-reads the version, so two processes opening a
// fresh file at once cannot both apply it.
import type Database from 'better-sqlite3';
import { filePatterns } from './files.js';
import { indexText } from './search-terms.js';
import { HelixError } from '../errors.js';
import { helixVersion } from '../version.js';

interface Migration {
  version: number;
  sql: string;
  /** Work SQL cannot do (text computed in JS), run after `sql` in the same transaction. */
  run?: (db: Database.Database) => void;
}

/** The row of `memory_search` for one memory: code-aware terms of its trigger, resolution and files. */
export function searchRow(trigger: string, resolution: string): [string, string, string] {
  return [indexText(trigger), indexText(resolution), indexText(filePatterns(`${trigger}\n${resolution}`).join(' '))];
}

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE memories (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        name        TEXT NOT NULL UNIQUE,
        type        TEXT NOT NULL CHECK (type IN ('failure', 'pattern', 'systemic')),
        trigger     TEXT NOT NULL,
        resolution  TEXT NOT NULL,
        norm_text   TEXT NOT NULL,
        helped      REAL NOT NULL DEFAULT 0,
        failed      REAL NOT NULL DEFAULT 0,
        source      TEXT NOT NULL DEFAULT '',
        tags        TEXT NOT NULL DEFAULT '[]',
        file_patterns TEXT NOT NULL DEFAULT '[]',
        created_at  TEXT NOT NULL,
        last_used   TEXT
      );
      CREATE INDEX memories_type_norm ON memories(type, norm_text);
      CREATE INDEX memories_created ON memories(created_at);

      -- One vector per memory per embedder: switching embedders never compares across models,
      -- and a hook pinned to one embedder does not overwrite another's vectors.
      CREATE TABLE embeddings (
        memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        embedder  TEXT NOT NULL,
        dim       INTEGER NOT NULL,
        vector    BLOB NOT NULL,
        PRIMARY KEY (memory_id, embedder)
      );
      CREATE INDEX embeddings_embedder ON embeddings(embedder);

      CREATE TABLE edges (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        from_name  TEXT NOT NULL,
        to_name    TEXT NOT NULL,
        rel_type   TEXT NOT NULL,
        weight     REAL NOT NULL DEFAULT 1.0,
        created_at TEXT NOT NULL,
        UNIQUE (from_name, to_name, rel_type)
      );
      CREATE INDEX edges_to ON edges(to_name);

      CREATE TABLE memory_files (
        memory_id INTEGER NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
        pattern   TEXT NOT NULL,
        basename  TEXT NOT NULL,
        PRIMARY KEY (memory_id, pattern)
      );
      CREATE INDEX memory_files_pattern ON memory_files(pattern);
      CREATE INDEX memory_files_basename ON memory_files(basename);

      CREATE VIRTUAL TABLE memories_fts USING fts5(
        trigger, resolution, content='memories', content_rowid='id', tokenize='porter unicode61'
      );
      CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
        INSERT INTO memories_fts(rowid, trigger, resolution) VALUES (new.id, new.trigger, new.resolution);
      END;
      CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
        INSERT INTO memories_fts(memories_fts, rowid, trigger, resolution)
          VALUES ('delete', old.id, old.trigger, old.resolution);
      END;
      CREATE TRIGGER memories_fts_update AFTER UPDATE OF trigger, resolution ON memories BEGIN
        INSERT INTO memories_fts(memories_fts, rowid, trigger, resolution)
          VALUES ('delete', old.id, old.trigger, old.resolution);
        INSERT INTO memories_fts(rowid, trigger, resolution) VALUES (new.id, new.trigger, new.resolution);
      END;
    `,
  },
  {
    // A generation counter bumped by every change that alters a vector index (a memory or vector
    // added or removed, a type changed), and a packed copy of each embedder's index stamped with
    // the generation it reflects: a fresh process reads one row instead of one BLOB per memory.
    version: 2,
    sql: `
      CREATE TABLE store_generation (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
      INSERT INTO store_generation (id, value) VALUES (1, 0);
      CREATE TRIGGER generation_memory_insert AFTER INSERT ON memories BEGIN UPDATE store_generation SET value = value + 1; END;
      CREATE TRIGGER generation_memory_delete AFTER DELETE ON memories BEGIN UPDATE store_generation SET value = value + 1; END;
      CREATE TRIGGER generation_memory_type AFTER UPDATE OF type ON memories BEGIN UPDATE store_generation SET value = value + 1; END;
      CREATE TRIGGER generation_vector_insert AFTER INSERT ON embeddings BEGIN UPDATE store_generation SET value = value + 1; END;
      CREATE TRIGGER generation_vector_delete AFTER DELETE ON embeddings BEGIN UPDATE store_generation SET value = value + 1; END;
      CREATE TRIGGER generation_vector_update AFTER UPDATE ON embeddings BEGIN UPDATE store_generation SET value = value + 1; END;
      CREATE TABLE vector_cache (
        embedder   TEXT PRIMARY KEY,
        generation INTEGER NOT NULL,
        dim        INTEGER NOT NULL,
        ids        BLOB NOT NULL,
        types      BLOB NOT NULL,
        vectors    BLOB NOT NULL
      );
    `,
  },
  {
    // BM25 over code-aware terms (search-terms.ts): the search text is computed in JS, so the index is
    // kept by the store's own writes (store.ts, store-context.ts) instead of SQL triggers. Replaces the
    // plain-word memories_fts of version 1; existing memories are indexed here.
    version: 3,
    sql: `
      DROP TRIGGER IF EXISTS memories_fts_insert;
      DROP TRIGGER IF EXISTS memories_fts_delete;
      DROP TRIGGER IF EXISTS memories_fts_update;
      DROP TABLE IF EXISTS memories_fts;
      CREATE VIRTUAL TABLE memory_search USING fts5(trigger, resolution, files, tokenize = "porter unicode61 tokenchars '_'");
    `,
    run: (db) => {
      const insert = db.prepare('INSERT INTO memory_search (rowid, trigger, resolution, files) VALUES (?, ?, ?, ?)');
      // The file extractor now also knows extension-less build files (worker/Dockerfile).
      const setFiles = db.prepare('UPDATE memories SET file_patterns = ? WHERE id = ?');
      const addFile = db.prepare('INSERT OR IGNORE INTO memory_files (memory_id, pattern, basename) VALUES (?, ?, ?)');
      for (const m of db.prepare('SELECT id, trigger, resolution FROM memories').all() as { id: number; trigger: string; resolution: string }[]) {
        insert.run(m.id, ...searchRow(m.trigger, m.resolution));
        const files = filePatterns(`${m.trigger}\n${m.resolution}`);
        setFiles.run(JSON.stringify(files), m.id);
        for (const file of files) addFile.run(m.id, file, file.slice(file.lastIndexOf('/') + 1));
      }
    },
  },
  {
    // Issue #25: a systemic row counts the repeats of its problem instead of new rows piling up;
    // what prune, consolidate, merges, edits and forget remove is kept in an archive (one export
    // record per row, src/memory/archive.ts) that restore brings back; the Claude Code hooks
    // remember which memories a session was shown (inject once per session) and which it used.
    version: 4,
    sql: `
      ALTER TABLE memories ADD COLUMN repeats INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE memories ADD COLUMN session_uses INTEGER NOT NULL DEFAULT 0;
      CREATE TABLE memory_archive (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        name        TEXT NOT NULL,
        record      TEXT NOT NULL,
        reason      TEXT NOT NULL,
        into_name   TEXT,
        archived_at TEXT NOT NULL
      );
      CREATE INDEX memory_archive_name ON memory_archive(name);
      CREATE TABLE session_memories (
        session_id  TEXT NOT NULL,
        name        TEXT NOT NULL,
        injected_at TEXT NOT NULL,
        used_at     TEXT,
        PRIMARY KEY (session_id, name)
      );
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

export function migrate(db: Database.Database, now: Date): void {
  // `helix`: the helix version that applied each schema version, so an older helix can name the one it needs
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL, helix TEXT)');
  const current = () => (db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number | null }).v ?? 0;
  refuseNewerSchema(db, current());
  if (current() >= SCHEMA_VERSION) return;
  db.transaction(() => {
    const from = current();
    refuseNewerSchema(db, from);
    const columns = db.prepare('PRAGMA table_info(schema_version)').all() as { name: string }[];
    if (!columns.some((c) => c.name === 'helix')) db.exec('ALTER TABLE schema_version ADD COLUMN helix TEXT');
    for (const migration of MIGRATIONS) {
      if (migration.version <= from) continue;
      db.exec(migration.sql);
      migration.run?.(db);
      db.prepare('INSERT INTO schema_version (version, applied_at, helix) VALUES (?, ?, ?)').run(migration.version, now.toISOString(), helixVersion());
    }
  }).immediate();
}

/**
 * A store whose schema is newer than this helix knows was made by a newer helix: writing to it as
 * if it were ours could corrupt what that helix keeps, so it is refused (exit 17) naming the helix
 * that made it, when the store recorded one.
 */
function refuseNewerSchema(db: Database.Database, version: number): void {
  if (version <= SCHEMA_VERSION) return;
  const columns = db.prepare('PRAGMA table_info(schema_version)').all() as { name: string }[];
  const madeBy = columns.some((c) => c.name === 'helix')
    ? (db.prepare('SELECT helix FROM schema_version WHERE version = ?').get(version) as { helix: string | null } | undefined)?.helix
    : undefined;
  const needed = madeBy ? `helix ${madeBy} or later` : 'a newer helix';
  throw new HelixError(
    'memoryTooNew',
    `helix memory: ${db.name} has schema version ${version}, newer than this helix ${helixVersion()} reads (up to ${SCHEMA_VERSION}): it needs ${needed}; nothing was changed`,
  );
}
