// The state one open store carries: the database, the clock, the embedder (chosen lazily, once)
// and the embedder's in-memory vector index. Operations in the other files take this context.
import type Database from 'better-sqlite3';
import type { Clock } from './clock.js';
import type { Embedder } from './embedders/embedder.js';
import { selectEmbedder, type Warn } from './embedders/select.js';
import { thresholdsFor, type Thresholds } from './thresholds.js';
import { memoryText } from './text.js';
import type { MemoryRow } from './rows.js';
import { VectorIndex, fromBlob, toBlob, type PackedIndex } from './vectors.js';
import { BUSY_TIMEOUT_MS } from './db.js';
import { unindexMemory } from './fts.js';

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
  private indexGeneration = -1;
  private indexEmbedder = '';
  private cacheGeneration = -1;
  /** The generation at which every memory was known to have a vector for this embedder. */
  private completeGeneration = -1;

  constructor(options: ContextOptions) {
    this.db = options.db;
    this.now = options.now;
    this.env = options.env;
    this.warn = options.warn;
    if (options.embedder) this.embedderLoad = Promise.resolve(options.embedder);
  }

  private statements = new Map<string, Database.Statement>();

  /** A prepared statement, compiled once per connection (preparing costs more than running). */
  sql(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
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
    let index = this.syncVectors(embedder);
    // Complete as of this generation already (own writes always store a vector): skip the scan.
    if (this.completeGeneration === this.indexGeneration) return index;
    const missing = this
      .sql(
        `SELECT id, type, trigger, resolution FROM memories m
         WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.memory_id = m.id AND e.embedder = ?)`,
      )
      .all(embedder.id) as Pick<MemoryRow, 'id' | 'type' | 'trigger' | 'resolution'>[];
    for (let start = 0; start < missing.length; start += BACKFILL_BATCH) {
      const batch = missing.slice(start, start + BACKFILL_BATCH);
      const vectors = await embedder.embed(batch.map((m) => memoryText(m.trigger, m.resolution)));
      const insert = this.sql('INSERT OR IGNORE INTO embeddings (memory_id, embedder, dim, vector) VALUES (?, ?, ?, ?)');
      // A memory deleted by someone else while we embedded is skipped.
      const alive = this.sql('SELECT 1 FROM memories WHERE id = ?');
      this.write(() => {
        index = this.syncVectors(embedder);
        batch.forEach((m, i) => {
          if (!alive.get(m.id)) return;
          insert.run(m.id, embedder.id, embedder.dim, toBlob(vectors[i]!));
          index.add(m.id, m.type, vectors[i]!);
        });
      });
    }
    this.completeGeneration = this.indexGeneration;
    return index;
  }

  private generation(): number {
    return (this.sql('SELECT value FROM store_generation WHERE id = 1').get() as { value: number }).value;
  }

  /**
   * The index for `embedder`, reloaded when the store generation moved since it was built (some
   * other connection added, removed or retyped a memory). Reads the packed snapshot when it is
   * current, else every vector row. Synchronous so it can run inside a write transaction;
   * memories still lacking a vector for this embedder are left out until the next `vectors()`.
   */
  syncVectors(embedder: Embedder): VectorIndex {
    const load = () => {
      const generation = this.generation();
      if (this.index && this.indexEmbedder === embedder.id && this.indexGeneration === generation) return;
      const cached = this
        .sql('SELECT generation, dim, ids, types, vectors FROM vector_cache WHERE embedder = ?')
        .get(embedder.id) as ({ generation: number; dim: number } & PackedIndex) | undefined;
      if (cached && cached.generation === generation && cached.dim === embedder.dim) {
        this.index = VectorIndex.fromPacked(embedder.dim, cached);
        this.cacheGeneration = generation;
      } else {
        const rows = this
          .sql(
            `SELECT e.memory_id AS id, m.type AS type, e.vector AS vector FROM embeddings e
             JOIN memories m ON m.id = e.memory_id WHERE e.embedder = ?`,
          )
          .raw()
          .all(embedder.id) as [number, string, Buffer][];
        const index = new VectorIndex(embedder.dim, rows.length + 64);
        for (const [id, type, blob] of rows) index.add(id, type, fromBlob(blob));
        this.index = index;
        this.cacheGeneration = cached?.generation ?? -1;
      }
      this.indexGeneration = generation;
      this.indexEmbedder = embedder.id;
    };
    if (this.index && this.indexEmbedder === embedder.id && this.indexGeneration === this.generation()) return this.index;
    // One read transaction, so the generation and the vectors come from the same snapshot.
    if (this.db.inTransaction) load();
    else this.db.transaction(load)();
    return this.index!;
  }

  /**
   * Runs `fn` in an immediate (write-locking) transaction. Writers keep the loaded index in step
   * with their own changes, so an index that was current when the transaction began is current
   * after it. If `fn` throws, the rollback may have undone changes the index already holds: drop it.
   */
  write<T>(fn: () => T): T {
    try {
      return this.db.transaction(() => {
        const before = this.generation();
        const result = fn();
        if (this.index && this.indexGeneration === before) {
          const after = this.generation();
          if (this.completeGeneration === before) this.completeGeneration = after;
          this.indexGeneration = after;
        }
        return result;
      }).immediate();
    } catch (error) {
      this.index = undefined;
      this.indexGeneration = -1;
      throw error;
    }
  }

  /**
   * Stores the packed index for the next process when it is current and the stored copy is not.
   * Never waits for the write lock: a busy store just means the next process rebuilds it.
   */
  saveVectorCache(): void {
    if (!this.index || this.cacheGeneration === this.indexGeneration) return;
    const index = this.index;
    try {
      this.db.pragma('busy_timeout = 0');
      this.db.transaction(() => {
        if (this.generation() !== this.indexGeneration) return;
        const packed = index.pack();
        this
          .sql('INSERT OR REPLACE INTO vector_cache (embedder, generation, dim, ids, types, vectors) VALUES (?, ?, ?, ?, ?, ?)')
          .run(this.indexEmbedder, this.indexGeneration, index.dim, packed.ids, packed.types, packed.vectors);
        this.cacheGeneration = this.indexGeneration;
      }).immediate();
    } catch {
      // SQLITE_BUSY: someone is writing; their process or the next one will refresh the cache.
    } finally {
      this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  rowByName(name: string): MemoryRow | undefined {
    return this.sql('SELECT * FROM memories WHERE name = ?').get(name) as MemoryRow | undefined;
  }

  rowsByIds(ids: number[]): Map<number, MemoryRow> {
    const rows = new Map<number, MemoryRow>();
    const get = this.sql('SELECT * FROM memories WHERE id = ?');
    for (const id of ids) {
      const row = get.get(id) as MemoryRow | undefined;
      if (row) rows.set(id, row);
    }
    return rows;
  }

  /** Removes memories and everything hanging off them (vectors, file patterns, edges). */
  deleteMemories(rows: MemoryRow[]): void {
    const del = this.sql('DELETE FROM memories WHERE id = ?');
    const delEdges = this.sql('DELETE FROM edges WHERE from_name = ? OR to_name = ?');
    for (const row of rows) {
      del.run(row.id);
      unindexMemory(this, row.id);
      delEdges.run(row.name, row.name);
      this.index?.remove(row.id);
    }
  }
}
