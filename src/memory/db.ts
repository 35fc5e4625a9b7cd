// Opening the memory database: create the folder, WAL so the supervisor, hooks and a person can
// read while one writes, a busy timeout so writers queue instead of failing, then migrate.
// Any failure to open or read the file is a `storeUnavailable` HelixError; damage met later, by a
// query, is told the same way by the CLI (damage.ts). A store a newer helix made is refused.
import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { HelixError } from '../errors.js';
import { migrate } from './migrations.js';
import { damagedStoreMessage, noteOpenedStore } from './damage.js';

/** Writers wait up to this long for each other (docs/contract/memory.md §1: a busy timeout of about 5 s). */
export const BUSY_TIMEOUT_MS = 5000;

export function openDatabase(dbPath: string, now: Date): Database.Database {
  let db: Database.Database | undefined;
  try {
    mkdirSync(dirname(dbPath), { recursive: true });
    noteOpenedStore(dbPath);
    db = new Database(dbPath, { timeout: BUSY_TIMEOUT_MS });
    db.pragma('journal_mode = WAL');
    // WAL + NORMAL: durable across application crashes, fsyncs only at checkpoints, not per store.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db, now);
    return db;
  } catch (error) {
    db?.close();
    if (error instanceof HelixError) throw error;
    throw new HelixError('storeUnavailable', damagedStoreMessage(error, dbPath) ?? `helix memory: cannot open ${dbPath}: ${(error as Error).message}`);
  }
}
