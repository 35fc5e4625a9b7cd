// What a Claude Code session was shown and what it said it used (the hooks, issue #25). The edit
// hook shows a memory once per session, not on every edit of the same file; the Stop and
// SubagentStop hooks record the session's `UTILIZED:` names as *use*, never as helped or failed:
// nothing verified the session's work, and effectiveness is verification's verdict alone
// (docs/memory.md argues the choice). A session's `LEARNED:` lines become unproven patterns.
import type { MemoryContext } from './store-context.js';
import { storeMemory, type StoreResult } from './store.js';

/**
 * The first `limit` names among `names` (in order) this session has not been shown yet, recorded as
 * shown in the same transaction: what the caller may show is what this call inserted. Two edit
 * hooks of one session run at once (Claude Code starts the plugin's and settings.json's hook in
 * parallel); each asking "what was shown?" and then recording what it shows let both show the same
 * memory. The insert is the claim: the write lock orders the two, the second finds the row there.
 */
export function firstShown(ctx: MemoryContext, sessionId: string, names: string[], limit = Infinity): string[] {
  const insert = ctx.sql('INSERT OR IGNORE INTO session_memories (session_id, name, injected_at) VALUES (?, ?, ?)');
  const at = ctx.now().toISOString();
  return ctx.write(() => {
    const claimed: string[] = [];
    for (const name of names) {
      if (claimed.length >= limit) break;
      if (insert.run(sessionId, name, at).changes > 0) claimed.push(name);
    }
    return claimed;
  });
}

/** The names this session has been shown. */
export function shownIn(ctx: MemoryContext, sessionId: string): string[] {
  return (ctx.sql('SELECT name FROM session_memories WHERE session_id = ? ORDER BY injected_at, name').all(sessionId) as { name: string }[]).map((r) => r.name);
}

export interface SessionEnd {
  sessionId: string;
  /** The session's UTILIZED claim; names it was never shown are ignored. */
  utilized: string[];
  /** The session's LEARNED / INSIGHT lines. */
  learned: string[];
}

/**
 * Records a session's final answer: each shown memory it names as used counts one session use
 * (once per session: the Stop hook runs after every turn) and is fresh again (last_used); each
 * LEARNED line is stored as an unproven pattern through the ordinary store (security filter,
 * duplicate merge).
 */
export async function recordSessionEnd(ctx: MemoryContext, end: SessionEnd): Promise<{ used: string[]; ignored: string[]; learned: StoreResult[] }> {
  const shown = new Set(shownIn(ctx, end.sessionId));
  const claimed = [...new Set(end.utilized)];
  const at = ctx.now().toISOString();
  const used = ctx.write(() =>
    claimed.filter((name) => {
      if (!shown.has(name)) return false;
      const first = ctx.sql('UPDATE session_memories SET used_at = ? WHERE session_id = ? AND name = ? AND used_at IS NULL').run(at, end.sessionId, name).changes > 0;
      if (first) ctx.sql('UPDATE memories SET session_uses = session_uses + 1, last_used = ? WHERE name = ?').run(at, name);
      return first;
    }),
  );
  const learned: StoreResult[] = [];
  for (const line of end.learned) {
    const text = line.trim();
    if (text === '') continue;
    learned.push(await storeMemory(ctx, { type: 'pattern', trigger: `Learned in a session: ${text.slice(0, 160)}`, resolution: text, source: `claude-session:${end.sessionId}` }));
  }
  return { used, ignored: claimed.filter((n) => !shown.has(n)), learned };
}
