// Helpers for tests that watch real processes: a pid is gone when /proc has no entry for it or
// it is a zombie waiting to be reaped (it runs nothing any more).
import { existsSync, readFileSync } from 'node:fs';

export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Waits (polling) until the condition holds; fails after `limitMs`. */
export async function waitUntil(condition: () => boolean, what: string, limitMs = 15_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function waitForFile(path: string): Promise<void> {
  await waitUntil(() => existsSync(path), path);
}
