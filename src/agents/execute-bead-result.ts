// The result of a DDx bead execution: the JSON of `ddx agent execute-bead --json` (DDx v0.6.x,
// docs/contract/cli.md §8), found in the output after any advisory lines, validated field by field, unknown
// fields dropped; or the `bead:` / `status:` lines `ddx try` prints (current DDx, which has no
// --json: cli/cmd/try.go writeTryResult). Three answers, never a throw: a result, `undefined` when
// there is none at all (an older DDx or a wrapper: the supervisor then judges from the tracker and
// exit code), or an InvalidExecuteBeadResult it can report. Status and outcome are kept as DDx
// wrote them — what they mean is ddx-outcomes.ts's business, and a status helix does not know is
// reported by its name, never refused as "invalid".
import { excerptOf, findJsonDocument } from './json-in-output.js';

/** DDx writes these as open vocabularies; see ddx-outcomes.ts for the known values per version. */
export type ExecuteBeadOutcome = string;
export type ExecuteBeadStatus = string;

/** The fields of docs/contract/cli.md §8, with DDx's own snake_case names. Absent or null → undefined. */
export interface ExecuteBeadResult {
  bead_id: string;
  /** undefined in `ddx try` output, which prints no outcome. */
  outcome?: ExecuteBeadOutcome;
  status: ExecuteBeadStatus;
  base_rev?: string;
  result_rev?: string;
  detail?: string;
  preserve_ref?: string;
  session_id?: string;
  /** The landing reason (`post-run checks failed`, `--no-merge specified`, …). */
  reason?: string;
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

const STRING_FIELDS = ['base_rev', 'result_rev', 'detail', 'preserve_ref', 'session_id', 'reason'] as const;
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
  if (typeof value.status !== 'string' || value.status === '') return invalid('execute-bead result has no status');
  if (typeof value.outcome !== 'string' || value.outcome === '') return invalid('execute-bead result has no outcome');
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

/**
 * The result block `ddx try` prints on stdout after its progress lines (try.go writeTryResult):
 * a blank line, `bead: <id>`, `status: <status>`, then optional `detail:`, `result_rev:`,
 * `preserve_ref:` … lines. The last block wins; undefined when there is none.
 */
export function parseTryResult(output: string, expectedBeadId?: string): ExecuteBeadResult | undefined {
  const lines = output.split('\n');
  let found: ExecuteBeadResult | undefined;
  for (let i = 0; i < lines.length - 1; i++) {
    const bead = /^bead: (\S+)$/.exec(lines[i] ?? '');
    const status = /^status: (\S+)$/.exec(lines[i + 1] ?? '');
    if (!bead?.[1] || !status?.[1]) continue;
    if (expectedBeadId && bead[1] !== expectedBeadId) continue;
    const result: ExecuteBeadResult = { bead_id: bead[1], status: status[1] };
    // DDx adds keys over time (ae663ca012 prints landed_branch and project_root before
    // preserve_ref): every `key: value` line belongs to the result; the known ones are read.
    for (let j = i + 2; j < lines.length; j++) {
      const line = lines[j] ?? '';
      if (!/^[a-z_]+: /.test(line)) break;
      const field = /^(detail|result_rev|preserve_ref|landed_rev|implementation_rev): (.*)$/.exec(line);
      if (!field) continue;
      const [, key, value] = field;
      if (key === 'detail') result.detail = value;
      else if (key === 'result_rev' || key === 'landed_rev') result.result_rev = value;
      else if (key === 'preserve_ref') result.preserve_ref = value;
    }
    found = result;
  }
  return found;
}
