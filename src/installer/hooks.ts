// The Claude Code hooks (docs/contract/design.md §9: the plugin's setup-env.sh and inject-context.py). SessionStart finds
// the project, makes `.helix/` and says in one paragraph how the memory is doing; PreToolUse, for
// Edit/Write/MultiEdit, names the memories relevant to the file being edited and asks for honest
// UTILIZED reporting. A hook never blocks and never fails the session: any error means "no
// memories" and the hook prints nothing harmful. The memory store is reached through the small
// HookMemory interface below, loaded lazily (hook-memory.ts), so a missing module or a broken
// store degrades instead of throwing.
import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { findProjectRoot, initHelixFolder, memoryDbPath } from './project-root.js';

/** A memory as the hooks show it. */
export interface HookRecalledMemory {
  name: string;
  type?: string;
  trigger: string;
  resolution: string;
  /** helped / (helped + failed); null when it has no feedback yet. */
  effectiveness: number | null;
  /** systemic: how often its problem was seen. */
  seen?: number;
}

/** The part of `memory health` the session-start line reports (memory.md). */
export interface HookMemoryHealth {
  status: string;
  total_memories: number;
  by_type?: Record<string, number>;
  with_feedback?: number;
  effectiveness?: number;
  embedder?: string;
  issues?: string[];
}

/** What the hooks need from the memory store. */
export interface HookMemory {
  /**
   * Memories relevant to editing `file` (relative to the project root when inside it), systemic
   * warnings first; with a session id, only those this session has not been shown yet.
   */
  recallForFile(file: string, limit: number, sessionId?: string): Promise<HookRecalledMemory[]>;
  /** The store's systemic warnings, most repeated first. */
  systemicWarnings(limit: number): HookRecalledMemory[];
  /** Records a session's UTILIZED names as use and its LEARNED lines as unproven patterns. */
  recordSessionEnd(end: { sessionId: string; utilized: string[]; learned: string[] }): Promise<unknown>;
  health(): Promise<HookMemoryHealth>;
  close(): void;
}

/** `HELIX_MEMORY=0` turns memory off for `helix run` and for every hook: they print nothing and touch no store. */
export function memoryOff(env: NodeJS.ProcessEnv): boolean {
  return env.HELIX_MEMORY === '0';
}

/** At most this many systemic warnings are listed when a session starts. */
export const SESSION_SYSTEMIC_LIMIT = 3;

export type OpenHookMemory = (dbPath: string, root: string) => Promise<HookMemory>;

/** At most this many memories go into one edit's context: enough to help, short enough to read. */
export const HOOK_MEMORY_LIMIT = 5;

/** The tools whose file edits get memories (the hooks.json matcher names the same three). */
export const EDIT_TOOLS = new Set(['Edit', 'Write', 'MultiEdit']);

export interface HookContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  openMemory: OpenHookMemory;
}

/** The SessionStart hook's output: one paragraph of plain text (Claude Code adds it as context). */
export async function sessionStart(ctx: HookContext): Promise<string> {
  if (memoryOff(ctx.env)) return '';
  const root = findProjectRoot(ctx.cwd, ctx.env);
  initHelixFolder(root);
  let memoryLine: string;
  let warnings: HookRecalledMemory[] = [];
  try {
    const memory = await ctx.openMemory(memoryDbPath(root, ctx.env), root);
    try {
      memoryLine = describeHealth(await memory.health());
      warnings = memory.systemicWarnings(SESSION_SYSTEMIC_LIMIT);
    } finally {
      memory.close();
    }
  } catch (error) {
    memoryLine = `memory unavailable (${firstLine(error)}); edits go on without injected memories`;
  }
  return (
    `helix: project ${root}; ${memoryLine}. Before each Edit/Write helix names the memories relevant ` +
    `to the file; report the ones that actually changed what you did as UTILIZED: [names], honestly. ` +
    `Use /helix-query to search memory and /helix-stats for health.\n` +
    systemicListing(warnings)
  );
}

/**
 * The store's systemic warnings, listed once and briefly (name, how often, the situation): a
 * warning comes in full only before an edit or a task it fits, where it passes the same gate as any
 * memory (issue #33). Shown whole at every session start, it was noise the agent learned to skip.
 */
