// What is left of a claimer: every agent call of a helix process carries, beside its own tag, the
// process's tag — named by the pid and start time its claims record (agents/descendants.ts
// processTagOf) — so from a claim alone a later run finds any process of the claimer's calls still
// alive: an agent helix's watchdog has not stopped yet, or a job that moved to a session of its
// own. A claim whose claimer is gone and of which nothing is left is reclaimed at once
// (tracker/stale.ts); the HELIX_ORPHAN_THRESHOLD wait is for what cannot be seen.
import { processTagOf, taggedProcesses, tagVariable } from '../../agents/descendants.js';
import { processStartOf } from '../../tracker/liveness.js';

let ownTag: string | null | undefined;

/** This process's tag; undefined where its start time cannot be read (no /proc: no claim records one either). */
export function processTag(): string | undefined {
  if (ownTag === undefined) {
    const start = processStartOf(process.pid);
    ownTag = start ? processTagOf(process.pid, start) : null;
  }
  return ownTag ?? undefined;
}

/** The environment of an agent call of this process: HELIX_CALL_ID gains the process's tag. */
export function withProcessTag(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const tag = processTag();
  return tag ? { ...env, ...tagVariable(env, tag) } : env;
}

/** Whether no process of the calls made by the process `pid` started at `start` is alive (one scan of /proc). */
export function claimerCallsGone(pid: number, start: string): boolean {
  return tagGone(processTagOf(pid, start));
}

/** Whether no process carries this process tag any more. */
export function tagGone(tag: string): boolean {
  return taggedProcesses(tag).length === 0;
}
