// What a failed agent call's own program said went wrong, when it is not the work: a login that
// does not work, a model no one serves, a route DDx cannot resolve, a program that is not there,
// a provider that does not answer. Read from the CLI's error report — claude's `result` event
// with `is_error`, codex's `turn.failed` / `error` events, DDx's record of the session (its final
// output: the CLI's own text) and DDx's `failure_mode` — never from a successful answer, where a
// model may quote any of these words. The texts are the real programs' (claude 2.1.332, codex
// 0.171.0, DDx v0.6.1 and ae663ca012, measured against the model stand-in: docs/agents.md
// "Failures that are not the bead's").
import { jsonEvents } from './agent-output.js';
import type { AnswerFormat } from './invocation.js';
import { rootRefusalIn } from './sandbox.js';

/** setup: someone has to fix something before any agent can work; infrastructure: it may pass by itself. */
export type ProblemKind = 'setup' | 'infrastructure';

export interface AgentProblem {
  kind: ProblemKind;
  /** What is wrong, in a few words (`authentication failed`, `the model is unknown`). */
  what: string;
  /** The program's own words, one line. */
  detail: string;
  /** What a person does about a setup problem, in a few words. */
  fix?: string;
}

/** What to do about each setup problem. */
const FIX = {
  auth: 'log the agent CLI in (claude: /login; codex: codex login) or give it its API key',
  model: 'name a model the provider serves with --model',
  route: 'name a model DDx can route the harness to with --model',
  missing: 'install the agent CLI, or put it on PATH',
  operator: "do what DDx's message says",
  root: 'set IS_SANDBOX=1 if this machine is a disposable sandbox, or run helix as another user',
} as const;

