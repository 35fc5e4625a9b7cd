// The JSON result of `ddx agent execute-bead --json` (contract §8): found in the output after any
// advisory lines, validated field by field, unknown fields dropped. Three answers, never a throw:
// a result, `undefined` when there is no JSON at all (an older DDx or a wrapper: the supervisor
// then judges from the tracker and exit code), or an InvalidExecuteBeadResult it can report.
import { excerptOf, findJsonDocument } from './json-in-output.js';

export const EXECUTE_BEAD_OUTCOMES = ['merged', 'preserved', 'no-changes', 'error'] as const;
export const EXECUTE_BEAD_STATUSES = [
  'success',
  'no_changes',
  'execution_failed',
  'land_conflict',
  'post_run_check_failed',
  'structural_validation_failed',
] as const;

export type ExecuteBeadOutcome = (typeof EXECUTE_BEAD_OUTCOMES)[number];
export type ExecuteBeadStatus = (typeof EXECUTE_BEAD_STATUSES)[number];

/** The fields of contract §8, with DDx's own snake_case names. Absent or null → undefined. */
export interface ExecuteBeadResult {
  bead_id: string;
  outcome: ExecuteBeadOutcome;
  status: ExecuteBeadStatus;
  base_rev?: string;
  result_rev?: string;
  detail?: string;
  preserve_ref?: string;
  session_id?: string;
  duration_ms?: number;
  tokens?: number;
  cost_usd?: number;
  exit_code?: number;
}

/** JSON was printed but it is not a usable result (garbage, wrong shape, unknown status …). */
export interface InvalidExecuteBeadResult {
  invalid: true;
  /** One line saying what is wrong, for the supervisor's log and summary. */
  reason: string;
  /** The start of the offending text, whitespace flattened. */
  excerpt: string;
}

export function isInvalidExecuteBeadResult(
  value: ExecuteBeadResult | InvalidExecuteBeadResult | undefined,
): value is InvalidExecuteBeadResult {
  return value !== undefined && 'invalid' in value;
}

const STRING_FIELDS = ['base_rev', 'result_rev', 'detail', 'preserve_ref', 'session_id'] as const;
const NUMBER_FIELDS = ['duration_ms', 'tokens', 'cost_usd', 'exit_code'] as const;

/**
 * Parses execute-bead's output (pass the stdout; combined output works when stderr has no JSON).
 * A JSON array of results yields the one for `expectedBeadId` when given, else the last.
 */
export function parseExecuteBeadResult(
  output: string,
  expectedBeadId?: string,
): ExecuteBeadResult | InvalidExecuteBeadResult | undefined {
  const found = findJsonDocument(output);
  if (found.kind === 'none') return undefined;
  if (found.kind === 'garbage') return { invalid: true, reason: found.reason, excerpt: found.excerpt };
  let value = found.value;
  if (Array.isArray(value)) {
    const matching = expectedBeadId ? value.filter((v) => isRecord(v) && v.bead_id === expectedBeadId) : value;
    value = matching[matching.length - 1];
  }
  return validateResult(value, excerptOf(JSON.stringify(found.value) ?? ''));
}

function validateResult(value: unknown, excerpt: string): ExecuteBeadResult | InvalidExecuteBeadResult {
  const invalid = (reason: string): InvalidExecuteBeadResult => ({ invalid: true, reason, excerpt });
  if (!isRecord(value)) return invalid('execute-bead result is not a JSON object');
  if (typeof value.bead_id !== 'string' || value.bead_id === '') return invalid('execute-bead result has no bead_id');
  if (!includes(EXECUTE_BEAD_STATUSES, value.status)) {
    return invalid(`execute-bead result has an unknown status: ${JSON.stringify(value.status)}`);
  }
  if (!includes(EXECUTE_BEAD_OUTCOMES, value.outcome)) {
    return invalid(`execute-bead result has an unknown outcome: ${JSON.stringify(value.outcome)}`);
  }
  const result: ExecuteBeadResult = { bead_id: value.bead_id, outcome: value.outcome, status: value.status };
  for (const key of STRING_FIELDS) {
    const field = value[key];
    if (field === undefined || field === null) continue;
    if (typeof field !== 'string') return invalid(`execute-bead result field ${key} is not a string`);
    result[key] = field;
  }
  for (const key of NUMBER_FIELDS) {
    const field = value[key];
    if (field === undefined || field === null) continue;
    if (typeof field !== 'number' || !Number.isFinite(field)) return invalid(`execute-bead result field ${key} is not a number`);
    result[key] = field;
  }
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function includes<T extends string>(list: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (list as readonly string[]).includes(value);
}
