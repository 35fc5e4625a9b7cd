// Every line helix prints as the Bash CLI did, in one place (where docs/contract/cli.md decides
// otherwise, as it does: docs/contract/bash-interface.md §0–§18). Each line carries the level that
// decides its stream per output mode (output.ts, §0.2):
//   always     stderr in every mode (and the session log)
//   narrative  stderr in normal and --quiet; only the session log with --summary
//   noise      agent-call noise: stderr in normal mode only (the log always)
//   summary    --summary only (stderr and log); the short form of a `terminal` line
//   terminal   normal and --quiet only; the long form of a `summary` line
// Lines marked "stamped" are printed as `helix: [HH:MM:SS] <text>` (see `stamp`). Lines helix adds
// beyond the Bash CLI are at the end of each group, marked "helix".
// The file layouts live with the code that writes them (shell/context.ts for .helix/context.md,
// shell/blockers.ts for the blocker report); the usage and each command's help are
// src/cli/usage.ts; `helix status`'s views are text/status.ts;
// shell/doctor.ts computes the doctor's rows and src/cli/commands/doctor.ts prints them.

import type { OrphanRecoveryEvent } from '../../tracker/recover-orphans.js';
import { plural } from '../../numbers.js';

export type LineLevel = 'always' | 'narrative' | 'noise' | 'summary' | 'terminal';

/** A line the run loop asks the runner to print. */
export interface Say {
  level: LineLevel;
  text: string;
  /** Printed as `helix: [HH:MM:SS] <text>`. */
  stamped?: boolean;
  /**
   * Progress the live board shows as it happens (an attempt's start, its agent's completion):
   * under the board it goes to the session log only (docs/contract/cli.md §6.10).
   */
  live?: boolean;
}

const say = (level: LineLevel, text: string): Say => ({ level, text });
const stamped = (level: LineLevel, text: string): Say => ({ level, text, stamped: true });
const stampedLive = (level: LineLevel, text: string): Say => ({ level, text, stamped: true, live: true });

/** `helix: [<t>] <text>`: a line carrying the local wall-clock time. */
export const stamp = (time: string, text: string): string => `helix: [${time}] ${text}`;

/**
 * A line that names what it is about (docs/contract/cli.md §6.10: with several slots, every line of
 * an attempt names its bead; the lines themselves are docs/contract/bash-interface.md's):
 * `helix: [<tag>] …`, `helix: [HH:MM:SS] [<tag>] …` when stamped, `[<tag>] …` for a line of its own.
 */
export function tagged(line: Say, tag: string): Say {
  if (line.text.includes(tag)) return line; // it names its bead already (the cycle, FAILED and COMPLETE lines)
  const text = !line.stamped && line.text.startsWith('helix: ') ? `helix: [${tag}] ${line.text.slice('helix: '.length)}` : `[${tag}] ${line.text}`;
  return { ...line, text };
}

/** The longest reason a one-line failure carries (a FAILED line): more is in the log and the notes. */
export const REASON_CHARS = 200;

/** A failure's detail as one line: its first line, cut at REASON_CHARS. */
export function reasonLine(detail: string): string {
  const first = detail.trim().split('\n')[0]?.trim() ?? '';
  return first.length > REASON_CHARS ? `${first.slice(0, REASON_CHARS - 1)}…` : first;
}

// ── §0.3 the session log's frames around agent output ────────────────────────────────────────

export const FRAME = {
  codexHead: (t: string, rc: number, seconds: number) => `--- codex output [${t}] rc=${rc} elapsed=${seconds}s ---`,
  codexEnd: '--- end codex output ---',
  ddxRunHead: (t: string, p: { harness: string; rc: number; exit: number; seconds: number; costUsd: number; tokens: number }) =>
    `--- ddx agent run [${t}] harness=${p.harness} rc=${p.rc} exit=${p.exit} elapsed=${p.seconds}s cost=$${p.costUsd} tokens=${p.tokens} ---`,
  ddxRunEnd: '--- end ddx agent output ---',
  /** helix: any other call (a DDx build command, the verify command), named by its command words. */
  otherHead: (t: string, name: string, rc: number, seconds: number) => `--- ${name} output [${t}] rc=${rc} elapsed=${seconds}s ---`,
  otherEnd: (name: string) => `--- end ${name} output ---`,
};

// ── §0.4 agent-call lines (all stamped; built by the runner, which knows the time) ────────────

/** `(model: <m>)` or empty; the Bash lines keep the space around an empty part. */
const modelPart = (model: string | undefined) => (model ? `(model: ${model})` : '');

/**
 * helix: `, $0.0123` after a token count where the Bash line had no cost, or nothing when no agent
 * reported a cost above zero (codex reports none; a stand-in or an older DDx reports 0).
 */
export function costPart(usd: number | undefined): string {
  return usd !== undefined && usd > 0 ? `, $${usd.toFixed(4)}` : '';
}