const PATTERNS: Array<{ kind: ProblemKind; what: string; pattern: RegExp; fix?: string }> = [
  // claude: "Invalid API key · Fix external API key", "Please run /login", an expired OAuth token;
  // codex: a 401, a missing OPENAI_API_KEY
  { kind: 'setup', what: 'authentication failed', fix: FIX.auth, pattern: /invalid api key|please run \/login|authentication_error|oauth token (has )?expired|\b401\b.{0,40}unauthori[sz]ed|missing environment variable:? .{0,20}api_key|not logged in/i },
  // claude: "There's an issue with the selected model (x). It may not exist …"; codex / OpenAI: model_not_found
  { kind: 'setup', what: 'the model is unknown or not available', fix: FIX.model, pattern: /issue with the selected model|model_not_found|model .{0,80}does not exist|unknown model|unsupported model/i },
  // DDx (current): "ResolveRoute: no viable routing candidate for pins …", `ddx run` without a model
  { kind: 'setup', what: 'DDx could not route to the agent', fix: FIX.route, pattern: /resolveroute:|no viable routing candidate|no viable provider|under-specified routing|harness cannot satisfy power constraint/i },
  { kind: 'setup', what: 'the agent program is not installed', fix: FIX.missing, pattern: /executable file not found|command not found/i },
  // current DDx refusing to build over the user's uncommitted changes (made during the run)
  { kind: 'setup', what: 'the checkout has uncommitted changes DDx refuses to build over', fix: 'commit or stash them', pattern: /has uncommitted implementation changes/i },
  // DDx itself refusing until an operator acts: "Error: lifecycle_migration_required: … run `ddx bead
  // migrate --lifecycle --apply` …", a project that requires a newer DDx
  { kind: 'setup', what: 'DDx needs an operator to act first', fix: FIX.operator, pattern: /lifecycle_migration_required|this project requires DDx|run `ddx (bead migrate|update|doctor|init)\b/i },
  // DDx waiting in vain for its own project lock (ae663ca012 offline_coordinator.go: 30 s, then this;
  // a lock left without its pid by a killed DDx is never broken)
  { kind: 'infrastructure', what: "DDx's project lock stayed held", pattern: /offline coordination lock: timeout waiting for project lock/i },
  // DDx's own git work colliding with a `ddx try` beside it in the same checkout (measured on
  // ae663ca012 with eight at once: `importing clone result: fatal: bad object worktrees/ddx-…`,
  // `… .git/index.lock': File exists`, `committing tracker: …`, `land coordination retry: land advancer: …`)
  { kind: 'infrastructure', what: "DDx's git work collided with a ddx try beside it", pattern: /importing clone result: fatal: bad object worktrees\/ddx-|land coordination retry: land advancer:|unable to create '[^']*\.git\/index\.lock': file exists|execution_failed: committing tracker:|^committing tracker:/im },
  // a provider that is down, overloaded or unreachable; a stream that broke
  { kind: 'infrastructure', what: 'the provider did not answer', pattern: /econnrefused|connection refused|connection error|fetch failed|socket hang up|network is unreachable|stream disconnected|overloaded_error|api error: (5\d\d|overloaded)|service unavailable/i },
];

/** The problem a text names, or undefined (the text names none: the failure is the work's). */
export function problemIn(text: string): AgentProblem | undefined {
  const line = oneLine(text);
  if (rootRefusalIn(text)) return { kind: 'setup', what: 'claude refuses to run unattended as root without IS_SANDBOX=1', detail: line, fix: FIX.root };
  const found = PATTERNS.find((p) => p.pattern.test(text));
  return found ? { kind: found.kind, what: found.what, detail: line, ...(found.fix ? { fix: found.fix } : {}) } : undefined;
}

/** DDx's typed failure modes (ae663ca012 execute_bead_status.go ClassifyFailureMode) that are not the bead's. */
const DDX_FAILURE_MODES: Record<string, { kind: ProblemKind; what: string; fix?: string }> = {
  harness_not_installed: { kind: 'setup', what: 'the agent program is not installed', fix: FIX.missing },
  blocked_by_passthrough_constraint: { kind: 'setup', what: 'DDx could not route to the agent', fix: FIX.route },
  agent_power_unsatisfied: { kind: 'setup', what: 'DDx could not route to the agent', fix: FIX.route },
  no_viable_provider: { kind: 'setup', what: 'DDx could not route to the agent', fix: FIX.route },
  provider_connectivity: { kind: 'infrastructure', what: 'the provider did not answer' },
  server_unavailable: { kind: 'infrastructure', what: 'the provider did not answer' },
  provider_harness_unavailable: { kind: 'infrastructure', what: 'the agent harness gave no answer' },
  lock_contention: { kind: 'infrastructure', what: 'DDx lost a race for its own lock' },
  worktree_lost: { kind: 'infrastructure', what: "DDx lost its attempt's worktree" },
};

/** DDx statuses that are DDx's own malfunction, not the work's (a review that could not run, host resources). */
const DDX_STATUSES: Record<string, { kind: ProblemKind; what: string }> = {
  review_malfunction: { kind: 'infrastructure', what: "DDx's review could not run" },
  resource_exhausted: { kind: 'infrastructure', what: "DDx's execution roots are out of disk or file descriptors" },
};

/** The problem DDx's own result names by its status or failure mode, or undefined. */
export function ddxProblemOf(result: { status?: unknown; failure_mode?: unknown; detail?: unknown }): AgentProblem | undefined {
  const detail = typeof result.detail === 'string' && result.detail ? result.detail : String(result.status ?? '');
  const byStatus = typeof result.status === 'string' ? DDX_STATUSES[result.status] : undefined;
  if (byStatus) return { ...byStatus, detail: oneLine(`${result.status}: ${detail}`) };
  const byMode = typeof result.failure_mode === 'string' ? DDX_FAILURE_MODES[result.failure_mode] : undefined;
  return byMode ? { ...byMode, detail: oneLine(`${result.failure_mode}: ${detail}`) } : undefined;
}

/**
 * The error texts a failed direct call's CLI reported: claude's `result` with `is_error`, codex's
 * `turn.failed` and `error` events, and the last lines of stderr (a CLI that died before it could
 * print any event, claude's refusal as root).
 */
export function errorTextsOf(format: AnswerFormat | undefined, stdout: string, stderr: string): string[] {
  const texts: string[] = [];
  for (const event of jsonEvents(stdout)) {
    if (format === 'claude-stream-json' && event.type === 'result' && event.is_error === true && typeof event.result === 'string') texts.push(event.result);
    if (format === 'codex-json' && (event.type === 'turn.failed' || event.type === 'error')) {
      const message = event.type === 'error' ? event.message : (event.error as { message?: unknown } | undefined)?.message;
      if (typeof message === 'string') texts.push(message);
    }
  }
  // stderr only when the CLI reported nothing structured (it died first, or refused to start)
  const tail = stderr.trim().split('\n').slice(-3).join('\n').trim();
  if (texts.length === 0 && tail) texts.push(tail);
  return texts;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
