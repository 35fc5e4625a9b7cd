// What a DDx execution result means for helix, per version. Read from DDx's source:
//   v0.6.1 (93be5c8cb2) cli/internal/agent/execute_bead_status.go ClassifyExecuteBeadStatus and
//   execute_bead_orchestrator.go LandBeadResult: outcomes merged | preserved | no-changes | error
//   (task_succeeded | task_failed | task_no_changes when landing itself failed); statuses success,
//   no_changes, already_satisfied, land_conflict, post_run_check_failed, ratchet_failed,
//   execution_failed, structural_validation_failed, review_request_changes, review_block,
//   review_malfunction. A `preserved` outcome can carry status `success` (`--no-merge specified`,
//   `no land advancer configured`): the work exists only under refs/ddx/iterations/…, it is NOT
//   on the branch.
//   current (ae663ca012) execute_bead_status.go adds land_retry, land_operator_attention,
//   push_failed, push_conflict, preserved_needs_review, no_evidence_produced, resource_exhausted,
//   declined_needs_decomposition, review_request_clarification, land_conflict_unresolvable,
//   land_conflict_operator_required, review_terminal_block, review_fixable_gap,
//   repair-cycle-exhausted; `ddx try` exits 0 for success / already_satisfied, 1 for
//   preserved_needs_review / no_changes / no_evidence_produced, 2 for anything else (try.go).
import type { ExecuteBeadResult } from './execute-bead-result.js';

export const V061_STATUSES = [
  'success', 'no_changes', 'already_satisfied', 'land_conflict', 'post_run_check_failed', 'ratchet_failed',
  'execution_failed', 'structural_validation_failed', 'review_request_changes', 'review_block', 'review_malfunction',
] as const;

export const CURRENT_STATUSES = [
  ...V061_STATUSES,
  'land_retry', 'land_operator_attention', 'push_failed', 'push_conflict', 'preserved_needs_review',
  'no_evidence_produced', 'resource_exhausted', 'declined_needs_decomposition', 'review_request_clarification',
  'land_conflict_unresolvable', 'land_conflict_operator_required', 'review_terminal_block', 'review_fixable_gap',
  'repair-cycle-exhausted',
] as const;

export const KNOWN_OUTCOMES = ['merged', 'preserved', 'no-changes', 'error', 'task_succeeded', 'task_failed', 'task_no_changes', 'task_no_evidence'] as const;

/** The agent or harness itself failed (helix counts these toward "intractable"). */
const AGENT_FAILURES = new Set(['execution_failed', 'structural_validation_failed', 'resource_exhausted']);

export type DdxVerdict =
  /** The work is on the branch: verify it, then close (or accept DDx's close). */
  | { kind: 'landed' }
  /** DDx kept the work aside, unmerged: not landed. */
  | { kind: 'preserved'; detail: string }
  /** Not done: a failed or empty attempt. */
  | { kind: 'not-landed'; agentFailed: boolean; detail: string }
  /** A status or outcome helix does not know, named as DDx wrote it: treated as not landed. */
  | { kind: 'unknown'; detail: string };

const KNOWN_STATUS = new Set<string>(CURRENT_STATUSES);
const KNOWN_OUTCOME = new Set<string>(KNOWN_OUTCOMES);

const describe = (r: ExecuteBeadResult) => `${r.status}${r.detail ? `: ${r.detail}` : ''}${r.preserve_ref ? ` (kept under ${r.preserve_ref})` : ''}`;

export function judgeDdxResult(result: ExecuteBeadResult): DdxVerdict {
  if (!KNOWN_STATUS.has(result.status)) return { kind: 'unknown', detail: `DDx status "${result.status}" is not one helix knows (${describe(result)})` };
  if (result.outcome !== undefined && !KNOWN_OUTCOME.has(result.outcome)) {
    return { kind: 'unknown', detail: `DDx outcome "${result.outcome}" is not one helix knows (status ${describe(result)})` };
  }
  if (result.outcome === 'preserved' || result.status === 'preserved_needs_review') {
    return { kind: 'preserved', detail: `DDx preserved the work without merging it (status ${describe(result)})` };
  }
  const landedOutcome = result.outcome === undefined || result.outcome === 'merged' || (result.status === 'already_satisfied' && result.outcome === 'no-changes');
  if ((result.status === 'success' || result.status === 'already_satisfied') && landedOutcome) return { kind: 'landed' };
  return { kind: 'not-landed', agentFailed: AGENT_FAILURES.has(result.status) || result.outcome === 'error', detail: describe(result) };
}
