// The helix hook entries `helix install --with-hooks` writes into Claude Code's settings.json
// (claude-settings.ts), as `helix doctor` reports them: none, all four of this checkout, fewer (an
// older install), another checkout's, or a launcher that is gone — which Claude Code would run,
// and fail, at every session start and every edit.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { type HookEvent, findHelixHooks, helixHookSpecs, parseSettings } from './claude-settings.js';

export type HookEntries =
  /** no settings.json, or no helix hook in it */
  | { state: 'none'; settings: string }
  /** every hook, each running this checkout's bin/helix */
  | { state: 'ok'; settings: string; count: number }
  /** this checkout's, but not every event (installed by an older helix) */
  | { state: 'incomplete'; settings: string; missing: HookEvent[] }
  /** a launcher that exists but is not this checkout's */
  | { state: 'other'; settings: string; helix: string }
  /** a launcher that does not exist any more (the checkout moved or was removed) */
  | { state: 'broken'; settings: string; helix: string }
  /** settings.json is not a JSON object */
  | { state: 'unreadable'; settings: string; why: string };

/** Claude Code's user settings, where `helix install --with-hooks` writes (scripts/install-local-skills.sh). */
export function claudeSettingsPath(home: string, env: NodeJS.ProcessEnv): string {
  return join(env.CLAUDE_HOME || join(home, '.claude'), 'settings.json');
}

/** The helix launcher a hook command runs: `node '<path>' hook <event>` (the path shell-quoted or bare). */
function launcherOf(command: string): string | undefined {
  const word = /^node\s+('(?:[^']|'\\'')*'|"[^"]*"|\S+)\s+hook\s/.exec(command.trim())?.[1];
  if (word === undefined) return undefined;
  if (word.startsWith("'")) return word.slice(1, -1).replaceAll("'\\''", "'");
  if (word.startsWith('"')) return word.slice(1, -1);
  return word;
}

const real = (path: string) => {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
};

export function inspectHookEntries(options: { home: string; env: NodeJS.ProcessEnv; helixRoot: string }): HookEntries {
  const settings = claudeSettingsPath(options.home, options.env);
  if (!existsSync(settings)) return { state: 'none', settings };
  let found: ReturnType<typeof findHelixHooks>;
  try {
    found = findHelixHooks(parseSettings(readFileSync(settings, 'utf8'), settings));
  } catch (error) {
    return { state: 'unreadable', settings, why: (error as Error).message };
  }
  if (found.length === 0) return { state: 'none', settings };
  const ours = real(join(options.helixRoot, 'bin', 'helix'));
  const launchers = [...new Set(found.map((h) => launcherOf(h.command) ?? h.command))];
  const gone = launchers.find((path) => !existsSync(path));
  if (gone !== undefined) return { state: 'broken', settings, helix: gone };
  const other = launchers.find((path) => real(path) !== ours);
  if (other !== undefined) return { state: 'other', settings, helix: other };
  const missing = helixHookSpecs('').map((s) => s.event).filter((event) => !found.some((h) => h.event === event));
  if (missing.length > 0) return { state: 'incomplete', settings, missing };
  return { state: 'ok', settings, count: found.length };
}
