// What a command served without commander (src/cli/plain.ts, src/cli/plain-gate.ts) prints, and how.
/**
 * Status and next print what main() would print, through file descriptors 1 and 2 like the tracker
 * reads: creating `process.stdout` on a pipe loads the stream and net modules, and the stream guard
 * (interrupts.ts) loads the agents' process-group module — most of what a 100-bead `status --json`
 * cost. The rules are the same: printable text only, a reader that went away is not an error.
 */
export async function withFdOutput(run: (ctx: import('./command-context.js').CommandContext) => Promise<import('../supervisor/shell/output.js').CommandResult>): Promise<void> {
  const [{ writeToFd }, { finishWith }] = await Promise.all([import('./tracker-read.js'), import('./command-context.js')]);
  const io: import('./command-context.js').CommandOutput = {
    stdout: (text) => writeToFd(1, text),
    stderr: (text) => writeToFd(2, text),
    get exitCode() {
      return typeof process.exitCode === 'number' ? process.exitCode : undefined;
    },
    set exitCode(code) {
      process.exitCode = code;
    },
  };
  finishWith(io, await run({ cwd: process.cwd(), env: process.env, io }));
}

