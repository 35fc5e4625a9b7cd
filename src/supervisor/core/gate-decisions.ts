// Verified before it lands (docs/ddx.md#verified-before-it-lands), the decisions: on current DDx
// helix's verification runs as a pre-merge check that helix installs (`.ddx/checks/helix-verify.yaml`)
// and `helix gate` answers. DDx runs it after the attempt, before landing, and preserves the attempt
// instead of landing it when the gate says `block`. What the check file says, which installed
// dependencies the gate's own worktree borrows from the project, what the gate answers DDx, and
// how helix reads the answer back as the attempt's reason. No I/O: shell/gate.ts (the gate) and
// shell/gate-check.ts (helix's side around `ddx try`) perform it.
import { join } from 'node:path';
import type { ExecuteBeadResult } from '../../agents/execute-bead-result.js';
import { verificationOf } from './verification.js';

/** The check's name: DDx reads the verdict from `$EVIDENCE_DIR/helix-verify.json`. */
export const GATE_CHECK_NAME = 'helix-verify';
/** Where DDx loads pre-merge checks from (ae663ca012 cli/internal/checks/loader.go), relative to the project root. */
export const GATE_CHECK_FILE = '.ddx/checks/helix-verify.yaml';
/** The check file's first line: helix removes and rewrites only a file that starts with it. */
export const GATE_CHECK_MARKER = '# helix: verification before DDx lands an attempt (docs/ddx.md#verified-before-it-lands)';

/**
 * The top-level folders of the project root the gate's worktree links, when git ignores them there
 * and the attempt's tree has none: where package managers install dependencies (npm, pip/uv, poetry,
 * composer, bundler). Nothing else is shared — a build output (dist, target) is rebuilt in the
 * gate's tree, so a verification that builds never writes the user's checkout.
 */
export const DEPENDENCY_FOLDERS: readonly string[] = ['node_modules', '.venv', 'venv', 'vendor'];

/** What DDx reads back (ae663ca012 checks/runner.go): pass and infra land, block (and anything else) preserves. */
export type GateStatus = 'pass' | 'block' | 'infra';

export interface GateVerdict {
  status: GateStatus;
  message: string;
}

/** What the gate leaves for helix (`.helix/gate/<bead>.json`): the verdict on one attempt's tree. */
export interface GateRecord extends GateVerdict {
  bead: string;
  /** The attempt's result the verdict is about (DDx's DIFF_HEAD, `ddx try`'s `result_rev`). */
  diff_head: string;
  /** The verify command that ran, and the last lines of its output (a block). */
  command?: string;
  output?: string[];
}

/** Where the gate leaves its record for helix: `.helix/gate/<bead>.json` (an id names a file here, never a path). */
export function gateRecordPath(root: string, beadId: string): string {
  return join(root, '.helix', 'gate', `${beadId.replace(/[^A-Za-z0-9._-]/g, '_')}.json`);
}

/**
 * Where a running gate leaves its pid (`.helix/gate/<bead>.pid`), written when it starts: helix,
 * stopping a `ddx try`, reads it to tell whether the attempt's gate has started, stops that gate
 * first and waits for it to end before DDx hears the stop (shell/gate-check.ts stopTryAfterGate).
 */
export function gatePidPath(root: string, beadId: string): string {
  return gateRecordPath(root, beadId).replace(/\.json$/, '.pid');
}

/**
 * How a `ddx try` is stopped (abort, timeout) without letting DDx land what no gate passed. DDx,
 * cancelled (SIGINT, SIGTERM), kills a check that runs and counts it `infra`, counts a check it had
 * not started yet `infra` too, and lands (ae663ca012 checks/runner.go exec.CommandContext,
 * try.go SubmitWithPreMergeChecks; measured). So DDx may hear SIGTERM only once the attempt's gate
 * has answered and ended: then DDx lands a pass or keeps a block, as without the stop. Before its
 * gate has started, DDx is killed outright — it lands nothing; the next run releases its claim and
 * rejects the result it left (docs/ddx.md "Signals and killed attempts").
 */
export type TryStop = { first: 'SIGKILL' } | { first: 'SIGTERM'; afterGate: number };

export function tryStopOf(gatePid: number | undefined): TryStop {
  return gatePid === undefined ? { first: 'SIGKILL' } : { first: 'SIGTERM', afterGate: gatePid };
}

/** A word for `sh`: single-quoted, a quote inside closed, escaped and reopened. */
export function shellWord(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * The check's command: `node <helix launcher> gate` by absolute paths (DDx's PATH need not hold
 * helix, and a 127 would be `error`, which blocks every attempt). Should that helix be gone
 * (uninstalled, moved) while the file is still here, the command answers `infra` itself: the
 * attempt lands unchecked, as it would without the check, and helix's verification after landing
 * still judges it. `events`: the run's event log (`helix run`), where the gate appends its `phase`
 * and `gate` events (docs/events.md) — DDx writes its own summary over run-state, so the path comes
 * with the command.
 */
export function gateCommand(node: string, launcher: string, events?: string): string {
  const infra = JSON.stringify({ status: 'infra', message: 'the helix that installed this check is gone: not verified before landing' });
  const eventsArgs = events ? ` --events ${shellWord(events)}` : '';
  return `if [ -x ${shellWord(node)} ] && [ -f ${shellWord(launcher)} ]; then exec ${shellWord(node)} ${shellWord(launcher)} gate${eventsArgs}; else printf '%s\\n' ${shellWord(infra)} > "$EVIDENCE_DIR/$CHECK_NAME.json"; fi`;
}

