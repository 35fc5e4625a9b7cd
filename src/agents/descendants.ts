// Finding every process an agent call started, wherever it went. A process group covers the
// agent and its ordinary children, but not a child that moved to a session of its own (`setsid`,
// a daemon's double fork) — and the real claude CLI runs each shell command that way, so its
// background jobs left the group. Such a process keeps its environment, though. So every call
// gets a tag, a random token in HELIX_CALL_ID, that every descendant inherits through fork, exec,
// setsid and reparenting; at the call's end helix scans /proc/<pid>/environ for the tag and stops
// what it finds. A nested call appends its own tag (`outer:inner`), so an outer call still finds
// the inner call's processes.
//
// Covers Linux (and any system with a Linux-style /proc) for processes of the same user that keep
// their environment. Not covered: a program that clears its environment (`env -i`) or runs as
// another user, and systems without /proc (macOS), where only the process group is stopped.
// Why not the alternatives: PR_SET_CHILD_SUBREAPER is not reachable from Node without a native
// module or a helper binary, and cgroups need a delegated hierarchy helix cannot count on.
import { readFileSync, readdirSync } from 'node:fs';

export const CALL_TAG_VARIABLE = 'HELIX_CALL_ID';

/**
 * The tag every call of one process carries besides its own (the supervisor adds it to each
 * call's environment), named by that process's identity as a claim records it: its pid and start
 * time (`claimed-pid`, `claimed-pid-start`). From a claim alone, a later run can thus tell whether
 * any process of the claimer's calls is still alive (taggedProcesses).
 */
export function processTagOf(pid: number, start: string): string {
  return `helix-${pid}-${start.replace(/[^0-9A-Za-z]/g, '')}`;
}

/** The variable to add to a call's environment: the tags of the calls around it, then this one. */
export function tagVariable(env: NodeJS.ProcessEnv, tag: string): Record<string, string> {
  const outer = env[CALL_TAG_VARIABLE];
  return { [CALL_TAG_VARIABLE]: outer ? `${outer}:${tag}` : tag };
}

/** Pids of live processes carrying `tag` (never this process); empty where /proc is missing. */
export function taggedProcesses(tag: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const needle = Buffer.from(tag);
  const found: number[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${pid}/environ`);
    } catch {
      continue; // gone, or another user's
    }
    if (environ.includes(needle) && hasTag(environ, tag)) found.push(pid);
  }
  return found;
}

/** Whether the process `pid` carries `tag` (false when it is gone or not ours to read). */
export function carriesTag(pid: number, tag: string): boolean {
  try {
    const environ = readFileSync(`/proc/${pid}/environ`);
    return environ.includes(Buffer.from(tag)) && hasTag(environ, tag);
  } catch {
    return false;
  }
}

/** Whether HELIX_CALL_ID in this NUL-separated environment block lists `tag`. */
function hasTag(environ: Buffer, tag: string): boolean {
  for (const entry of environ.toString('latin1').split('\0')) {
    if (entry.startsWith(`${CALL_TAG_VARIABLE}=`) && entry.slice(CALL_TAG_VARIABLE.length + 1).split(':').includes(tag)) return true;
  }
  return false;
}

/** Sends `signal` to every process carrying `tag`; returns how many it reached. */
export function signalTagged(tag: string, signal: NodeJS.Signals): number {
  let reached = 0;
  for (const pid of taggedProcesses(tag)) {
    try {
      process.kill(pid, signal);
      reached++;
    } catch {
      // exited meanwhile
    }
  }
  return reached;
}
