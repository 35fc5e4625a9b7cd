// The first process of every agent call's process group: `node group-leader.js <grace ms> <file>
// <args…>`, started detached by runner.ts. It starts the agent in its group and mirrors the agent's
// exit (code or signal), and it holds helix's IPC channel as a lifeline: when helix dies — even by
// SIGKILL, which no handler sees — the channel closes, and the leader stops the whole group
// (SIGTERM, then SIGKILL after the grace), so no agent outlives the supervisor that started it.
// A program that cannot be started is reported back over the same channel, with its errno.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

export interface StartErrorMessage {
  startError: { code: string | undefined; message: string };
}

const TERMINATING = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

function signalGroup(signal: NodeJS.Signals): void {
  try {
    process.kill(-process.pid, signal);
  } catch {
    // the group is empty
  }
}

function lead(graceMs: number, file: string, args: string[]): void {
  // helix signals the whole group; the agent gets those signals itself, the leader waits to report its end
  for (const name of TERMINATING) process.on(name, () => undefined);
  let orphaned = false;
  process.on('disconnect', () => {
    orphaned = true;
    signalGroup('SIGTERM');
    setTimeout(() => signalGroup('SIGKILL'), graceMs).unref();
  });
  const agent = spawn(file, args, { stdio: 'inherit' });
  agent.on('error', (error: NodeJS.ErrnoException) => {
    const message: StartErrorMessage = { startError: { code: error.code, message: error.message } };
    // 126/127 as a shell reports a program it could not run / could not find
    const exit = () => process.exit(error.code === 'ENOENT' ? 127 : 126);
    if (process.send) process.send(message, undefined, {}, exit);
    else exit();
  });
  agent.on('exit', (code, signal) => {
    if (orphaned) signalGroup('SIGKILL'); // helix is gone: nothing of the call may stay
    if (signal) {
      for (const name of TERMINATING) process.removeAllListeners(name);
      process.kill(process.pid, signal);
      // a signal Node ignores (SIGPIPE) or handles itself comes back: report it as a shell would
      process.exit(128 + ((constants.signals as Record<string, number | undefined>)[signal] ?? 0));
    }
    process.exit(code ?? 1);
  });
}

const [grace, file, ...args] = process.argv.slice(2);
if (file) lead(Number(grace) || 0, file, args);