export function systemicListing(warnings: HookRecalledMemory[]): string {
  if (warnings.length === 0) return '';
  const items = warnings.map((m) => `${m.name} (seen ${m.seen ?? 3} times: ${brief(m.trigger.replace(/^Repeated:\s*/, ''), SYSTEMIC_BRIEF_CHARS)})`);
  return `helix: systemic warnings in this project's memory, shown in full before an edit or task they fit: ${items.join('; ')}.\n`;
}

/** How much of a systemic warning's situation the session-start listing keeps. */
export const SYSTEMIC_BRIEF_CHARS = 80;

export function describeHealth(health: HookMemoryHealth): string {
  const total = health.total_memories;
  if (total === 0) return 'memory is empty (no memories yet)';
  const types = Object.entries(health.by_type ?? {})
    .filter(([, n]) => n > 0)
    .map(([type, n]) => `${n} ${type}`)
    .join(', ');
  const parts = [`memory ${health.status}: ${total} ${total === 1 ? 'memory' : 'memories'}${types ? ` (${types})` : ''}`];
  if (health.with_feedback !== undefined) parts.push(`${health.with_feedback} with feedback`);
  // The mean is over memories with feedback; with none it would read as a misleading 0.00.
  if (health.effectiveness !== undefined && (health.with_feedback ?? 1) > 0) {
    parts.push(`mean effectiveness ${health.effectiveness.toFixed(2)}`);
  }
  if (health.embedder) parts.push(`embedder ${health.embedder}`);
  const issues = (health.issues ?? []).length > 0 ? `; issues: ${(health.issues ?? []).join('; ')}` : '';
  return parts.join(', ') + issues;
}

interface PreToolUsePayload {
  tool_name?: unknown;
  tool_input?: { file_path?: unknown };
  cwd?: unknown;
  session_id?: unknown;
}

/** What Claude Code sends a Stop or SubagentStop hook (the fields helix reads). */
interface StopPayload {
  session_id?: unknown;
  cwd?: unknown;
  transcript_path?: unknown;
  /** SubagentStop: the subagent's own transcript. */
  agent_transcript_path?: unknown;
  /** Newer Claude Code versions hand the final answer over directly. */
  last_assistant_message?: unknown;
}

/**
 * The PreToolUse hook's output for the payload on stdin: a Claude Code PreToolUse JSON document
 * carrying `additionalContext`, or '' when there is nothing to say (another tool, no store, no
 * relevant memory, or any error). It never sets a permission decision, so the edit always goes on.
 */
export async function preToolUse(stdin: string, ctx: HookContext): Promise<string> {
  if (memoryOff(ctx.env)) return '';
  const payload = parsePayload(stdin);
  if (!payload || typeof payload.tool_name !== 'string' || !EDIT_TOOLS.has(payload.tool_name)) return '';
  const filePath = payload.tool_input?.file_path;
  if (typeof filePath !== 'string' || filePath === '') return '';
  const cwd = typeof payload.cwd === 'string' && payload.cwd !== '' ? payload.cwd : ctx.cwd;
  const root = findProjectRoot(cwd, ctx.env);
  const dbPath = memoryDbPath(root, ctx.env);
  // No store yet: answer at once, without loading the memory module or creating a database.
  if (!existsSync(dbPath)) return '';
  const file = displayPath(root, resolve(cwd, filePath));
  let memories: HookRecalledMemory[];
  try {
    const memory = await ctx.openMemory(dbPath, root);
    try {
      memories = await memory.recallForFile(file, HOOK_MEMORY_LIMIT, typeof payload.session_id === 'string' && payload.session_id !== '' ? payload.session_id : undefined);
    } finally {
      memory.close();
    }
  } catch {
    return '';
  }
  if (memories.length === 0) return '';
  return `${JSON.stringify({
    hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: memoryContext(file, memories.slice(0, HOOK_MEMORY_LIMIT)) },
  })}\n`;
}

