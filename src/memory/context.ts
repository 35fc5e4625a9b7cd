// The state one open store carries: the database, the clock, the embedder (chosen lazily, once)
// and the embedder's in-memory vector index. Operations in the other files take this context.
import type Database from 'better-sqlite3';
import type { Clock } from './clock.js';
import type { Embedder } from './embedders/embedder.js';
import { selectEmbedder, type Warn } from './embedders/select.js';
import { thresholdsFor, type Thresholds } from './thresholds.js';
import { memoryText } from './text.js';
import type { MemoryRow } from './rows.js';
import { VectorIndex, fromBlob, toBlob } from './vectors.js';

const BACKFILL_BATCH = 64;

export interface ContextOptions {
  db: Database.Database;
  now: Clock;
  env: NodeJS.ProcessEnv;
  warn: Warn;
  embedder?: Embedder;
}

export class MemoryContext {
  readonly db: Database.Database;
  readonly now: Clock;
  private readonly env: NodeJS.ProcessEnv;
  private readonly warn: Warn;
  private embedderLoad?: Promise<Embedder>;
  private index?: VectorIndex;
  private indexVersion = -1;

  constructor(options: ContextOptions) {
    this.db = options.db;
    this.now = options.now;
    this.env = options.env;
    this.warn = options.warn;
    if (options.embedder) this.embedderLoad = Promise.resolve(options.embedder);
  }

  embedder(): Promise<Embedder> {
    this.embedderLoad ??= selectEmbedder(this.env, this.warn);
    return this.embedderLoad;
  }

  async thresholds(): Promise<Thresholds> {
    return thresholdsFor((await this.embedder()).id);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return (await this.embedder()).embed(texts);
  }

  /** The index, current with every commit, every memory embedded with the active embedder. */
  async vectors(): Promise<VectorIndex> {
    const embedder = await this.embedder();
    const index = this.syncVectors(embedder);
    const missing = this.db
      .prepare(
        `SELECT id, type, trigger, resolution FROM memories m
         WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.memory_id = m.id AND e.embedder = ?)`,
      )
      .all(embedder.id) as Pick<MemoryRow, 'id' | 'type' | 'trigger' | 'resolution'>[];
    for (let start = 0; start < missing.length; start += BACKFILL_BATCH) {
      const batch = missing.slice(start, start + BACKFILL_BATCH);
      const vectors = await embedder.embed(batch.map((m) => memoryText(m.trigger, m.resolution)));
      const insert = this.db.prepare('INSERT OR IGNORE INTO embeddings (memory_id, embedder, dim, vector) VALUES (?, ?, ?, ?)');
      // A memory deleted by someone else while we embedded is skipped by the join below.
      const alive = this.db.prepare('SELECT 1 FROM memories WHERE id = ?');
      this.db.transaction(() => {
        batch.forEach((m, i) => {
          if (!alive.get(m.id)) return;
          insert.run(m.id, embedder.id, embedder.dim, toBlob(vectors[i]!));
          index.add(m.id, m.type, vectors[i]!);
        });
      })();
    }
    return index;
  }

  /**
   * The index for `embedder`, reloaded when another connection committed since it was built.
   * Synchronous so it can run inside a write transaction; memories still lacking a vector for
   * this embedder are left out until the next `vectors()`.
   */
  syncVectors(embedder: Embedder): VectorIndex {
    const version = this.db.pragma('data_version', { simple: true }) as number;
    if (this.index && this.index.dim === embedder.dim && version === this.indexVersion) return this.index;
    const rows = this.db
      .prepare(
        `SELECT e.memory_id AS id, m.type AS type, e.vector AS vector FROM embeddings e
         JOIN memories m ON m.id = e.memory_id WHERE e.embedder = ?`,
      )
      .raw()
      .all(embedder.id) as [number, string, Buffer][];
    const index = new VectorIndex(embedder.dim, rows.length + 64);
    for (const [id, type, blob] of rows) index.add(id, type, fromBlob(blob));
    this.index = index;
    this.indexVersion = version;
    return index;
  }

  /**
   * Runs `fn` in an immediate (write-locking) transaction. If it throws, the in-memory index may
   * hold changes the rollback undid, so it is rebuilt on next use.
   */
  write<T>(fn: () => T): T {
    try {
      return this.db.transaction(fn).immediate();
    } catch (error) {
      this.indexVersion = -1;
      throw error;
    }
  }

  /** The loaded index without touching the database (for callers already in a transaction). */
  currentIndex(): VectorIndex | undefined {
    return this.index;
  }

  rowByName(name: string): MemoryRow | undefined {
    return this.db.prepare('SELECT * FROM memories WHERE name = ?').get(name) as MemoryRow | undefined;
  }

  rowsByIds(ids: number[]): Map<number, MemoryRow> {
    const rows = new Map<number, MemoryRow>();
    const get = this.db.prepare('SELECT * FROM memories WHERE id = ?');
    for (const id of ids) {
      const row = get.get(id) as MemoryRow | undefined;
      if (row) rows.set(id, row);
    }
    return rows;
  }

  /** Removes memories and everything hanging off them (vectors, file patterns, edges). */
  deleteMemories(rows: MemoryRow[]): void {
    const del = this.db.prepare('DELETE FROM memories WHERE id = ?');
    const delEdges = this.db.prepare('DELETE FROM edges WHERE from_name = ? OR to_name = ?');
    for (const row of rows) {
      del.run(row.id);
      delEdges.run(row.name, row.name);
      this.index?.remove(row.id);
    }
  }
}
