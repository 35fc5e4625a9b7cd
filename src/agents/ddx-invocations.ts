// Builders for the ways helix calls DDx (docs/contract/cli.md §8), per surface (ddx-surface.ts):
//   - one bead where helix owns claim and close: `ddx agent execute-bead` (DDx v0.6.x);
//   - one bead where DDx claims and closes itself: `ddx try <id>` (current DDx; also what
//     HELIX_EXECUTOR=execute-loop asks for there);
//   - a plain prompt through a harness for the other actions: `ddx agent run` / `ddx run`.
// Prompts never travel in argv: a prompt above 128 KiB breaks the exec (E2BIG). Both `run`
// commands read the prompt from stdin when neither --prompt nor --text is given and stdin is not a
// terminal (93be5c8cb2 cli/cmd/agent_cmd.go, ae663ca012 cli/cmd/run.go); execute-bead takes a
// prompt file (--prompt); `ddx try` has no prompt option at all — DDx writes its own from the bead.
import { DDX_LONGEST_TIMEOUT } from './timeout.js';
import type { AgentInvocation } from './invocation.js';
import type { DdxSurfaceKind } from './ddx-surface.js';

/** execute-bead's effort when none is given (docs/contract/cli.md §8). */
export const DEFAULT_EXECUTE_BEAD_EFFORT = 'medium';

export interface ExecuteBeadOptions {
  /** Repository root; the invocation runs there. */
  root: string;
  beadId: string;
  /** The agent DDx should run (codex, claude, …). */
  harness?: string;
  model?: string;
  effort?: string;
  /** A prompt file prepended by helix (e.g. the context and implementation prompt). */
  promptFile?: string;
}

/** `ddx agent execute-bead <id> [--harness h] [--model m] --effort <e> --json [--prompt <file>]` (DDx v0.6.x). */
export function executeBeadInvocation(options: ExecuteBeadOptions): AgentInvocation {
  const args = ['agent', 'execute-bead', options.beadId];
  if (options.harness) args.push('--harness', options.harness);
  if (options.model) args.push('--model', options.model);
  args.push('--effort', options.effort || DEFAULT_EXECUTE_BEAD_EFFORT, '--json');
  if (options.promptFile) args.push('--prompt', options.promptFile);
  return { file: 'ddx', args, cwd: options.root, env: { HELIX_SELECTED_ISSUE: options.beadId } };
}

export interface TryOptions {
  root: string;
  beadId: string;
  harness?: string;
  model?: string;
  effort?: string;
  /** HELIX_AGENT_TIMEOUT in seconds: DDx's own attempt wall clock (its default is 30 min); Infinity = none. */
  wallClockSeconds: number;
  /** HELIX_ALLOW_NON_DEFAULT_BRANCH=1: build on a branch that does not track origin's default branch. */
  allowNonDefaultBranch?: boolean;
}

/**
 * How long helix waits for `ddx try` beyond DDx's own wall clock: after the attempt DDx still
 * triages, releases or lands, and helix must not cut that short (a lease or worktree left behind).
 */
export const TRY_GRACE_SECONDS = 300;

/**
 * One `ddx try` is one attempt. After a failed attempt whose status DDx calls escalatable
 * (post_run_check_failed — helix's gate blocking — among them) `ddx try` runs the bead again with
 * the minimum power one higher, until that reaches `--max-power`; without it, without end (measured
 * on ae663ca012: 420 attempts in 10 minutes; docs/ddx.md). helix retries itself, with the reason in
 * the bead's notes, so it asks for a minimum one below the maximum: the loop stops after the first
 * attempt. The maximum leaves DDx's reviewer a route: its floor is max(9, the implementer's power + 1)
 * (execute_bead_review.go reviewerMinPower) and must stay below `--max-power`; the strongest model in
 * fizeau's catalog has power 10, so 12. (`--max-power 10` alone, the least the reviewer accepts with
 * this build's agent layer, still gave 3 attempts; `--min-power 9 --max-power 10` one, but a reviewer
 * floor of 10 or 11 — a power 9 or 10 implementer — would not route.)
 */
export const TRY_MIN_POWER = 11;
export const TRY_MAX_POWER = 12;

/**
 * `ddx try <id> [--harness h] [--model m] [--effort e] --min-power 11 --max-power 12
 * --attempt-wall-clock <T>s [--allow-non-default-branch]` (current DDx: claims, lands and closes
 * itself). DDx's review before landing stays on: it is the build's one review (helix does not
 * review a bead DDx reviewed).
 */
export function tryInvocation(options: TryOptions): AgentInvocation {
  const args = ['try', options.beadId];
  if (options.harness) args.push('--harness', options.harness);
  if (options.model) args.push('--model', options.model);
  if (options.effort) args.push('--effort', options.effort);
  args.push('--min-power', String(TRY_MIN_POWER), '--max-power', String(TRY_MAX_POWER));
  args.push('--attempt-wall-clock', Number.isFinite(options.wallClockSeconds) ? `${options.wallClockSeconds}s` : '0');
  if (options.allowNonDefaultBranch) args.push('--allow-non-default-branch');
  return { file: 'ddx', args, cwd: options.root, env: { HELIX_SELECTED_ISSUE: options.beadId } };
}

export interface DdxRunOptions {
  root: string;
  harness: string;
  prompt: string;
  /** HELIX_AGENT_TIMEOUT in seconds (see agentTimeoutSeconds); Infinity = no timeout. */
  timeoutSeconds: number;
  model?: string;
  effort?: string;
}

/**
 * `ddx agent run` (v0.6.x) or `ddx run` (current) `--harness h --permissions unrestricted
 * --timeout <T>s [--model m] [--effort e]`, the prompt on stdin.
 */
export function ddxRunInvocation(surface: DdxSurfaceKind, options: DdxRunOptions): AgentInvocation {
  const args = [
    ...(surface === 'agent' ? ['agent', 'run'] : ['run']),
    '--harness', options.harness,
    '--permissions', 'unrestricted',
    '--timeout', Number.isFinite(options.timeoutSeconds) ? `${options.timeoutSeconds}s` : DDX_LONGEST_TIMEOUT,
  ];
  if (options.model) args.push('--model', options.model);
  if (options.effort) args.push('--effort', options.effort);
  return { file: 'ddx', args, cwd: options.root, env: {}, input: options.prompt };
}

/** An entry of a bead's evidence (current DDx): what kind, its one-line summary and its body. */
export interface Evidence {
  kind: string;
  summary: string;
  body: string;
}

/** `ddx bead evidence add <id> --kind <k> --summary <s> --body <b>` (current DDx): DDx records it on the bead. */
export function evidenceInvocation(root: string, beadId: string, evidence: Evidence): AgentInvocation {
  return { file: 'ddx', args: ['bead', 'evidence', 'add', beadId, '--kind', evidence.kind, '--summary', evidence.summary, '--body', evidence.body], cwd: root, env: {} };
}
