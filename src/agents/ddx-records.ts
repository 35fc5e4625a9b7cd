// What a `ddx try` attempt spent, from DDx's own records: `ddx try` prints no tokens or cost, but
// DDx appends one line per attempt to `.ddx/metrics/attempts.jsonl` (attempt_id, bead_id, ts_start,
// cost_usd) and writes `.ddx/executions/<attempt_id>/usage.json` (tokens, cost_usd) — measured on
// ae663ca012, docs/ddx.md. Only attempts at this bead that started since the call began count.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface AttemptRecord {
  attempt_id: string;
  bead_id: string;
  ts_start: string;
  cost_usd?: number;
}

/** The attempts of `attempts.jsonl` at `beadId` that started at or after `since` (DDx writes whole seconds). */
export function attemptsSince(jsonl: string, beadId: string, since: Date): AttemptRecord[] {
  const from = Math.floor(since.getTime() / 1000) * 1000;
  const found: AttemptRecord[] = [];
  for (const line of jsonl.split('\n')) {
    if (!line.trim()) continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue; // a torn last line while DDx writes
    }
    if (typeof record !== 'object' || record === null) continue;
    const r = record as Record<string, unknown>;
    const started = typeof r.ts_start === 'string' ? Date.parse(r.ts_start) : Number.NaN;
    if (r.bead_id !== beadId || typeof r.attempt_id !== 'string' || !(started >= from)) continue;
    found.push({ attempt_id: r.attempt_id, bead_id: beadId, ts_start: r.ts_start as string, ...(typeof r.cost_usd === 'number' ? { cost_usd: r.cost_usd } : {}) });
  }
  return found;
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Tokens and cost DDx recorded for the attempts at `beadId` since `since`; undefined when it recorded none. */
export function ddxAttemptSpend(trackerDir: string, beadId: string, since: Date): { tokens: number; costUsd?: number } | undefined {
  let jsonl: string;
  try {
    jsonl = readFileSync(join(trackerDir, 'metrics', 'attempts.jsonl'), 'utf8');
  } catch {
    return undefined;
  }
  const attempts = attemptsSince(jsonl, beadId, since);
  if (attempts.length === 0) return undefined;
  let tokens = 0;
  let cost: number | undefined;
  for (const attempt of attempts) {
    const usage = readJson(join(trackerDir, 'executions', attempt.attempt_id, 'usage.json'));
    if (typeof usage?.tokens === 'number') tokens += usage.tokens;
    const spent = attempt.cost_usd ?? (typeof usage?.cost_usd === 'number' ? usage.cost_usd : undefined);
    if (spent !== undefined) cost = (cost ?? 0) + spent;
  }
  return cost !== undefined ? { tokens, costUsd: cost } : { tokens };
}
