// Process-group control for agent calls. Each agent is spawned as the leader of its own group
// (detached), so a timeout or an abort can signal the agent AND everything it started — a test
// runner, a dev server, an MCP helper — with one kill(-pgid). Groups still alive when helix
// itself exits are killed too, so no agent outlives the supervisor that started it.
import { constants } from 'node:os';

const liveGroups = new Set<number>();
let exitHookInstalled = false;

export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: nobody left in the group
  }
}

/** Remembers a live group so it is killed if helix exits first. */
export function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const group of liveGroups) signalGroup(group, 'SIGKILL');
    });
  }
}

/** SIGKILL to every live agent group now (a repeated interrupt does not wait out the grace period). */
export function killTrackedGroups(): void {
  for (const group of liveGroups) signalGroup(group, 'SIGKILL');
}

export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

/** Shell convention for a process ended by a signal: 128 + the signal's number. */
export function exitCodeForSignal(signal: string): number {
  const number = (constants.signals as Record<string, number | undefined>)[signal];
  return 128 + (number ?? 0);
}
