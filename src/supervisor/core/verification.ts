// What a verification run says, wherever it ran: helix's own after an attempt looks complete
// (shell/attempt.ts) and the gate's in the attempt's tree before DDx lands it (shell/gate.ts). One
// home for its detail line and the bounded tail the notes, the blocker report and the
// notifications carry.

/** A verification run's result: passed, and the command's exit and last lines for the notes. */
export interface Verification {
  passed: boolean;
  detail: string;
  /** Its last lines of output (bounded: VERIFY_OUTPUT_LINES), for the blocker report and notifications. */
  output?: string[];
}

/** How much of a failed verification's output the blocker report and the notifications carry. */
export const VERIFY_OUTPUT_LINES = 20;
export const VERIFY_LINE_CHARS = 300;

/** The last VERIFY_OUTPUT_LINES non-blank lines of a verification's output, each cut at VERIFY_LINE_CHARS. */
export function verificationTail(output: string): string[] {
  return output
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== '')
    .slice(-VERIFY_OUTPUT_LINES)
    .map((l) => (l.length > VERIFY_LINE_CHARS ? `${l.slice(0, VERIFY_LINE_CHARS - 1)}…` : l));
}

/** Judges one run of the verify command (`sh -c <command>`): passed on exit 0 within its time, with its exit and last five lines. */
export function verificationOf(command: string, run: { exitCode: number; timedOut: boolean; output: string }): Verification {
  const tail = run.output.trim().split('\n').slice(-5).join(' | ');
  const passed = run.exitCode === 0 && !run.timedOut;
  return { passed, detail: `${command} exited ${run.exitCode}${tail ? `: ${tail}` : ''}`, ...(passed ? {} : { output: verificationTail(run.output) }) };
}
