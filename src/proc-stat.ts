// A process's /proc/<pid>/stat, which the agents module (who holds a call's pipe) and the tracker
// (whether a claim's process still runs) both read: the fields after the command name, which may
// hold spaces and parentheses — so they are taken after the last ')'. Field 3 of stat is index 0.
import { readFileSync } from 'node:fs';

/** stat's fields from the state (field 3) on, or undefined where /proc or the process is not there. */
export function procStatFields(pid: number): string[] | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