export const AGENT_CALL = {
  codexStart: (p: { root: string; model?: string; bytes: number; timeoutSec: number }) =>
    stamped('noise', `codex exec -C ${p.root} ${modelPart(p.model)} <prompt ${p.bytes} bytes> (timeout ${p.timeoutSec}s)`),
  codexComplete: (p: { rc: number; seconds: number; tokens: number; total: number }) =>
    stamped('noise', `codex complete (rc=${p.rc}, ${p.seconds}s, ${p.tokens} tokens, ${p.total} total)`),
  codexCompleteSummary: (p: { rc: number; seconds: number; tokens: number; costUsd?: number; first: number; last: number; log: string }) =>
    stampedLive('summary', `codex complete (rc=${p.rc}, ${p.seconds}s, ${p.tokens} tokens${costPart(p.costUsd)}) — log L${p.first}–L${p.last} in ${p.log}`),
  codexTimeout: (timeoutSec: number) => stamped('always', `codex timeout after ${timeoutSec}s`),

  /** `<command>` is the DDx command helix really runs (`ddx agent run` on DDx 0.6). */
  ddxRunStart: (p: { command: string; harness: string; requested: string; model?: string; bytes: number; timeoutSec: number }) =>
    stamped('noise', `${p.command} --harness ${p.harness} (requested: ${p.requested}) ${modelPart(p.model)} <prompt ${p.bytes} bytes> (timeout ${p.timeoutSec}s)`),
  ddxRunHeartbeat: (harness: string, elapsedSec: number) => stamped('noise', `${harness} still running (${elapsedSec}s elapsed)`),
  ddxRunComplete: (p: { harness: string; exit: number; seconds: number; tokens: number; costUsd: number; total: number }) =>
    stamped('noise', `${p.harness} complete (rc=${p.exit}, ${p.seconds}s, ${p.tokens} tokens, $${p.costUsd}, ${p.total} total)`),
  ddxRunCompleteSummary: (p: { harness: string; exit: number; seconds: number; tokens: number; costUsd: number; first: number; last: number; log: string }) =>
    stampedLive('summary', `${p.harness} complete (rc=${p.exit}, ${p.seconds}s, ${p.tokens} tokens, $${p.costUsd}) — log L${p.first}–L${p.last} in ${p.log}`),

  claudeStart: (p: { model?: string; timeoutSec: number }) => stamped('noise', `claude -p --no-session-persistence ${modelPart(p.model)} (timeout ${p.timeoutSec}s)`),
  /** The prompt echoed under the claude start line, one line each (not stamped). */
  claudePromptLine: (line: string) => say('noise', `helix: │ ${line}`),
  claudePromptBytes: (bytes: number) => say('noise', `helix: └─ ${bytes} bytes`),
  claudeTimeout: (timeoutSec: number) => stamped('always', `agent timeout after ${timeoutSec}s — killing`),
  /** helix: the Bash CLI printed no completion line for a direct claude call in normal mode; helix does, as for codex. */
  claudeComplete: (p: { rc: number; seconds: number; tokens: number; costUsd?: number; total: number }) =>
    stamped('noise', `claude complete (rc=${p.rc}, ${p.seconds}s, ${p.tokens} tokens${costPart(p.costUsd)}, ${p.total} total)`),
  /** The Bash line had no tokens (it could not read them); helix reads claude's usage and cost. */
  claudeCompleteSummary: (p: { rc: number; seconds: number; tokens: number; costUsd?: number; first: number; last: number; log: string }) =>
    stampedLive('summary', `claude complete (rc=${p.rc}, ${p.seconds}s, ${p.tokens} tokens${costPart(p.costUsd)}) — log L${p.first}–L${p.last} in ${p.log}`),

  /** helix: a DDx build call or the verify command, named by its label (the harness). */
  otherComplete: (p: { label: string; rc: number; seconds: number; tokens: number; total: number }) =>
    stamped('noise', `${p.label} complete (rc=${p.rc}, ${p.seconds}s, ${p.tokens} tokens, ${p.total} total)`),
  otherCompleteSummary: (p: { label: string; rc: number; seconds: number; tokens: number; costUsd?: number; first: number; last: number; log: string }) =>
    stampedLive('summary', `${p.label} complete (rc=${p.rc}, ${p.seconds}s, ${p.tokens} tokens${costPart(p.costUsd)}) — log L${p.first}–L${p.last} in ${p.log}`),
  /** §0.4 live progress (a tool call, a thinking block, a tool result), as the agents module words it. */
  progress: (text: string) => stamped('noise', text),
  otherTimeout: (label: string, timeoutSec: number) => stamped('always', `${label} timeout after ${timeoutSec}s`),
  /** helix: a planning action removed beads: `saved` is the tracker's line (which, and where they are kept). */
  beadsRemoved: (saved: string, action: string) => `${saved}; the ${action} action rewrote the queue, the run goes on`,
};

/** Before build, check and polish on the alternate agent; before a review on the review agent. */
export const rotation = (action: 'build' | 'check' | 'polish' | 'review', agent: string) => say('noise', `helix: adversarial ${action}: switching to ${agent}`);
export const generatedContext = (file: string) => say('noise', `helix: generated context at ${file}`);
export const sessionReset = say('noise', 'helix: session reset (next cycle starts fresh)');

// ── §0.1, §0.9, §2.1, §13, §17: errors and plain answers ─────────────────────────────────────

