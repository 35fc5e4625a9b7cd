// DDx's own record of a call, the one reader of it: what `ddx try`, `ddx agent execute-bead`,
// `ddx run` and `ddx agent run` leave in the project's `.ddx/` besides what they print. Measured
// on the real binaries (v0.6.1 93be5c8cb2, current ae663ca012; docs/ddx.md "DDx's records"):
//   - `.ddx/agent-logs/sessions/sessions-YYYY-MM.jsonl`: one line per agent session DDx ran —
//     the build, and on current DDx also its pre-claim intake, pre-land review and post-failure
//     triage — with `startedAt`, `beadID` (absent on a triage), `tokens`, `cost`, `outcome`,
//     `exitCode`, `detail`, `bundlePath` (the attempt's execution folder) and on current DDx
//     `nativeLogRef` (its session log).
//   - the session log (current: `svc-<n>.jsonl`; for a build it lives in DDx's clone and a copy
//     under `<bundle>/embedded/`): its `session.end` event's `data.output` is the agent's final
//     answer — on a failed call, the CLI's own error text ("API Error: Request rejected (429) · …",
//     "You've hit your 5-hour limit · resets 8:36pm (UTC)", "Invalid API key · …").
//   - v0.6.1 has no session log: the answer is the `text_delta` events of
//     `<bundle>/embedded/agent-<harness>-<n>.jsonl`.
//   - `<bundle>/result.json`: the attempt's result (status, failure_mode, detail).
// Nothing here decides anything: the supervisor reads limits, costs and causes off this record.
import { readFileSync, readdirSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';

/** One agent session DDx ran. */
export interface DdxSession {
  id: string;
  beadId?: string;
  /** ms since the epoch. */
  startedAt: number;
  tokens: number;
  costUsd?: number;
  /** `success` / `failure`, as DDx wrote it. */
  outcome?: string;
  exitCode?: number;
  detail?: string;
  /** The attempt's execution folder (a build, and current DDx's review of it), relative to the project root. */
  bundlePath?: string;
  /** The build itself (not the intake, review or triage around it). */
  build: boolean;
  /** The agent's final answer (or the CLI's error text), from DDx's session log; undefined when none was found. */
  output?: string;
}

/** Everything DDx recorded of one call. */
export interface DdxCallRecord {
  sessions: DdxSession[];
  /** The build attempt's result.json (the last one of the call), when there was a build. */
  result?: Record<string, unknown>;
  /** Tokens and cost of every session; undefined when DDx recorded none. */
  spent?: { tokens: number; costUsd?: number };
}

type Json = Record<string, unknown>;

function parseLines(text: string): Json[] {
  const found: Json[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === 'object' && value !== null && !Array.isArray(value)) found.push(value as Json);
    } catch {
      // a torn last line while DDx writes
    }
  }
  return found;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function readJson(path: string): Json | undefined {
  const text = readText(path);
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The month files a window touches (DDx names them by the UTC month a session started in). */
function monthFiles(since: Date, until: Date): string[] {
  const months = new Set<string>();
  for (const d of [since, until]) months.add(`sessions-${d.toISOString().slice(0, 7)}.jsonl`);
  return [...months];
}

/** What a session's own log says: the agent's final answer and, on current DDx, its token counts. */
interface SessionLog {
  output?: string;
  /** current DDx's `session.end` tokens: input, output, cache_read, cache_write. */
  tokens?: Json;
}

/** A session's log: current DDx's session log, or v0.6.1's agent log under the build's bundle. */
function sessionLog(projectRoot: string, row: Json): SessionLog {
  const ref = str(row.nativeLogRef);
  const bundle = str(row.bundlePath);
  if (ref) {
    // a build's log is in DDx's clone, gone after the attempt; DDx copies it under its bundle
    const candidates = [isAbsolute(ref) ? ref : join(projectRoot, ref), ...(bundle ? [join(projectRoot, bundle, 'embedded', basename(ref))] : [])];
    for (const path of candidates) {
      const text = readText(path);
      if (text === undefined) continue;
      const end = parseLines(text).filter((e) => e.type === 'session.end').pop();
      const data = end?.data as Json | undefined;
      const output = str(data?.output) ?? str(data?.error);
      const tokens = data?.tokens;
      return { ...(output !== undefined ? { output } : {}), ...(typeof tokens === 'object' && tokens !== null ? { tokens: tokens as Json } : {}) };
    }
  }
  if (!bundle) return {};
  let names: string[];
  try {
    names = readdirSync(join(projectRoot, bundle, 'embedded')).filter((n) => /^agent-.*\.jsonl$/.test(n)).sort();
  } catch {
    return {};
  }
  const text = names.map((n) => readText(join(projectRoot, bundle, 'embedded', n)) ?? '').join('\n');
  const deltas = parseLines(text).filter((e) => e.type === 'text_delta');
  const output = deltas.map((e) => str((e.data as Json | undefined)?.text) ?? '').join('');
  return output ? { output } : {};
}

/**
 * What DDx recorded of a call that started at `since`: its sessions that started then or later
 * (DDx stamps `startedAt` to the nanosecond, after helix started it; a call just before in the
 * same second is not this one's).
 * `beadId`: a build's record — that bead's sessions, and the triage sessions DDx records without
 * a bead. Without one (an action's `ddx run`): only sessions without a bead, so the work of a DDx
 * worker running beside helix is not counted as helix's call.
 */
export function readDdxRecord(projectRoot: string, since: Date, options: { beadId?: string; until?: Date; /** false: the index alone, no session log read (a watch while the call runs) */ logs?: boolean } = {}): DdxCallRecord {
  const from = since.getTime();
  const folder = join(projectRoot, '.ddx', 'agent-logs', 'sessions');
  const rows = monthFiles(since, options.until ?? new Date()).flatMap((name) => parseLines(readText(join(folder, name)) ?? ''));
  const sessions: DdxSession[] = [];
  for (const row of rows) {
    const id = str(row.id);
    const startedAt = Date.parse(str(row.startedAt) ?? '');
    if (!id || !(startedAt >= from)) continue;
    const beadId = str(row.beadID);
    if (beadId !== undefined && beadId !== options.beadId) continue;
    const log = options.logs === false ? {} : sessionLog(projectRoot, row);
    const output = log.output;
    const costUsd = row.costPresent === false ? undefined : num(row.cost);
    const ref = str(row.nativeLogRef);
    sessions.push({
      id,
      startedAt,
      tokens: tokensOf(row, log.tokens),
      // the build itself: its log lives under its bundle (current DDx's review shares the bundle, not the log)
      build: str(row.bundlePath) !== undefined && (ref === undefined || ref.includes('/embedded/')),
      ...(beadId ? { beadId } : {}),
      ...(costUsd !== undefined ? { costUsd } : {}),
      ...(str(row.outcome) ? { outcome: str(row.outcome) } : {}),
      ...(num(row.exitCode) !== undefined ? { exitCode: num(row.exitCode) } : {}),
      ...(str(row.detail) ? { detail: str(row.detail) } : {}),
      ...(str(row.bundlePath) ? { bundlePath: str(row.bundlePath) } : {}),
      ...(output !== undefined ? { output } : {}),
    });
  }
  sessions.sort((a, b) => a.startedAt - b.startedAt);
  const bundle = buildSessionOf({ sessions })?.bundlePath;
  const result = bundle ? readJson(join(projectRoot, bundle, 'result.json')) : undefined;
  return { sessions, ...(result ? { result } : {}), ...spentOf(sessions) };
}

/**
 * A session's tokens as helix counts every call's: input (cache reads and writes included) + output.
 * current DDx's session log has them apart (`cache_read`, `cache_write` beside claude's `input`);
 * else the session index's `tokens` (input + output), with claude's cache reads it records beside
 * them (`cachedTokens`) — Anthropic counts cache apart from the input, OpenAI within it (codex).
 */
function tokensOf(row: Json, logged: Json | undefined): number {
  const claude = row.harness === 'claude';
  if (logged && num(logged.input) !== undefined) {
    return (num(logged.input) ?? 0) + (num(logged.output) ?? 0) + (claude ? (num(logged.cache_read) ?? 0) + (num(logged.cache_write) ?? 0) : 0);
  }
  const tokens = num(row.tokens) ?? 0;
  return claude ? tokens + (num(row.cachedTokens) ?? 0) : tokens;
}

export function spentOf(sessions: DdxSession[]): { spent?: { tokens: number; costUsd?: number } } {
  if (sessions.length === 0) return {};
  const tokens = sessions.reduce((sum, s) => sum + s.tokens, 0);
  const costs = sessions.map((s) => s.costUsd).filter((c): c is number => c !== undefined);
  return { spent: costs.length > 0 ? { tokens, costUsd: costs.reduce((a, b) => a + b, 0) } : { tokens } };
}

/** The build session of a record (the last, should DDx have built twice), else the last session. */
export function buildSessionOf(record: DdxCallRecord): DdxSession | undefined {
  return record.sessions.filter((s) => s.build).pop() ?? record.sessions[record.sessions.length - 1];
}

/**
 * The texts a failed call left: each failed session's output, then DDx's own detail. When the
 * bead's own sessions are there, a session DDx recorded without a bead (a triage) is not read:
 * with several builds in flight it may be another bead's.
 */
export function failureTextsOf(record: DdxCallRecord): string[] {
  const own = record.sessions.filter((s) => s.beadId !== undefined);
  const failed = (own.length > 0 ? own : record.sessions).filter((s) => s.outcome !== 'success' || (s.exitCode ?? 0) !== 0);
  const texts = failed.flatMap((s) => [s.output, s.detail]);
  const result = record.result;
  if (result) texts.push(str(result.detail), str(result.error), str(result.failure_mode));
  return texts.filter((t): t is string => t !== undefined);
}

/** DDx's newest attempt of a bead that it would call a success, and whether a pre-merge check of it passed. */
export interface SucceededAttempt {
  result_rev: string;
  base_rev?: string;
  /** The check's own verdict file (`checks/<name>.json`, written by the check) says `pass`. */
  checkPassed: boolean;
}

/**
 * The newest `task_succeeded` result of the bead with a commit of its own in DDx's execution records
 * (`.ddx/executions/<attempt>/result.json`), as DDx's dangling-success recovery finds it — newest
 * folder name first — and whether the pre-merge check `checkName` passed that attempt
 * (`<attempt>/checks/<checkName>.json`, `{"status": "pass" | "block" | "error" | "infra", …}`).
 */
export function newestSucceededAttempt(projectRoot: string, beadId: string, checkName: string): SucceededAttempt | undefined {
  const folder = join(projectRoot, '.ddx', 'executions');
  let names: string[];
  try {
    names = readdirSync(folder).sort().reverse();
  } catch {
    return undefined;
  }
  for (const name of names) {
    const result = readJson(join(folder, name, 'result.json'));
    if (!result || result.bead_id !== beadId || result.outcome !== 'task_succeeded') continue;
    const resultRev = str(result.result_rev);
    if (!resultRev || resultRev === result.base_rev) continue;
    const verdict = readJson(join(folder, name, 'checks', `${checkName}.json`));
    return { result_rev: resultRev, ...(typeof result.base_rev === 'string' ? { base_rev: result.base_rev } : {}), checkPassed: verdict?.status === 'pass' };
  }
  return undefined;
}
