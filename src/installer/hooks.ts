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
  /** Memories relevant to editing `file` (relative to the project root when inside it). */
  recallForFile(file: string, limit: number): Promise<HookRecalledMemory[]>;
  health(): Promise<HookMemoryHealth>;
  close(): void;
}

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
  const root = findProjectRoot(ctx.cwd, ctx.env);
  initHelixFolder(root);
  let memoryLine: string;
  try {
    const memory = await ctx.openMemory(memoryDbPath(root, ctx.env), root);
    try {
      memoryLine = describeHealth(await memory.health());
    } finally {
      memory.close();
    }
  } catch (error) {
    memoryLine = `memory unavailable (${firstLine(error)}); edits go on without injected memories`;
  }
  return (
    `helix: project ${root}; ${memoryLine}. Before each Edit/Write helix names the memories relevant ` +
    `to the file; report the ones that actually changed what you did as UTILIZED: [names], honestly. ` +
    `Use /helix-query to search memory and /helix-stats for health.\n`
  );
}

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
}

/**
 * The PreToolUse hook's output for the payload on stdin: a Claude Code PreToolUse JSON document
 * carrying `additionalContext`, or '' when there is nothing to say (another tool, no store, no
 * relevant memory, or any error). It never sets a permission decision, so the edit always goes on.
 */
export async function preToolUse(stdin: string, ctx: HookContext): Promise<string> {
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
      memories = await memory.recallForFile(file, HOOK_MEMORY_LIMIT);
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

function parsePayload(stdin: string): PreToolUsePayload | undefined {
  try {
    const value: unknown = JSON.parse(stdin);
    return typeof value === 'object' && value !== null ? (value as PreToolUsePayload) : undefined;
  } catch {
    return undefined;
  }
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
    const kind = m.type === 'systemic' ? ' (systemic: seen 3+ times, consider an architectural fix)' : m.type ? ` (${m.type})` : '';
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
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 200 ? `${flat.slice(0, 197)}...` : flat;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