export const unknownCommand = (name: string) => `unknown command: ${name}`;
export const unknownRunOption = (command: string, arg: string) => `unknown option for ${command}: ${arg}`;
export const titleRequired = 'tracker: title required';
export const noReadyIssues = 'no ready issues';
export const versionLine = (version: string) => `helix ${version}`;

// ── §2 `helix run` ───────────────────────────────────────────────────────────────────────────

/** What a usage or rate limit stopped, for the pause line. */
export type LimitSubject = { bead: string } | { check: true } | { again: string };

function limitOn(on: LimitSubject): string {
  if ('bead' in on) return `${on.bead} (not counted as an attempt; claim released)`;
  if ('check' in on) return 'the check (checked again after the wait)';
  return `${on.again} (run again after the wait)`;
}

export const RUN = {
  alreadyRunning: (pid: number, started: string) => `helix run: already running (pid=${pid}, started=${started || 'unknown'})`,

  // §2.3 choosing the next bead
  epicFocusChild: (epic: string, child: string) => say('narrative', `helix: epic focus: ${epic} → child ${child}`),
  /** A task whose parent is an epic focuses it (no colon after `focus`). */
  epicFocusParent: (epic: string, child: string) => say('always', `helix: epic focus ${epic} → child ${child}`),
  epicDone: (epic: string) => say('narrative', `helix: epic ${epic} has no remaining open children — closing epic`),
  epicNoneEligible: (epic: string, open: number) => say('narrative', `helix: epic ${epic} has ${open} open children but none are eligible — releasing focus`),
  attemptBackoff: (attempt: number, id: string, seconds: number) => say('narrative', `helix: attempt ${attempt} for ${id} (backoff ${seconds}s)`),
  /** helix: the backoff after the last attempt (the 4th) is said too; the bead is skipped after it. */
  lastBackoff: (id: string, attempts: number, seconds: number) => say('narrative', `helix: backoff ${seconds}s after attempt ${attempts} for ${id}, the last; then it is skipped`),
  /** helix: the backoff's summary form, so a --summary watcher knows why nothing happens for a while. */
  backoffSummary: (id: string, failed: number, seconds: number, last: boolean) =>
    stamped('summary', last ? `backoff ${seconds}s after attempt ${failed} for ${id}, the last` : `backoff ${seconds}s, then attempt ${failed + 1} for ${id}`),

  // §2.4 the cycle line (stamped)
  cycle: (ready: number, cycle: number, id: string) => stamped('terminal', `ready=${ready}, cycle=${cycle}, issue=${id}`),
  cycleBatch: (ready: number, cycle: number, ids: string[]) => stamped('terminal', `ready=${ready}, cycle=${cycle}, batch=${ids.length} issues (${ids.join(',')})`),
  cycleSummary: (ready: number, cycle: number, id: string) => stampedLive('summary', `cycle ${cycle}: ${id} (${ready} ready)`),
  cycleBatchSummary: (ready: number, cycle: number, ids: string[]) => stampedLive('summary', `cycle ${cycle}: batch ${ids.length} issues (${ids.join(',')}), ${ready} ready`),
  /** With memory on (docs/contract/cli.md §9); a narrative line in the other modes (helix). */
  injectedMemories: (cycle: number, count: number, summaryMode: boolean) => stampedLive(summaryMode ? 'summary' : 'narrative', `cycle ${cycle}: injected ${plural(count, 'memory', 'memories')}`),

  // docs/contract/bash-interface.md §2.5 dispatch
  delegatingLoop: (command: string) => say('narrative', `helix: delegating helix run build cycle to ${command}`),

  // §2.6 after a failing build call
  salvaged: (rc: number, closedBefore: number, closedAfter: number) =>
    say('narrative', `helix: agent exited ${rc} but tracker shows progress (closed ${closedBefore} → ${closedAfter}) — counting as success`),
  salvagedSummary: (cycle: number, id: string, rc: number) => stamped('summary', `cycle ${cycle}: ${id} → SALVAGED (agent rc=${rc} but issue closed)`),
  implementationFailed: (cycle: number) => say('narrative', `helix: implementation failed during cycle ${cycle} (will not count toward completed cycles)`),
  /** helix: which bead, which attempt and why, after the Bash CLI's `cycle <k>: FAILED` (every failure, not only an agent's). */
  failedSummary: (cycle: number, id: string, attempt: number, reason: string) => stamped('summary', `cycle ${cycle}: FAILED (${id} attempt ${attempt}): ${reason}`),
  blockedSummary: (id: string, attempts: number) => stamped('summary', `BLOCKED ${id} after ${attempts} attempts`),
  blocking: (id: string, attempts: number) => say('terminal', `helix: blocking ${id} after ${attempts} failed attempts`),
  blockedNonCompletingSummary: (id: string, attempts: number) => stamped('summary', `BLOCKED ${id} after ${attempts} non-completing attempts`),
  blockingNonCompleting: (id: string, attempts: number) => say('terminal', `helix: blocking ${id} after ${attempts} non-completing attempts`),
  blockingParentEpic: (epic: string, child: string) => say('narrative', `helix: blocking parent epic ${epic} due to intractable child ${child}`),

  // §2.7 after a successful build call
  drift: (id: string) => say('always', `helix: queue drift detected for ${id}; refusing stale completion`),
  driftVanished: (id: string) => say('always', `helix: queue drift detected for ${id}: issue disappeared during execution`),
  skippingAfterDrift: (id: string) => say('narrative', `helix: skipping ${id} after queue drift (continuing with next issue)`),
  promoting: (id: string, children: number) => say('narrative', `helix: promoting ${id} to epic (agent created ${plural(children, 'child', 'children')})`),
  promoteFailed: (id: string) => say('always', `helix: failed to promote ${id} to epic`),
  completeSummary: (cycle: number, id: string, done: number, attempted: number, tokens: number) =>
    stamped('summary', `cycle ${cycle}: ${id} → COMPLETE (${done}/${attempted} done, ${tokens} tokens)`),
  notCompleted: (cycle: number, completed: number) => say('narrative', `helix: cycle ${cycle} did not complete a tracked issue; completed cycles remain ${completed}`),
  maxCycles: (max: number) => say('always', `helix: reached max cycles (${max})`),

  // §2.8 the post-implementation review
  reviewFallback: (id: string, sha: string) => say('narrative', `helix: review fallback: closing_commit_sha for ${id} is unavailable locally (${sha})`),
  reviewSkipped: (scope: string, lines: number, files: number, threshold: number) =>
    say('narrative', `helix: skipping review for small change (${scope}, ${plural(lines, 'line')}, ${plural(files, 'file')} < threshold ${threshold})`),
  reviewedByDdx: (id: string) => say('narrative', `helix: skipping review of ${id}: DDx reviewed it before landing (one review per build)`),
  reviewStarting: (cycle: number, scope: string) => say('narrative', `helix: post-implementation review after cycle ${cycle} (${scope})`),
  reviewFiled: say('narrative', 'helix: review filed actionable findings as tracker issues — continuing'),
  reviewUninterpretable: (cycle: number) => say('narrative', `helix: review output was not safely interpretable after cycle ${cycle} — continuing`),
  epicReviewStarting: (epic: string, scope: string) => say('narrative', `helix: post-epic review for ${epic} (scope: ${scope})`),
  epicReviewGaps: say('narrative', 'helix: epic review found gaps — issues created, continuing'),
  epicReviewUnparseable: (rc: number) => say('narrative', `helix: epic review output not parseable (rc=${rc}), continuing`),

  // §2.10 periodic alignment
  periodicAlignment: (completed: number) => say('narrative', `helix: periodic alignment after ${plural(completed, 'cycle')}`),
  periodicAlignmentFailed: (completed: number) => say('narrative', `helix: periodic alignment failed after ${plural(completed, 'cycle')}`),

  // §2.11 queue drained
  checkFailed: say('always', 'helix: check failed after queue drain'),
  consecutiveBuilds: (n: number) => say('narrative', `helix: ${n} consecutive BUILD cycles with no selectable issues`),
  orphansFreed: (before: number, after: number) => say('always', `helix: orphan recovery freed issues (${before} → ${after} ready), retrying`),
  nothingSelectable: 'helix: no selectable issues after orphan recovery — stopping',
  drainRunning: (action: 'design' | 'polish' | 'alignment' | 'backfill') => say('narrative', `helix: queue drained, running ${action}`),
  drainFailed: (action: 'design' | 'polish' | 'backfill') => `helix: ${action} failed after queue drain`,
  postDrainAlignmentFailed: 'helix: post-drain alignment failed',
  preStopAlignment: say('narrative', 'helix: queue empty, running alignment before stopping'),
  preStopAlignmentFailed: say('always', 'helix: pre-stop alignment failed'),
  stoppingAfter: (action: string) => `helix: stopping after check returned ${action}`,
  noNextAction: 'helix: unable to determine NEXT_ACTION from check output',

  // §2.13 end of the run (the empty line before run complete is part of it)
  /** helix adds `, $<usd>` after the tokens when an agent reported a cost (claude does, codex not). */
  runComplete: (attempted: number, completed: number, skipped: number, tokens: number, costUsd?: number) =>
    `helix: ═══ run complete: ${attempted} attempted, ${completed} completed, ${skipped} skipped, ${tokens} tokens${costPart(costUsd)} ═══`,
  blockersHeader: (count: number) => `helix: BLOCKERS (${plural(count, 'issue')}):`,
  blockerReason: (id: string, reason: string) => `helix:   ${id} — ${reason}`,
  blockerTitle: (title: string) => `helix:     ${title || '?'}`,
  /** helix: after the title, why the bead's last attempt failed (one line; the report has the output). */
  blockerLastFailure: (reason: string) => `helix:     last failure: ${reason}`,
  blockerReportWritten: (file: string) => `helix: blocker report written to ${file}`,
  /** helix: the run's last line, after §2.13's: the night's page (`helix report`), beside the log. */
  runReportWritten: (file: string) => `helix: run report written to ${file}`,
  runReportFailed: (message: string) => `helix: could not write the run report: ${message}`,

  // helix: lines of cli.md's own mechanisms (verification, typed stops, batches, memory)
  runStarted: (pid: number, agent: string, path: string, log: string) => say('narrative', `helix: run started (pid=${pid}, agent=${agent}, build path=${path}, log=${log})`),
  /** After the run-started line: which DDx, and how helix drives it (agents/ddx-surface.ts words it). */
  ddxDescribed: (description: string) => say('narrative', `helix: DDx: ${description}`),
  /** An interrupt before anything was claimed or started. */
  interruptedBeforeStart: (signal: string) => `helix: interrupted by ${signal} before the run started; nothing was changed`,
  /** An error helix did not expect: its stack, since no user's mistake explains it. */
  runFailed: (detail: string) => `helix: run failed: ${detail}`,
  memoryUnavailable: (message: string) => `helix: memory unavailable (${message}); continuing without memory`,
  verifying: (command: string) => say('narrative', `helix: verifying: ${command}`),
  attemptFailedDetail: (id: string, attempt: number, detail: string) => say('narrative', `helix: ${id} attempt ${attempt} failed: ${detail}`),
  driftChanges: (changes: string[]) => say('narrative', `helix: changed: ${changes.join(', ')}`),
  salvagedVerified: (id: string) => say('narrative', `helix: ${id} SALVAGED: the agent failed but the bead is closed and verified`),
  passedOver: (id: string, reason: string) => say('narrative', `helix: skipping ${id} this pass: ${reason}`),
  checkReturned: (action: string | undefined, rc: number) => say('narrative', `helix: check returned ${action ?? 'no NEXT_ACTION'} (rc=${rc})`),
  systemicStop: (count: number, category: string, ids: string[]) =>
    `helix: stopping: SYSTEMIC_FAILURE: ${count} beads failed with "${category}" (${ids.join(', ')}); see the systemic memory (helix memory recall "${category}" --type systemic)`,
  velocityStop: (detail: string) => `helix: stopping: VELOCITY_COLLAPSE: ${detail}`,
  velocityWarning: (detail: string) => say('always', `helix: warning: velocity dropping: ${detail}`),
  batchMemberClosed: (id: string, primary: string) => say('narrative', `helix: batch member ${id} (with ${primary}) closed and verified`),
  batchMemberReleased: (id: string) => say('narrative', `helix: batch member ${id} not closed this cycle; claim released, no attempt counted`),
  /** Every mode: a batch member's failed verification is a failed attempt on it, like the primary's FAILED line. */
  batchMemberFailed: (id: string, attempt: number, detail: string) => say('always', `helix: batch member ${id} attempt ${attempt} failed: ${reasonLine(detail)}`),
  interrupted: (signal: string, released: string[]) =>
    `helix: interrupted by ${signal}${released.length === 0 ? '' : released.length === 1 ? `; claim on ${released[0]} released` : `; claims on ${released.join(', ')} released`}`,
  /** DDx reported a status helix does not know: the attempt fails, and every mode says why. */
  unknownDdxStatus: (id: string, detail: string) => say('always', `helix: ${id}: ${detail}`),
  invalidResult: (id: string, reason: string) => say('always', `helix: invalid execute-bead result for ${id}: ${reason}`),
  /** DDx kept the work aside without merging it: the bead goes back to the queue. */
  /** --jobs > 1 without current DDx (issue 32). */
  jobsNeedCurrentDdx: (jobs: number, path: string) =>
    `helix: --jobs ${jobs} needs current DDx (\`ddx try\`, v0.6.2-alpha50 or later), which builds each bead in a worktree of its own under its own lease; ${path === 'direct' ? 'without it the agents work in your checkout' : 'DDx v0.6.x builds in your checkout'}, one bead at a time. Run without --jobs. Nothing was claimed.`,
  /** --jobs > 1 where git does not ignore DDx's runtime files (measured on ae663ca012, docs/scale.md). */
  jobsNeedDdxIgnores: (jobs: number) =>
    `helix: --jobs ${jobs}: git does not ignore DDx's runtime files here (.ddx/agent-logs/ and the rest of the .gitignore \`ddx init\` writes), so each ddx try would refuse over the logs of the one beside it. Run \`ddx init\`, commit its .gitignore, and run again. Nothing was claimed.`,
  notLanded: (id: string, detail: string) => say('always', `helix: ${id} not landed: ${detail}`),
  /**
   * Work DDx landed that helix's verification then refused. helix does not revert it: the commit
   * may be pushed and built on already; the bead is reopened with the reason, so the next attempt
   * starts from the landed work and sees why it was refused.
   */
  landedButRefuted: (id: string, commit: string) =>
    say('always', `helix: ${id}: DDx landed ${commit.slice(0, 12)} before helix verified it, and verification failed: ${id} is reopened and the commit stays on the branch (\`git revert ${commit.slice(0, 12)}\` if it must go)`),
  /** Why a drain, pre-stop or periodic action failed, before the line that says it did. */
  actionDetail: (action: string, detail: string) => say('narrative', `helix: ${action}: ${detail}`),
  systemicMemory: (line: string) => `helix:   systemic: ${line}`,
  blockerReportFailed: (message: string) => `helix: could not write the blocker report: ${message}`,

  // helix: an overnight run (usage limits, budgets, parks, notifications, the event log)
  /** A build (or the check) ended on a usage or rate limit: not an attempt; the run waits until `resumeAt` (ISO, UTC). */
  limitPause: (agent: string, kind: string, on: LimitSubject, resumeAt: string, detail: string) =>
    stamped('always', `${agent} ${kind} limit on ${limitOn(on)}: waiting until ${resumeAt} — ${detail}`),
  limitResume: (agent: string, seconds: number) => stamped('always', `resuming after waiting ${Math.round(seconds)}s for the ${agent} limit`),
  limitStop: (detail: string) => `helix: stopping: LIMIT: ${detail}`,
  budgetStop: (detail: string) => `helix: stopping: BUDGET: ${detail}`,
  beadBudgetReached: (id: string, detail: string) => say('always', `helix: skipping ${id}: ${detail}`),
  /** After run complete: what the caps count, said when a call reported no cost (codex never does) or a cap is set. */
  spent: (words: string) => `helix: ${words}`,
  parked: (id: string, until: string) => say('always', `helix: parked ${id} until ${until} (work-retry-after; \`helix tracker unpark ${id}\` clears it)`),
  couldNotPark: (id: string, message: string) => say('narrative', `helix: could not park ${id}: ${message}`),
  /** Said once a run (the first failure), in every mode: no one would hear from this run otherwise. */
  notifyFailed: (why: string) => say('always', `helix: HELIX_NOTIFY: ${why}; the run goes on`),
  /** A run in a repository without beads yet: what it will do, before it does it. */
  emptyBacklog: (file: string) =>
    say('always', `helix: the backlog is empty (no beads in ${file}): this run only asks the check action what to do next and follows its answer; to have work built, create beads first (helix tracker create "<title>")`),
  eventLogFailed: (message: string) => say('narrative', `helix: could not write the event log: ${message}; the run goes on without it`),
};

