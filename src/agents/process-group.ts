// Process-group control for agent calls. Each agent is spawned as the leader of its own group
// (detached), so a timeout or an abort can signal the agent AND everything it started — a test
// runner, a dev server, an MCP helper — with one kill(-pgid). Groups still alive when helix
// itself exits are killed too, so no agent outlives the supervisor that started it.
//
// Processes that left the group (a `setsid` child, a daemon) are found by the call's tag in their
// environment (descendants.ts) and stopped with the group.
//
// Even when helix dies by SIGKILL, which no handler sees: the first agent call starts a watchdog,
// one small `sh` per helix process in a session of its own, holding a pipe from helix. helix
// tells it the live groups and tags as they change; when the pipe closes without a goodbye (helix
// died), the watchdog sends those groups and every process carrying one of the tags (found with
// grep in /proc/<pid>/environ) SIGTERM, then SIGKILL after the grace. While it waits it runs only
// shell builtins, so it costs a few milliseconds once, not a process per call.
import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';
import { CHILD_EXIT } from '../errors.js';
import { signalTagged } from './descendants.js';

/** Live agent groups, each with its call's tag (when it has one) and whether it is killed outright. */
const liveGroups = new Map<number, { tag: string | undefined; outright: boolean }>();
let exitHookInstalled = false;

export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: nobody left in the group
  }
}

/**
 * `sh -c WATCHDOG helix-watchdog <grace seconds>`: reads `set <pgid>…`, `tags <tag>…`, `kill
 * <pgid>…`, `killtags <tag>…` (the calls killed outright: run-agent.ts stopWith), `bye`, or EOF.
 */
const WATCHDOG = [
  'live= tags= hard= hardtags=',
  'while IFS= read -r line; do',
  '  case $line in',
  '    set|"set "*) live=${line#set} ;;',
  '    tags|"tags "*) tags=${line#tags} ;;',
  '    kill|"kill "*) hard=${line#kill} ;;',
  '    killtags|"killtags "*) hardtags=${line#killtags} ;;',
  '    bye) exit 0 ;;',
  '  esac',
  'done',
  '[ -n "$live$tags$hard$hardtags" ] || exit 0',
  // every process whose environment carries one of the tags given (random hex: unique, and safe in a pattern)
  'tagged() { for t in "$@"; do for f in /proc/[0-9]*/environ; do grep -qa "$t" "$f" 2>/dev/null && { p=${f#/proc/}; echo "${p%/environ}"; }; done; done; }',
  'stop() { s=$1; shift; for g in $1; do kill -s "$s" -- "-$g" 2>/dev/null; done; shift; for p in $(tagged "$@"); do kill -s "$s" "$p" 2>/dev/null; done; }',
  'stop KILL "$hard" $hardtags',
  'stop TERM "$live" $tags',
  'sleep "$1"',
  'stop KILL "$live" $tags',
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
  const of = (outright: boolean) => [...liveGroups].filter(([, g]) => g.outright === outright);
  const groups = (outright: boolean) => of(outright).map(([pgid]) => pgid).join(' ');
  const tags = (outright: boolean) => of(outright).flatMap(([, g]) => (g.tag ? [g.tag] : [])).join(' ');
  // a pipe write completes at once when the pipe has room, as it does for these few bytes
  watchdog?.stdin?.write(`set ${groups(false)}\ntags ${tags(false)}\nkill ${groups(true)}\nkilltags ${tags(true)}\n`);
}

/**
 * Remembers a live group (and its call's tag) so it is killed if helix exits (or dies) first:
 * SIGTERM and SIGKILL after the grace, or SIGKILL at once when `outright`.
 */
export function trackGroup(pgid: number, graceMs = 5000, tag?: string, { outright = false } = {}): void {
  liveGroups.set(pgid, { tag, outright });
  prepareWatchdog(graceMs);
  tellWatchdog();
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      watchdog?.stdin?.write('bye\n');
      killTrackedGroups();
    });
  }
}

/** SIGKILL to every live agent group and tagged process now (a repeated interrupt does not wait out the grace period). */
export function killTrackedGroups(): void {
  for (const [group, { tag }] of liveGroups) {
    signalGroup(group, 'SIGKILL');
    if (tag) signalTagged(tag, 'SIGKILL');
  }
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
