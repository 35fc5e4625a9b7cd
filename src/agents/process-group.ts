// Process-group control for agent calls. Each agent is spawned as the leader of its own group
// (detached), so a timeout or an abort can signal the agent AND everything it started — a test
// runner, a dev server, an MCP helper — with one kill(-pgid). Groups still alive when helix
// itself exits are killed too, so no agent outlives the supervisor that started it.
//
// Even when helix dies by SIGKILL, which no handler sees: the first agent call starts a watchdog,
// one small `sh` per helix process in a session of its own, holding a pipe from helix. helix
// tells it the live groups as they change; when the pipe closes without a goodbye (helix died),
// the watchdog sends those groups SIGTERM, then SIGKILL after the grace. While it waits it runs
// only shell builtins, so it costs a few milliseconds once, not a process per call.
import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';
import { CHILD_EXIT } from '../errors.js';

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

/** `sh -c WATCHDOG helix-watchdog <grace seconds>`: reads `set <pgid>…` lines, `bye`, or EOF. */
const WATCHDOG = [
  'live=',
  'while IFS= read -r line; do',
  '  case $line in',
  '    set|"set "*) live=${line#set} ;;',
  '    bye) exit 0 ;;',
  '  esac',
  'done',
  '[ -n "$live" ] || exit 0',
  'for g in $live; do kill -s TERM -- "-$g" 2>/dev/null; done',
  'sleep "$1"',
  'for g in $live; do kill -s KILL -- "-$g" 2>/dev/null; done',
].join('\n');

let watchdog: ChildProcess | undefined;

/**
 * Starts the watchdog if it is not running yet. Called before an agent is spawned, so the only
 * moment a SIGKILL of helix could leave the agent unwatched is the few statements between the
 * spawn and trackGroup — not the milliseconds starting a shell takes.
 */
export function prepareWatchdog(graceMs: number): void {
  if (watchdog) return;
  watchdog = spawn('/bin/sh', ['-c', WATCHDOG, 'helix-watchdog', String(Math.ceil(graceMs / 1000))], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  watchdog.on('error', () => undefined); // no /bin/sh: the exit hook below still covers every other way out
  watchdog.stdin?.on('error', () => undefined);
  watchdog.unref();
  (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
}

function tellWatchdog(): void {
  // a pipe write completes at once when the pipe has room, as it does for these few bytes
  watchdog?.stdin?.write(`set ${[...liveGroups].join(' ')}\n`);
}

/** Remembers a live group so it is killed if helix exits (or dies) first. */
export function trackGroup(pgid: number, graceMs = 5000): void {
  liveGroups.add(pgid);
  prepareWatchdog(graceMs);
  tellWatchdog();
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      watchdog?.stdin?.write('bye\n');
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
  tellWatchdog();
}

/** Shell convention for a process ended by a signal: 128 + the signal's number. */
export function exitCodeForSignal(signal: string): number {
  const number = (constants.signals as Record<string, number | undefined>)[signal];
  return CHILD_EXIT.signalBase + (number ?? 0);
}