// ── helix: the run's own bookkeeping (claims, notes, heartbeats, batches, memory, run-state) ──
// A write that fails here is said and the run goes on: each is repeated or repaired later (the
// next run's orphan recovery, the next attempt's notes), and none decides an outcome.

export const UPKEEP = {
  released: (id: string) => say('narrative', `helix: released claim on ${id}`),
  couldNotRelease: (id: string, message: string) => say('narrative', `helix: could not release ${id}: ${message}`),
  couldNotReopen: (id: string, message: string) => say('narrative', `helix: could not reopen ${id}: ${message}`),
  couldNotClose: (id: string, message: string) => say('narrative', `helix: could not close ${id}: ${message}`),
  /** A bead closed during an attempt of a run that died before verifying it. */
  reopenedUnverified: (id: string, pid: number) => say('always', `helix: reopened ${id}: closed during an attempt of run pid ${pid}, which ended before verifying it`),
  couldNotUpdateNotes: (id: string, message: string) => say('narrative', `helix: could not update the notes of ${id}: ${message}`),
  couldNotClear: (key: string, id: string, message: string) => say('narrative', `helix: could not clear ${key} on ${id}: ${message}`),
  couldNotCloseEpic: (id: string, message: string) => say('narrative', `helix: could not close epic ${id}: ${message}`),
  couldNotMarkBlocked: (id: string, message: string) => say('narrative', `helix: could not mark ${id} blocked: ${message}`),
  /** The tracker's own words after RUN.promoteFailed. */
  promoteFailedDetail: (message: string) => say('narrative', `helix: ${message}`),
  heartbeatLost: (id: string) => say('narrative', `helix: claim on ${id} is no longer ours; heartbeat stopped`),
  heartbeatFailed: (id: string, message: string) => say('narrative', `helix: heartbeat on ${id} failed: ${message}`),
  runStateFailed: (message: string) => say('narrative', `helix: could not write run-state: ${message}`),
  batchNotClaimed: (primary: string, message: string) => say('narrative', `helix: batch: could not claim related beads, ${primary} goes alone: ${message}`),
  batchClaimed: (ids: string[], primary: string) => say('narrative', `helix: batch: claimed ${ids.join(', ')} with ${primary}`),
  batchLeftOut: (ids: string[]) => say('narrative', `helix: batch: left out ${ids.join(', ')} (no longer open and ready)`),
  memoryInjectionSkipped: (message: string) => say('narrative', `helix: memory injection skipped: ${message}`),
  memoryFeedbackSkipped: (message: string) => say('narrative', `helix: memory feedback skipped: ${message}`),
  /** A crashed attempt's memories, told after its orphan was recovered. */
  memoriesFedBack: (count: number, id: string) => say('narrative', `helix: fed back ${plural(count, 'memory', 'memories')} of the interrupted attempt on ${id}`),
};

