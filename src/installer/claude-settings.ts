// The helix hooks in Claude Code's hook format, and their merge into (and removal from) a
// settings.json object. Pure functions over plain JSON; the file I/O is in settings-cli.ts.
// The same hook set ships as the plugin's hooks/hooks.json, with ${CLAUDE_PLUGIN_ROOT}.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** The tools whose edits get memories injected (docs/contract/design.md §9: before each Edit or Write). */
export const EDIT_TOOLS_MATCHER = 'Edit|Write|MultiEdit';

/** Seconds Claude Code waits for a helix hook before going on without it. */
export const HOOK_TIMEOUT_SECONDS = 10;

export type HookEvent = 'SessionStart' | 'PreToolUse' | 'Stop' | 'SubagentStop';

export interface HookSpec {
  event: HookEvent;
  matcher?: string;
  command: string;
}

/** Quotes a path for the shell Claude Code runs hook commands in. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The hooks for a helix launcher. `helixBin` is inserted as given: pass a quoted path
 * (`shellQuote`) or a `"${CLAUDE_PLUGIN_ROOT}/bin/helix"` expression. node runs it so the file's
 * executable bit does not matter.
 */
export function helixHookSpecs(helixBin: string): HookSpec[] {
  return [
    { event: 'SessionStart', command: `node ${helixBin} hook session-start` },
    { event: 'PreToolUse', matcher: EDIT_TOOLS_MATCHER, command: `node ${helixBin} hook pre-tool-use` },
    // The final answer's UTILIZED/LEARNED lines close the loop outside `helix run` (docs/memory.md).
    { event: 'Stop', command: `node ${helixBin} hook stop` },
    { event: 'SubagentStop', command: `node ${helixBin} hook subagent-stop` },
  ];
}

/** A command is a helix hook when it runs some `…helix hook session-start|pre-tool-use|stop|subagent-stop`. */
export function isHelixHookCommand(command: string): boolean {
  return /helix["']?\s+hook\s+(session-start|pre-tool-use|stop|subagent-stop)\s*$/.test(command);
}

function group(spec: HookSpec): JsonObject {
  const handler: JsonObject = { type: 'command', command: spec.command, timeout: HOOK_TIMEOUT_SECONDS };
  return spec.matcher === undefined ? { hooks: [handler] } : { matcher: spec.matcher, hooks: [handler] };
}

/** The `{"hooks": {...}}` document of a plugin's hooks/hooks.json. */
export function hooksDocument(specs: HookSpec[]): JsonObject {
  const hooks: JsonObject = {};
  for (const spec of specs) {
    const list = (hooks[spec.event] ??= []) as Json[];
    list.push(group(spec));
  }
  return { hooks };
}

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

interface FoundHook {
  event: string;
  matcher: string | undefined;
  command: string;
}

/** Every helix hook handler in a settings object, in file order. */
export function findHelixHooks(settings: JsonObject): FoundHook[] {
  const found: FoundHook[] = [];
  const hooks = settings.hooks;
  if (!isObject(hooks)) return found;
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    for (const g of groups) {
      if (!isObject(g) || !Array.isArray(g.hooks)) continue;
      for (const h of g.hooks) {
        if (isObject(h) && typeof h.command === 'string' && isHelixHookCommand(h.command)) {
          found.push({ event, matcher: typeof g.matcher === 'string' ? g.matcher : undefined, command: h.command });
        }
      }
    }
  }
  return found;
}

/** Removes the hook handlers `drop` selects; groups and events left empty go too. */
function withoutHooks(settings: JsonObject, drop: (command: string) => boolean): JsonObject {
  const hooks = settings.hooks;
  if (!isObject(hooks)) return settings;
  const kept: JsonObject = {};
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) {
      kept[event] = groups;
      continue;
    }
    const keptGroups: Json[] = [];
    for (const g of groups) {
      if (!isObject(g) || !Array.isArray(g.hooks)) {
        keptGroups.push(g);
        continue;
      }
      const handlers = g.hooks.filter((h) => !(isObject(h) && typeof h.command === 'string' && drop(h.command)));
      if (handlers.length === g.hooks.length) keptGroups.push(g);
      else if (handlers.length > 0) keptGroups.push({ ...g, hooks: handlers });
    }
    if (keptGroups.length > 0) kept[event] = keptGroups;
  }
  const result: JsonObject = { ...settings, hooks: kept };
  if (Object.keys(kept).length === 0) delete result.hooks;
  return result;
}

export interface MergeResult {
  settings: JsonObject;
  changed: boolean;
}

/**
 * Adds the helix hooks. Helix hooks already present (also from an older checkout) are replaced,
 * so running it twice leaves one entry per event; exactly the wanted set already there → unchanged.
 */
export function addHelixHooks(settings: JsonObject, specs: HookSpec[]): MergeResult {
  const present = findHelixHooks(settings);
  const same =
    present.length === specs.length &&
    specs.every((s) => present.some((p) => p.event === s.event && p.matcher === s.matcher && p.command === s.command));
  if (same) return { settings, changed: false };
  const base = withoutHooks(settings, isHelixHookCommand);
  const hooks: JsonObject = isObject(base.hooks) ? { ...base.hooks } : {};
  for (const spec of specs) {
    const existing = hooks[spec.event];
    hooks[spec.event] = [...(Array.isArray(existing) ? existing : []), group(spec)];
  }
  return { settings: { ...base, hooks }, changed: true };
}

/** Removes exactly the given hooks (this checkout's); other helix or user hooks stay. */
export function removeHelixHooks(settings: JsonObject, specs: HookSpec[]): MergeResult {
  const ours = new Set(specs.map((s) => s.command));
  const present = findHelixHooks(settings).some((h) => ours.has(h.command));
  if (!present) return { settings, changed: false };
  return { settings: withoutHooks(settings, (command) => ours.has(command)), changed: true };
}

export function parseSettings(text: string, path: string): JsonObject {
  let value: Json;
  try {
    value = JSON.parse(text) as Json;
  } catch (error) {
    throw new Error(`${path} is not valid JSON (${(error as Error).message}); fix or move it, then retry`);
  }
  if (!isObject(value)) throw new Error(`${path} does not hold a JSON object; fix or move it, then retry`);
  return value;
}
