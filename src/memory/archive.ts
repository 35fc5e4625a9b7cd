// A memory as one plain record — what `helix memory export` writes a line of and what the archive
// keeps — and the archive itself: prune, consolidate, merges, edit and forget keep what they
// remove here (issue #25: nothing lost silently), and `restore` brings it back.
import type { MemoryType } from './constants.js';
import type { MemoryContext } from './store-context.js';
import { parseJsonList, type MemoryRow } from './rows.js';

export interface EdgeRecord {
  to: string;
  rel_type: string;
  weight: number;
  created_at: string;
}

/** One memory with its counters and its outgoing edges; keys in this order, always. */
export interface MemoryRecord {
  name: string;
  type: MemoryType;
  trigger: string;
  resolution: string;
  helped: number;
  failed: number;
  source: string;
  tags: string[];
  created_at: string;
  last_used: string | null;
  repeats: number;
  session_uses: number;
  edges: EdgeRecord[];
}

/** An archived memory: its record, and the edges that pointed at it (their other ends keep them). */
export interface ArchivedRecord extends MemoryRecord {
  incoming: (EdgeRecord & { from: string })[];
}

type EdgeRow = { from_name: string; to_name: string; rel_type: string; weight: number; created_at: string };

export function toRecord(ctx: MemoryContext, row: MemoryRow): MemoryRecord {
  const edges = ctx.sql('SELECT * FROM edges WHERE from_name = ? ORDER BY to_name, rel_type').all(row.name) as EdgeRow[];
  return {
    name: row.name,
    type: row.type,
    trigger: row.trigger,
    resolution: row.resolution,
    helped: row.helped,
    failed: row.failed,
    source: row.source,
    tags: parseJsonList(row.tags),
    created_at: row.created_at,
    last_used: row.last_used,
    repeats: row.repeats,
    session_uses: row.session_uses,
    edges: edges.map((e) => ({ to: e.to_name, rel_type: e.rel_type, weight: e.weight, created_at: e.created_at })),
  };
}

/**
 * Moves rows into the archive with the reason (and the memory they went into, if any), then
 * deletes them — unless `keep` (a merge or an edit keeps the row and rewrites its text). Call
 * inside a write.
 */
export function archiveRows(ctx: MemoryContext, rows: MemoryRow[], reason: string, into: string | null = null, options: { keep?: boolean } = {}): void {
  const insert = ctx.sql('INSERT INTO memory_archive (name, record, reason, into_name, archived_at) VALUES (?, ?, ?, ?, ?)');
  const at = ctx.now().toISOString();
  for (const row of rows) {
    const incoming = (ctx.sql('SELECT * FROM edges WHERE to_name = ? ORDER BY from_name, rel_type').all(row.name) as EdgeRow[]).map((e) => ({
      from: e.from_name,
      to: e.to_name,
      rel_type: e.rel_type,
      weight: e.weight,
      created_at: e.created_at,
    }));
    const record: ArchivedRecord = { ...toRecord(ctx, row), incoming };
    insert.run(row.name, JSON.stringify(record), reason, into, at);
  }
  if (!options.keep) ctx.deleteMemories(rows);
}

export interface ArchiveEntry {
  id: number;
  name: string;
  reason: string;
  into: string | null;
  archived_at: string;
  record: ArchivedRecord;
}

/** Archive entries, newest first (of one name, or all). */
export function archiveEntries(ctx: MemoryContext, name?: string): ArchiveEntry[] {
  const rows = (name
    ? ctx.sql('SELECT * FROM memory_archive WHERE name = ? ORDER BY id DESC').all(name)
    : ctx.sql('SELECT * FROM memory_archive ORDER BY id DESC').all()) as { id: number; name: string; record: string; reason: string; into_name: string | null; archived_at: string }[];
  return rows.map((r) => ({ id: r.id, name: r.name, reason: r.reason, into: r.into_name, archived_at: r.archived_at, record: JSON.parse(r.record) as ArchivedRecord }));
}