// ── §3 orphan recovery ───────────────────────────────────────────────────────────────────────

export const ORPHANS = {
  found: (count: number) => say('narrative', `helix: found ${count} in-progress issue(s), checking for orphans...`),
  pidAlive: (id: string, pid: number | string) => say('narrative', `helix: issue ${id} claimed by PID ${pid} which is still alive, skipping`),
  tooFresh: (id: string, age: number, threshold: number) => say('narrative', `helix: issue ${id} claimed ${age}s ago (threshold ${threshold}s), too fresh to reclaim`),
  /** helix: the claimer is gone but something it started still runs: the threshold is waited out. */
  callsAlive: (id: string, pid: number, age: number, threshold: number) =>
    say('always', `helix: issue ${id}: its claimer (pid ${pid}) is gone but a process of its agent calls still runs; left claimed until it ends or the claim is ${threshold}s old (now ${age}s)`),
  /** Printed in every mode. `<pid>` is `unknown` when the bead has none, `<age>` 0 without a timestamp. */
  /** `why`: the claimant's pid is dead, reused by another process, or its DDx lease lapsed (dead|reused|lapsed). */
  reclaiming: (id: string, age: number, pid: number | undefined, why = 'dead') => say('always', `helix: reclaiming orphaned ${id} (age=${age}s, pid=${pid ?? 'unknown'} ${why})`),
  recovered: (count: number) => say('always', `helix: recovered ${count} orphaned issue(s)`),
  /** helix: DDx's claim of a `ddx try` whose run was killed, released once nothing of that run is left. */
  ddxAttemptReleased: (id: string, ddxPid: number | undefined) =>
    say('always', `helix: released DDx's claim on ${id}: the ddx try of a killed run${ddxPid ? ` (ddx pid ${ddxPid})` : ''} is gone and nothing of that run is left`),
  /** A bead DDx landed after helix's gate passed it, whose ddx try was killed before DDx closed it (shell/recovery.ts). */
  landedTryClosed: (id: string, commit: string) =>
    say('always', `helix: closed ${id} on ${commit.slice(0, 12)}: DDx landed it after helix's gate passed it, and its ddx try was killed before closing it`),
  /** A `ddx try` that ended (a crash, a stop during helix's gate) still held its bead: released at once. */
  ddxTryClaimReleased: (id: string, ddxPid: number | undefined) =>
    say('always', `helix: released DDx's claim on ${id}: its ddx try${ddxPid ? ` (pid ${ddxPid})` : ''} ended without releasing it`),
  /** The line for each step the tracker's recovery reports. */
  of: (event: OrphanRecoveryEvent): Say => {
    switch (event.kind) {
      case 'found':
        return ORPHANS.found(event.count);
      case 'claimer-alive':
        return ORPHANS.pidAlive(event.id, event.pid);
      case 'too-fresh':
        return ORPHANS.tooFresh(event.id, event.ageSec, event.thresholdSec);
      case 'calls-alive':
        return ORPHANS.callsAlive(event.id, event.pid, event.ageSec, event.thresholdSec);
      case 'reclaimed': {
        const notes = [event.why, ...(event.aheadSec === undefined ? [] : [`claim dated ${event.aheadSec}s in the future`]), ...(event.instant ? ['no process of its agent calls left'] : [])];
        return ORPHANS.reclaiming(event.id, event.ageSec, event.pid, notes.join('; '));
      }
      case 'recovered':
        return ORPHANS.recovered(event.count);
    }
  },
};

