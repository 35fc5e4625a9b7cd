// The memory row as stored, and the shape commands print (docs/contract/memory.md §4: the recall and get fields).
import { effectiveness, round3 } from './scoring.js';
import type { MemoryType } from './constants.js';

export interface MemoryRow {
  id: number;
  name: string;
  type: MemoryType;
  trigger: string;
  resolution: string;
  norm_text: string;
  helped: number;
  failed: number;
  source: string;
  tags: string;
  file_patterns: string;
  created_at: string;
  last_used: string | null;
  /** systemic: how often its problem was seen again after the promotion. */
  repeats: number;
  /** UTILIZED claims from Claude Code sessions (unverified: they never move helped or failed). */
  session_uses: number;
}

export interface Memory {
  name: string;
  type: MemoryType;
  trigger: string;
  resolution: string;
  helped: number;
  failed: number;
  effectiveness: number;
  created_at: string;
  last_used: string | null;
  source: string;
  tags: string[];
  /** systemic only: how often its problem was seen again after the promotion. */
  repeats?: number;
}

export function parseJsonList(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.map(String) : [];
  } catch {
    return [];
  }
}

export function toMemory(row: MemoryRow): Memory {
  return {
    name: row.name,
    type: row.type,
    trigger: row.trigger,
    resolution: row.resolution,
    helped: round3(row.helped),
    failed: round3(row.failed),
    effectiveness: round3(effectiveness(row)),
    created_at: row.created_at,
    last_used: row.last_used,
    source: row.source,
    tags: parseJsonList(row.tags),
    ...(row.type === 'systemic' ? { repeats: row.repeats } : {}),
  };
}