function parsePayload<T = PreToolUsePayload>(stdin: string): T | undefined {
  try {
    const value: unknown = JSON.parse(stdin);
    return typeof value === 'object' && value !== null ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The Stop / SubagentStop hook: reads the session's final answer (the payload's
 * last_assistant_message, else the last assistant message of the transcript) for `UTILIZED:` and
 * `LEARNED:` and records them (src/memory/session.ts: use, not helped or failed). Prints nothing:
 * a Stop hook's output could block the stop, and helix never blocks.
 */
export async function stop(stdin: string, ctx: HookContext & { readAnswer: (payload: StopPayload) => string | undefined; trailers: (answer: string) => { utilized?: string[]; learned: string[] } }): Promise<string> {
  if (memoryOff(ctx.env)) return '';
  const payload = parsePayload<StopPayload>(stdin);
  if (!payload || typeof payload.session_id !== 'string' || payload.session_id === '') return '';
  const cwd = typeof payload.cwd === 'string' && payload.cwd !== '' ? payload.cwd : ctx.cwd;
  const root = findProjectRoot(cwd, ctx.env);
  const dbPath = memoryDbPath(root, ctx.env);
  if (!existsSync(dbPath)) return '';
  const answer = ctx.readAnswer(payload);
  if (!answer) return '';
  const { utilized, learned } = ctx.trailers(answer);
  if ((utilized ?? []).length === 0 && learned.length === 0) return '';
  const memory = await ctx.openMemory(dbPath, root);
  try {
    await memory.recordSessionEnd({ sessionId: payload.session_id, utilized: utilized ?? [], learned });
  } finally {
    memory.close();
  }
  return '';
}

/** The final answer of a session: the payload's own, else the transcript's last assistant text. */
export function readFinalAnswer(payload: StopPayload, readFile: (path: string) => string): string | undefined {
  if (typeof payload.last_assistant_message === 'string' && payload.last_assistant_message.trim() !== '') return payload.last_assistant_message;
  const path = typeof payload.agent_transcript_path === 'string' && payload.agent_transcript_path ? payload.agent_transcript_path : payload.transcript_path;
  if (typeof path !== 'string' || path === '') return undefined;
  let last: string | undefined;
  for (const line of readFile(path).split('\n')) {
    if (line.trim() === '') continue;
    let entry: { type?: unknown; message?: { role?: unknown; content?: unknown } };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue; // a line still being written, or not JSON: not an answer
    }
    if (entry.type !== 'assistant' && entry.message?.role !== 'assistant') continue;
    const content = entry.message?.content;
    const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((c: { type?: unknown; text?: unknown }) => (c?.type === 'text' && typeof c.text === 'string' ? c.text : '')).join('\n') : '';
    if (text.trim() !== '') last = text;
  }
  return last;
}

function displayPath(root: string, absolute: string): string {
  const rel = relative(root, absolute);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? absolute : rel;
}

/**
 * The text injected before an edit: one line per memory, systemic ones first (a failure seen 3+
 * times needs attention before anything else), then the honesty request.
 */
export function memoryContext(file: string, memories: HookRecalledMemory[]): string {
  const ordered = [...memories.filter((m) => m.type === 'systemic'), ...memories.filter((m) => m.type !== 'systemic')];
  const lines = ordered.map((m) => {
    const confidence = m.effectiveness === null ? '[unproven]' : `[${Math.round(m.effectiveness * 100)}%]`;
    const kind = m.type === 'systemic' ? ` (systemic: seen ${m.seen ?? 3} times, consider an architectural fix)` : m.type ? ` (${m.type})` : '';
    return `- ${confidence} ${m.name}${kind}: ${oneLine(m.trigger)} -> ${oneLine(m.resolution)}`;
  });
  return [
    `helix memory: ${memories.length} ${memories.length === 1 ? 'memory is' : 'memories are'} relevant to editing ${file}:`,
    ...lines,
    'Apply a memory only where it fits this edit. When you report your result, list the memories ' +
      'that actually changed what you did as UTILIZED: [names] - honestly: listing an unused memory, ' +
      'or leaving out one that helped, corrupts the ranking for every later task.',
  ].join('\n');
}

function oneLine(text: string): string {
  return brief(text, 200);
}

function brief(text: string, chars: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > chars ? `${flat.slice(0, chars - 3)}...` : flat;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