/**
 * The check file. DDx's loader knows the keys name, command, when and applies_to and refuses any
 * other (a refused file blocks every land); the command is a YAML double-quoted scalar (JSON's
 * string syntax is YAML's), so no quote or colon in a path can break the file.
 */
export function gateCheckYaml(node: string, launcher: string, events?: string): string {
  return [
    GATE_CHECK_MARKER,
    '# helix writes this file before each `ddx try` of a run and removes it when the run ends;',
    '# .git/info/exclude keeps it out of your history and out of DDx\'s uncommitted-changes check.',
    `name: ${GATE_CHECK_NAME}`,
    'when: pre_merge',
    `command: ${JSON.stringify(gateCommand(node, launcher, events))}`,
    '',
  ].join('\n');
}

/** Each name of DEPENDENCY_FOLDERS that the gate links: a folder in the project root that git ignores, absent from the attempt's tree. */
export function dependencyLinks(project: { isIgnoredFolder(name: string): boolean }, tree: { has(name: string): boolean }): string[] {
  return DEPENDENCY_FOLDERS.filter((name) => project.isIgnoredFolder(name) && !tree.has(name));
}

/** The gate's verdict on a verify run in the attempt's tree: judged as helix's own verification is (verification.ts). */
export function verdictOfRun(bead: string, diffHead: string, command: string, run: { exitCode: number; timedOut: boolean; output: string }): GateRecord {
  const verification = verificationOf(command, run);
  return { bead, diff_head: diffHead, status: verification.passed ? 'pass' : 'block', message: verification.detail, command, ...(verification.output?.length ? { output: verification.output } : {}) };
}

/**
 * A failure of the gate itself (no DIFF_HEAD, the bead unreadable, git refusing the worktree) is
 * `infra`: DDx lands the attempt and helix's verification after landing judges it, as without the
 * gate. `error` would block — and a broken gate would then fail every attempt of every bead,
 * counted against beads that did nothing wrong.
 */
export function gateInfra(bead: string, diffHead: string, what: string): GateRecord {
  return { bead, diff_head: diffHead, status: 'infra', message: `helix gate could not verify: ${what}` };
}

/**
 * A gate stopped by a signal before its verification ended (`helix stop`, the run's end) blocks:
 * `infra` would let DDx land work nobody verified, and the run that would verify it after landing
 * is the one stopping (measured on ae663ca012: the attempt landed).
 */
export function gateStopped(bead: string, diffHead: string): GateRecord {
  return { bead, diff_head: diffHead, status: 'block', message: 'helix gate was stopped before it verified: not landed unverified' };
}

/** The file DDx reads: status and message only (its `violations` list is optional). */
export function verdictJson(record: GateVerdict): string {
  return `${JSON.stringify({ status: record.status, message: record.message })}\n`;
}

/** Reads a record the gate left, or undefined when it is not one. */
export function parseGateRecord(text: string): GateRecord | undefined {
  try {
    const value = JSON.parse(text) as Partial<GateRecord>;
    if (typeof value.bead !== 'string' || typeof value.diff_head !== 'string' || typeof value.message !== 'string') return undefined;
    if (value.status !== 'pass' && value.status !== 'block' && value.status !== 'infra') return undefined;
    const output = Array.isArray(value.output) ? value.output.filter((l): l is string => typeof l === 'string') : undefined;
    return { bead: value.bead, diff_head: value.diff_head, status: value.status, message: value.message, ...(typeof value.command === 'string' ? { command: value.command } : {}), ...(output ? { output } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * The attempt DDx preserved because helix's gate blocked it, as helix's failed attempt: the reason
 * is the verification's (it reaches the bead's notes, so the next attempt sees it), and the work
 * stays under DDx's preserve ref, never on the branch. Undefined when the result is not that block
 * (another check of the project's blocked it, or the gate left no record about this result).
 */
export function gateRefusal(result: ExecuteBeadResult, record: GateRecord | undefined): { detail: string; output?: string[] } | undefined {
  if (result.status !== 'post_run_check_failed' || !record || record.status !== 'block') return undefined;
  if (!result.result_rev || record.diff_head !== result.result_rev) return undefined;
  const kept = result.preserve_ref ? `; DDx kept it under ${result.preserve_ref}, not landed` : '; not landed';
  return { detail: `verification failed before landing: ${record.message}${kept}`, ...(record.output?.length ? { output: record.output } : {}) };
}

/**
 * DDx's "dangling-success recovery" (ae663ca012 execute_bead_dangling_success.go) lands the newest
 * `task_succeeded` result of a bead that is not on the branch — with no pre-merge check and no
 * review — before it runs any new attempt. DDx writes that result before its review and its checks
 * run, so an attempt whose `ddx try` was killed while helix's gate ran, or whose review
 * malfunctioned, leaves one (measured). Returns the result_rev helix must reject
 * (`preserved-result-rejected`) before the next `ddx try`, or undefined: none, already rejected,
 * passed by helix's gate (its verdict is in the attempt's evidence), or already on the branch
 * (DDx then only closes the bead, and helix verifies it after landing).
 */
export function danglingToReject(
  newestSucceeded: { result_rev?: string; base_rev?: string; gatePassed?: boolean } | undefined,
  facts: { onBranch(rev: string): boolean; rejected(rev: string): boolean },
): string | undefined {
  const rev = newestSucceeded?.result_rev;
  if (!rev || rev === newestSucceeded?.base_rev || newestSucceeded?.gatePassed) return undefined;
  if (facts.rejected(rev) || facts.onBranch(rev)) return undefined;
  return rev;
}
