// The machine-readable trailer lines agents end their answers with (docs/contract/cli.md §8), in one place.
// Parse the agent's FINAL answer only (readAgentAnswer), never its transcript: a trailer the
// agent merely read — in a skill file, a test log — is not its answer. Within the answer the LAST
// valid trailer of each kind wins: trailers close an answer, and prose above them may quote one.
// Agents often decorate them as markdown (`**NEXT_ACTION:** \`BUILD\``), so `*` and backticks
// are removed before matching. A value that is followed by `|` is a prompt template echoed back
// (`NEXT_ACTION: BUILD|DESIGN|…`), not an answer, and is passed over; so are `<placeholders>`.

export const NEXT_ACTIONS = ['BUILD', 'DESIGN', 'POLISH', 'ALIGN', 'BACKFILL', 'WAIT', 'GUIDANCE', 'STOP'] as const;
export const REVIEW_STATUSES = ['CLEAN', 'ISSUES_FOUND'] as const;
export const BACKFILL_STATUSES = ['COMPLETE', 'GUIDANCE_NEEDED', 'BLOCKED'] as const;
export const PLAN_STATUSES = ['CONVERGED', 'IN_PROGRESS', 'GUIDANCE_NEEDED'] as const;
export const POLISH_STATUSES = ['CONVERGED', 'IN_PROGRESS'] as const;

export type NextAction = (typeof NEXT_ACTIONS)[number];
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];
export type BackfillStatus = (typeof BACKFILL_STATUSES)[number];
export type PlanStatus = (typeof PLAN_STATUSES)[number];
export type PolishStatus = (typeof POLISH_STATUSES)[number];

/** Everything parseTrailers found; a field is undefined when its trailer is absent. */
export interface Trailers {
  /** The LAST valid NEXT_ACTION in the answer. */
  nextAction?: NextAction;
  reviewStatus?: ReviewStatus;
  issuesCount?: number;
  findingsFiled?: number;
  backfillStatus?: BackfillStatus;
  backfillReport?: string;
  /** A bead id or the literal `none`. */
  researchEpic?: string;
  planStatus?: PlanStatus;
  polishStatus?: PolishStatus;
  /** Memory names from `UTILIZED:` lines (all lines merged, de-duplicated); undefined = no such line. */
  utilized?: string[];
  /** The text of every `LEARNED:` / `INSIGHT:` line, in order. */
  learned: string[];
}

/** Removes the markdown decoration agents put around trailers. */
export function stripMarkdown(line: string): string {
  return line.replace(/[*`]/g, '');
}

// KEY: VALUE anywhere on a (stripped) line; the key must not be the tail of a longer word.
function keyPattern(key: string, value: string): RegExp {
  return new RegExp(`(?:^|[^A-Za-z0-9_])${key}:[ \\t]*(${value})(?![A-Za-z0-9_]|[ \\t]*\\|)`, 'g');
}

const ENUM_VALUE = '[A-Z][A-Z_]*';
const COUNT_VALUE = '\\d+';
const WORD_VALUE = '[^\\s<>|][^\\s|]*';

function lastMatch<T extends string>(lines: string[], key: string, allowed: readonly T[]): T | undefined {
  const pattern = keyPattern(key, ENUM_VALUE);
  let found: T | undefined;
  for (const line of lines) {
    for (const match of line.matchAll(pattern)) {
      const value = match[1] as T;
      if (allowed.includes(value)) found = value;
    }
  }
  return found;
}

function lastValue(lines: string[], key: string, value: string): string | undefined {
  const pattern = keyPattern(key, value);
  let found: string | undefined;
  for (const line of lines) {
    for (const match of line.matchAll(pattern)) if (match[1]) found = match[1];
  }
  return found;
}

/** The last NEXT_ACTION in the answer, or undefined (the supervisor's "none found"). */
export function parseNextAction(answer: string): NextAction | undefined {
  return lastMatch(answer.split(/\r?\n/).map(stripMarkdown), 'NEXT_ACTION', NEXT_ACTIONS);
}

// LEARNED/INSIGHT and UTILIZED must start their line (after list markers and decoration), so
// prose that merely mentions them is not taken as a report.
const LEARNED_LINE = /^[\s>*_`-]*(?:LEARNED|INSIGHT)[*_`]*:[*_`]*\s*(.*)$/;
const UTILIZED_LINE = /^[\s>*_`-]*UTILIZED[*_`]*:[*_`]*\s*(.*)$/;

/** Every trailer in an agent's final answer (pass AgentRunResult.answer, never the transcript). */
export function parseTrailers(answer: string): Trailers {
  const rawLines = answer.split(/\r?\n/);
  const lines = rawLines.map(stripMarkdown);
  const count = (key: string) => {
    const value = lastValue(lines, key, COUNT_VALUE);
    return value === undefined ? undefined : Number(value);
  };
  const trailers: Trailers = {
    nextAction: lastMatch(lines, 'NEXT_ACTION', NEXT_ACTIONS),
    reviewStatus: lastMatch(lines, 'REVIEW_STATUS', REVIEW_STATUSES),
    issuesCount: count('ISSUES_COUNT'),
    findingsFiled: count('FINDINGS_FILED'),
    backfillStatus: lastMatch(lines, 'BACKFILL_STATUS', BACKFILL_STATUSES),
    backfillReport: lastValue(lines, 'BACKFILL_REPORT', WORD_VALUE),
    researchEpic: lastValue(lines, 'RESEARCH_EPIC', WORD_VALUE),
    planStatus: lastMatch(lines, 'PLAN_STATUS', PLAN_STATUSES),
    polishStatus: lastMatch(lines, 'POLISH_STATUS', POLISH_STATUSES),
    utilized: undefined,
    learned: [],
  };
  for (const raw of rawLines) {
    const learned = LEARNED_LINE.exec(raw);
    if (learned) {
      const text = unwrap(learned[1] ?? '');
      if (text) trailers.learned.push(text);
      continue;
    }
    const utilized = UTILIZED_LINE.exec(raw);
    if (utilized) {
      const names = parseNameList(utilized[1] ?? '');
      trailers.utilized = [...new Set([...(trailers.utilized ?? []), ...names])];
    }
  }
  return trailers;
}

/** `["a","b"]`, `[a, b]`, `a, b` or `none` → names. */
export function parseNameList(text: string): string[] {
  const value = unwrap(text);
  if (value.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (Array.isArray(parsed)) return parsed.filter((n): n is string => typeof n === 'string' && n.trim() !== '').map((n) => n.trim());
    } catch {
      // not JSON: read it as a bracketed comma list below
    }
  }
  const names = value
    .replace(/^\[|\]$/g, '')
    .split(',')
    .map((n) => n.trim().replace(/^["']|["']$/g, '').trim())
    .filter((n) => n !== '');
  return names.length === 1 && names[0]?.toLowerCase() === 'none' ? [] : names;
}

/** Trims whitespace and `*` decoration, and one pair of backticks wrapping the whole value. */
function unwrap(text: string): string {
  const trimmed = text.replace(/^[\s*]+|[\s*]+$/g, '');
  const wrapped = /^`([^`]*)`$/.exec(trimmed);
  return (wrapped?.[1] ?? trimmed).trim();
}