// ── §5 `helix align` and the governing bead ─────────────────────────────────────────────────

export const GOVERNING = {
  reclaiming: (id: string, scope: string, age: number, pid: number | undefined) =>
    say('narrative', `helix: alignment bead ${id} for ${scope} is orphaned (age=${age}s, pid=${pid ?? 'unknown'}); reclaiming`),
  /** helix: what the end of an alignment did to its governing bead. */
  settled: (id: string, how: 'closed' | 'released') =>
    say('narrative', how === 'closed' ? `helix: alignment finished: closed its governing bead ${id}` : `helix: alignment did not finish: its governing bead ${id} is open again for the next one`),
  settleFailed: (id: string, message: string) => say('narrative', `helix: could not settle the governing bead ${id}: ${message}`),
  alreadyActive: (scope: string, id: string, owner: string | undefined) =>
    owner
      ? `helix: alignment already active for ${scope} under owner ${owner} (${id}); refusing duplicate dispatch`
      : `helix: alignment already active for ${scope} (${id}); refusing duplicate dispatch`,
};

// ── §6 backfill, §9 review: the trailer verdict lines (always) ──────────────────────────────

export const BACKFILL = {
  missingStatus: 'helix: backfill output missing BACKFILL_STATUS trailer',
  missingReport: 'helix: backfill output missing BACKFILL_REPORT trailer',
  reportMissing: (path: string) => `helix: declared backfill report does not exist: ${path}`,
  researchEpic: (epic: string) => `helix: research epic=${epic}`,
  report: (path: string) => `helix: backfill report=${path}`,
};

