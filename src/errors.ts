// One place for every failure kind helix reports and the exit code it maps to.
// Commands throw HelixError (or a subclass); the CLI entry prints the message on stderr and exits
// with the kind's code. Codes 0, 1 and 2 are fixed by the contract (docs/contract/cli.md §4); the rest are ours,
// distinct per kind so scripts can tell them apart, and documented in the README.

export const EXIT = {
  ok: 0,
  /** General failure and bad usage (docs/contract/cli.md §4). */
  error: 1,
  /** `helix run: already running` — a live run holds the pid file (docs/contract/cli.md §4). */
  runActive: 2,
  /** Unknown bead id or memory name. */
  notFound: 3,
  /** Claim lost: the bead is not open (already claimed, closed). */
  conflict: 4,
  /** The tracker lock could not be taken within DDX_BEAD_LOCK_TIMEOUT. */
  lockTimeout: 5,
  /** The bead file has malformed lines, duplicate ids or conflict markers: writes refuse. */
  malformedStore: 6,
  /** A value failed validation (priority, status, title, cycle, …). */
  validation: 7,
  /** Fencing: the caller's claim token is not the bead's current token. */
  staleToken: 8,
  /** close refused: a `blocks` dependency is still open. */
  openDependencies: 9,
  /** The memory database cannot be opened or read. */
  storeUnavailable: 10,
  /**
   * `helix review` found issues (ISSUES_FOUND with a count): the Bash CLI's exit status, kept for
   * scripts (docs/contract/bash-interface.md §9). It shares 10 with storeUnavailable: review never opens the memory store.
   */
  reviewIssuesFound: 10,
  /** A required external program (ddx, codex, claude) is missing. */
  missingTool: 11,
  /** Writing a file failed (disk full, permissions); nothing was replaced. */
  writeFailed: 12,
  /**
   * The repository is not in a state DDx can build in (detached HEAD, a branch DDx refuses, the
   * user's uncommitted changes): refused before anything is claimed (docs/ddx.md).
   */
  repositoryState: 13,
  /** DDx keeps the beads in another backend (axon, bd, br): helix does not touch `.ddx/beads.jsonl`. */
  otherBeadBackend: 14,
  /** The bead file lost beads while an agent call ran (truncated, deleted): the run stops. */
  beadsLost: 15,
  /** The tracker folder or bead file cannot be used: `.ddx` is a file or a dangling link, the bead file a dangling link, DDX_BEAD_DIR ambiguous. */
  trackerUnusable: 16,
  /** The memory store was made by a newer helix (its schema version is newer than this helix knows). */
  memoryTooNew: 17,
  /** `helix memory import`: a line is not a memory record; nothing was imported. */
  importMalformed: 18,
  /** `helix memory edit`: the new text was refused (security filter, too short, bad type); nothing changed. */
  memoryRejected: 19,
  /**
   * `helix run` stopped on a usage or rate limit that would not reset within --max-wait (stop
   * reason `limit`; agents/usage-limit.ts reads the limit, supervisor/core/limit-wait.ts decides the wait).
   */
  limitWait: 20,
  /** `helix run` stopped at a --max-cost, --max-tokens or --max-duration cap (stop reason `budget`; supervisor/core/budget.ts). */
  budget: 21,
  /**
   * `helix run` stopped on a setup error: an agent that cannot log in, a model no one serves, a route
   * DDx cannot resolve, an agent program DDx cannot find — or an infrastructure failure that did not
   * pass in three tries (stop reason `setup`; supervisor/core/unavailable.ts). Nothing was counted against a bead.
   */
  setup: 22,
  /** run, build, check, an action or start outside a git work tree: refused before anything is created or any agent called. */
  notInGitWorkTree: 23,
  // A run, build, check or action ended early (claims released, run-state saved, agents reaped).
  // 128 + the signal's number, as shells report a process a signal ended.
  /** SIGHUP: the terminal was closed. */
  hangup: 129,
  /** SIGINT: Ctrl-C. */
  interrupted: 130,
  /** A reader of stdout or stderr went away (EPIPE), reported like SIGPIPE. */
  brokenPipe: 141,
  /** SIGTERM: `helix stop`, `kill`, a CI runner cancelling the job. */
  terminated: 143,
} as const;

export type ExitKind = keyof typeof EXIT;

/**
 * Exit statuses helix gives a child process (an agent, a verify command) that did not exit on its
 * own, as a shell reports them — so a status reads the same in helix's lines as in a terminal.
 */
export const CHILD_EXIT = {
  /** The call ran past its time limit (GNU `timeout`'s status). */
  timedOut: 124,
  /** The program was found but could not be run (permission denied). */
  cannotRun: 126,
  /** The program was not found. */
  notFound: 127,
  /** A signal ended the process: 128 + the signal's number. */
  signalBase: 128,
} as const;

export class HelixError extends Error {
  readonly kind: ExitKind;
  /** The message is several lines on purpose; any other is printed as one line (see oneLine). */
  readonly multiline: boolean;
  constructor(kind: ExitKind, message: string, options: { multiline?: boolean } = {}) {
    super(message);
    this.name = 'HelixError';
    this.kind = kind;
    this.multiline = options.multiline ?? false;
  }
  get exitCode(): number {
    return EXIT[this.kind];
  }
}

export const fail = (kind: ExitKind, message: string): never => {
  throw new HelixError(kind, message);
};

/**
 * A refusal is one line: a value it quotes (a flag, a title, an id from a script) may hold a line
 * break, which is shown as `\n` instead of starting a second line a reader would take for another message.
 */
export function oneLine(message: string): string {
  return message.replace(/\r?\n|\r/g, (br) => (br === '\n' ? '\\n' : br === '\r' ? '\\r' : '\\r\\n'));
}

export function isHelixError(error: unknown): error is HelixError {
  return error instanceof HelixError;
}
