// claude and root. claude refuses `--dangerously-skip-permissions` (and bypassPermissions) when it
// runs as root unless IS_SANDBOX=1 says the machine is a throwaway sandbox: it exits 1 with
// "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons"
// on stderr (measured on 2.1.197). helix runs claude unattended with exactly those flags, so as
// root in a container every claude call fails. Whether the machine is disposable is the user's
// call: helix never sets IS_SANDBOX itself, it says what to do, in `helix doctor` and on the failure.

/** claude's refusal on stderr. */
export const CLAUDE_ROOT_REFUSAL = /cannot be used with root\/sudo privileges/;

const ADVICE = 'claude refuses its bypass flags as root: run helix as a non-root user, or set IS_SANDBOX=1 if this is a disposable container or VM (helix does not set it for you)';

/** The line helix prints after claude refused to run as root. */
export function claudeRootHint(): string {
  return `helix: ${ADVICE}`;
}

/** The same advice for `helix doctor`, before any call fails. */
export function claudeRootWarning(): string {
  return `running as root without IS_SANDBOX=1: ${ADVICE}`;
}

/** True when this output is claude refusing to run as root. */
export function rootRefusalIn(stderr: string): boolean {
  return CLAUDE_ROOT_REFUSAL.test(stderr);
}

/** True when a claude call made now would be refused: root, and IS_SANDBOX is not 1. */
export function claudeWouldRefuse(uid: number | undefined, env: NodeJS.ProcessEnv): boolean {
  return uid === 0 && env.IS_SANDBOX !== '1';
}