export const REVIEW = {
  missingStatus: 'helix: review output missing REVIEW_STATUS trailer',
  missingCount: 'helix: review output missing ISSUES_COUNT trailer',
  reported: (count: number, filed: number) => `helix: review reported ${count} issue(s), ${filed} filed as tracker issues`,
  // helix: the follow-up bead for findings the reviewer counted but did not file
  followUpFiled: (id: string, reviewed: string) => `helix: filed review follow-up ${id} for ${reviewed}`,
  followUpFailed: (message: string) => `helix: could not file review findings: ${message}`,
  // helix: a review of a bead at the end of its review chain files nothing more (core/review-chain.ts)
  chainEnded: (id: string, depth: number, limit: number, ineligible: string[]) =>
    `helix: review of ${id} ends its follow-up chain at depth ${depth} (limit ${limit}): findings left in its notes, no follow-up filed` +
    (ineligible.length > 0 ? `; ${ineligible.join(', ')} filed by the reviewer set execution-ineligible` : ''),
  /** The reviewed bead's notes at the end of its chain: why, then the review's answer. */
  chainEndedNote: (depth: number, limit: number, excerpt: string) =>
    `Review findings not filed: this bead is at depth ${depth} of its review chain (limit ${limit}). Review answer:\n\n${excerpt}`,
};

