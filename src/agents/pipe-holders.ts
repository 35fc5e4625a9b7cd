// Leftovers that hold a call open from below. A program between helix and the agent — DDx running
// its harness — reads the harness's output to its end before it goes on (Go's exec.Cmd.Wait does,
// as does a shell's `$(…)`). A process the harness left behind on that pipe (a `setsid` job, a
// daemon) keeps the end from coming, so the wrapper waits, and with it the call, until the call's
// timeout — though the agent itself exited long ago. helix cannot end the wrapper (it still has
// its own work to finish: landing, closing), but it can end the leftover.
//
// A holder is a process that carries the call's tag (descendants.ts), left the call's session
// (setsid), lost the process that started it (its parent is no longer a process of the call), and
// keeps its stdout or stderr on a pipe that a process in the call's session reads. While the
// process that started it still runs it is that process's business (a dev server the agent is
// still using), so only orphans count; and run-agent.ts stops one only once it has held the pipe
// as long as a holder of helix's own pipes may (PIPE_DRAIN_MS), the time an agent's own tool
// runner gives a command's output to drain.
//
// Linux /proc only: /proc/<pid>/stat for the session and parent, /proc/<pid>/fd and fdinfo for
// the pipe ends. Elsewhere nothing is found, and the call's timeout stays the bound.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { procStatFields } from '../proc-stat.js';
import { carriesTag } from './descendants.js';

interface ProcessIds {
  pid: number;
  ppid: number;
  sid: number;
}

/** pid, parent and session from /proc/<pid>/stat; the command name may hold spaces and parentheses. */
function idsOf(pid: number): ProcessIds | undefined {
  // state ppid pgrp session …
  const fields = procStatFields(pid);
  if (!fields) return undefined;
  const ppid = Number(fields[1]);
  const sid = Number(fields[3]);
  return Number.isInteger(ppid) && Number.isInteger(sid) ? { pid, ppid, sid } : undefined;
}

function allProcesses(): ProcessIds[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const found: ProcessIds[] = [];
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    const ids = idsOf(pid);
    if (ids) found.push(ids);
  }
  return found;
}

/** The pipe an fd is open on, and whether it reads or writes it; undefined for anything else. */
function pipeEnd(pid: number, fd: string): { inode: string; reads: boolean; writes: boolean } | undefined {
  try {
    const inode = /^pipe:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
    if (!inode) return undefined;
    const flags = /^flags:\s*([0-7]+)$/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))?.[1];
    const access = flags === undefined ? 2 : Number.parseInt(flags, 8) & 3; // O_ACCMODE: 0 read, 1 write, 2 both
    return { inode, reads: access !== 1, writes: access !== 0 };
  } catch {
    return undefined; // closed meanwhile, or another user's
  }
}

/** Pipes some process of the session reads. */
function pipesReadBy(members: ProcessIds[]): Set<string> {
  const read = new Set<string>();
  for (const member of members) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${member.pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      const end = pipeEnd(member.pid, fd);
      if (end?.reads) read.add(end.inode);
    }
  }
  return read;
}

/**
 * Processes of the call tagged `tag`, in a session other than the call's `callSession`, whose
 * parent is no process of the call, holding their stdout or stderr on a pipe that a process of
 * the call's session reads: the leftovers a wrapper is waiting on.
 */
export function strayPipeHolders(callSession: number, tag: string): number[] {
  const processes = allProcesses();
  const members = processes.filter((p) => p.sid === callSession);
  if (members.length === 0) return [];
  const read = pipesReadBy(members);
  if (read.size === 0) return [];
  const byPid = new Map(processes.map((p) => [p.pid, p]));
  const holders: number[] = [];
  for (const candidate of processes) {
    if (candidate.sid === callSession) continue;
    const holds = ['1', '2'].some((fd) => {
      const end = pipeEnd(candidate.pid, fd);
      return end !== undefined && end.writes && read.has(end.inode);
    });
    if (!holds || !carriesTag(candidate.pid, tag)) continue;
    const parent = byPid.get(candidate.ppid);
    const orphaned = parent === undefined || (parent.sid !== callSession && !carriesTag(parent.pid, tag));
    if (orphaned) holders.push(candidate.pid);
  }
  return holders;
}

/**
 * Looks for holders every `pollMs` while a call runs and hands each to `stop` once it has held its
 * pipe for `holdMs`. Returns the function that ends the watch.
 */
export function watchStrayPipeHolders(callSession: number, tag: string, options: { pollMs: number; holdMs: number; stop: (pid: number) => void }): () => void {
  const heldSince = new Map<number, number>();
  const poll = setInterval(() => {
    const now = Date.now();
    const holding = new Set(strayPipeHolders(callSession, tag));
    for (const pid of heldSince.keys()) if (!holding.has(pid)) heldSince.delete(pid);
    for (const pid of holding) {
      const since = heldSince.get(pid) ?? now;
      heldSince.set(pid, since);
      if (now - since >= options.holdMs) {
        heldSince.delete(pid);
        options.stop(pid);
      }
    }
  }, options.pollMs);
  poll.unref();
  return () => clearInterval(poll);
}