// ── §10 experiment, §11 build ───────────────────────────────────────────────────────────────

export const EXPERIMENT_DIRTY = [
  'helix: worktree has uncommitted changes',
  'helix: please commit your changes before starting an experiment',
  'helix: experiment needs a clean worktree to safely branch and revert',
];

/** A one-shot review or backfill whose agent failed: the action fails, whatever its trailers say. */
export const actionFailed = (action: string, rc: number) => `helix: ${action} failed (rc=${rc})`;

export const BUILD = {
  noMatch: 'helix: no execution-ready bead matched the build selector',
  /** `<command>` is the DDx build command helix runs (`ddx agent execute-bead` on DDx 0.6). */
  delegating: (command: string, id: string) => say('narrative', `helix: delegating helix build to ${command} for ${id}`),
  /** The id shown by `build --dry-run` when nothing is ready. */
  placeholderId: '<ready-bead>',
  // helix: `helix build` owns claim and close (cli.md), so it says when the pass did not complete
  notCompleted: (id: string, detail: string) => `helix: build of ${id} did not complete: ${detail}`,
  /** helix: the build ran into a usage or rate limit: not an attempt, the claim released (exit 20). */
  limited: (id: string, detail: string) => `helix: build of ${id} not attempted (claim released): ${detail}`,
  /** helix: a build holds the run mutex like a run (exit 2); `running` is the mutex's own line. */
  runActive: (running: string) => `helix build: not started: ${running}; wait for it, or end it with helix stop`,
};

// ── §16 start / stop ─────────────────────────────────────────────────────────────────────────

export const BACKGROUND = {
  alreadyActive: (pid: number) => `helix: run already active (pid=${pid}). Use 'helix stop' first.`,
  started: (pid: number, log: string) => `helix: started (pid=${pid}, log=${log})`,
  noPidFile: 'helix: no active run (no PID file)',
  stalePidFile: (pid: number) => `helix: stale PID file removed (pid=${pid} was not running)`,
  stopped: (pid: number) => `helix: stopped (pid=${pid})`,
  // helix: the background run died before it wrote its pid file
  exitedAtOnce: (file: string) => `helix: background run exited at once; see ${file}`,
  // helix start got SIGTERM (helix stop) or SIGINT while the run was still starting
  stoppedWhileStarting: (pid: number | undefined) =>
    pid === undefined ? 'helix: stopped before the background run started; nothing was started' : `helix: stopped while starting (pid=${pid})`,
};

// ── helix: verified before it lands (current DDx's pre-merge check; docs/ddx.md) ─────────────

export const GATE = {
  /** The gate's one line on its stderr (DDx keeps the tail of it in the bead's `pre_merge_check_failed` event). */
  verdict: (id: string, status: string, message: string) => `helix gate: ${id}: ${status}: ${message}`,
  /** `helix gate` run without DDx's check environment: nothing to answer, nothing written (exit 7). */
  notUnderDdx: 'helix gate: EVIDENCE_DIR and CHECK_NAME are not set: helix gate runs as DDx\'s pre-merge check (docs/ddx.md#verified-before-it-lands); nothing was checked',
  /** The gate could not run its verification (infra): DDx landed the attempt; helix verifies it after landing. */
  notVerifiedBeforeLanding: (id: string, message: string) => say('always', `helix: ${id} was not verified before landing (${message}); helix verifies it after landing`),
  /** An earlier attempt no gate passed (its ddx try killed during the gate, its review malfunctioned) that DDx would land unchecked, taken back. */
  rejectedDangling: (id: string, rev: string) =>
    say('always', `helix: ${id}: DDx would land ${rev.slice(0, 12)}, an earlier attempt no gate passed, unchecked; marked it preserved-result-rejected, so DDx runs a new, checked attempt`),
  couldNotReject: (id: string, rev: string, why: string) =>
    say('always', `helix: ${id}: could not mark ${rev.slice(0, 12)} preserved-result-rejected (${why}): DDx may land it unchecked; helix verifies it after landing`),
  /** A bead DDx landed and closed whose run ended before verifying it after landing: verified now. */
  verifyingLanded: (id: string, command: string) => say('always', `helix: ${id}: DDx landed and closed it, and its run ended before helix verified it after landing: verifying now: ${command}`),
  /** That verification refused it: reopened with the reason, the commit stays. */
  landedRefusedLater: (id: string, detail: string) => say('always', `helix: ${id}: verification failed after landing: ${detail}; ${id} is reopened and the commit stays on the branch`),
};
