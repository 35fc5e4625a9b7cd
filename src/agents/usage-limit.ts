// Did an agent call end on a usage or rate limit, and when does the limit reset? Read from what
// the CLI itself reports in its structured output — never from the transcript or the answer: a
// model that writes "rate limit" or "You've hit your usage limit" in its answer hit nothing (the
// same lesson as trailers). What each CLI reports was measured with the real programs against a
// model stand-in answering with the APIs' limit responses (docs/agent-clis.md, "Usage and rate
// limits"; tests/e2e/limits.e2e.ts):
//   claude (2.1.197, 2.1.332): retries a 429 itself (`system`/`api_retry` events, 10 retries by
//     default), then ends with a `result` event `is_error: true, api_error_status: 429`. Logged in
//     with a subscription, a spent usage window also emits `rate_limit_event` with
//     `rate_limit_info.status: "rejected"` and `resetsAt` (Unix seconds). An API key's 429 carries
//     no reset time in the stream.
//   codex (0.169.0, 0.171.0): `turn.failed` whose `error.message` is one of codex's own error
//     texts (codex-rs protocol/src/error.rs): "You've hit your usage limit. … try again at 7:41 PM."
//     (the reset in codex's local time, to the minute), "exceeded retry limit, last status: 429 …"
//     (after 5 retries; no reset), "rate limit exceeded: … Please try again in 1.5s." (the API's
//     stream error), "Quota exceeded. …". No structured code reaches `exec --json`.
//   DDx: a typed `failure_mode` of current DDx (provider_rate_limit, provider_quota), or its own
//     fixed texts: "rate-limited beyond budget" (current DDx retried 429s for --rate-limit-max-wait,
//     5 min) and "cancelled: auth/rate-limit detected (<pattern>)" (v0.6.1 stops a harness whose
//     stderr matched). DDx never reports a reset time. Its `resource_exhausted` is not a limit:
//     it means the execution roots (disk, file descriptors) stayed unhealthy.
// Pure functions of the collected stdout (and `now`, for relative resets).
import type { AnswerFormat } from './invocation.js';
import { jsonEvents } from './agent-output.js';
import { findJsonDocument } from './json-in-output.js';

/**
 * usage: a plan's usage window (a Claude subscription's 5-hour or weekly limit, ChatGPT's Codex
 * limit); rate: a per-minute API limit; quota: an account out of credit or over its spend cap
 * (no reset a CLI can name: someone has to add credit).
 */
export type LimitKind = 'usage' | 'rate' | 'quota';

export interface UsageLimit {
  agent: 'claude' | 'codex' | 'ddx';
  kind: LimitKind;
  /** When the limit resets (ms since the epoch), when the agent said; undefined when it did not. */
  resetsAt?: number;
  /**
   * The reset was named relative to now ("try again in 1.5s"): measured on helix's own clock, so
   * no margin for another clock or a rounded minute is needed.
   */
  relative?: true;
  /** The agent's own report, one line, for helix's line and the event log. */
  detail: string;
}

type Json = Record<string, unknown>;

/** The limit a direct codex or claude call ended on, or undefined (it ended on anything else). */
export function usageLimitOf(format: AnswerFormat | undefined, stdout: string, now: Date): UsageLimit | undefined {
  if (format === 'claude-stream-json') return claudeUsageLimit(jsonEvents(stdout));
  if (format === 'codex-json') return codexUsageLimit(jsonEvents(stdout), now);
  return undefined;
}

/**
 * claude: the final `result` event is an error with HTTP status 429. A call that retried a 429 and
 * then finished (`is_error: false`) hit no limit. A `rate_limit_event` that says `rejected` names
 * the reset and makes it a usage window (2.1.332 also says `api_error: "usage_limit_reached"`).
 */
export function claudeUsageLimit(events: Json[]): UsageLimit | undefined {
  const result = events.filter((e) => e.type === 'result').pop();
  if (!result || result.is_error !== true || result.api_error_status !== 429) return undefined;
  const rejected = events
    .filter((e) => e.type === 'rate_limit_event' && isRecord(e.rate_limit_info) && e.rate_limit_info.status === 'rejected')
    .map((e) => e.rate_limit_info as Json)
    .pop();
  const resetSeconds = rejected?.resetsAt;
  const usage = rejected !== undefined || result.api_error === 'usage_limit_reached';
  return {
    agent: 'claude',
    kind: usage ? 'usage' : 'rate',
    ...(typeof resetSeconds === 'number' && resetSeconds > 0 ? { resetsAt: resetSeconds * 1000 } : {}),
    detail: oneLine(typeof result.result === 'string' && result.result ? result.result : 'API error 429'),
  };
}

/** codex's error texts that mean a limit (codex-rs protocol/src/error.rs, as 0.169 and 0.171 print them). */
const CODEX_LIMITS: Array<{ pattern: RegExp; kind: LimitKind }> = [
  { pattern: /^You['’]ve hit your usage limit\b/, kind: 'usage' },
  { pattern: /^rate limit exceeded: /, kind: 'rate' },
  { pattern: /^exceeded retry limit, last status: 429\b/, kind: 'rate' },
  { pattern: /^Quota exceeded\. /, kind: 'quota' },
  { pattern: /^Your workspace is out of credits\b/, kind: 'quota' },
  { pattern: /^You hit your spend cap\b/, kind: 'quota' },
];

/** codex: the message of its `turn.failed` event is one of its limit texts; the reset is in the text. */
export function codexUsageLimit(events: Json[], now: Date): UsageLimit | undefined {
  const failed = events.filter((e) => e.type === 'turn.failed').pop();
  const error = failed?.error;
  const message = isRecord(error) && typeof error.message === 'string' ? error.message.trim() : '';
  return codexLimitIn(message, now);
}

/** One of codex's limit texts, with the reset it names (relative to now, or on the wall clock). */
function codexLimitIn(message: string, now: Date): UsageLimit | undefined {
  const match = CODEX_LIMITS.find((l) => l.pattern.test(message));
  if (!match) return undefined;
  const resetsAt = codexResetTime(message, now);
  const relative = resetsAt !== undefined && /try again in\s*\d/i.test(message);
  return { agent: 'codex', kind: match.kind, ...(resetsAt === undefined ? {} : { resetsAt }), ...(relative ? { relative: true as const } : {}), detail: oneLine(message) };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * The reset codex names: "try again in 1.5s" (the API's words, relative to now), or "try again at
 * 7:41 PM" (today) / "try again at Nov 29th, 2026 7:41 PM" — codex's local time, which is helix's:
 * codex inherits helix's environment (TZ included). codex drops the seconds, so the reset is taken
 * as the end of that minute.
 */
export function codexResetTime(message: string, now: Date): number | undefined {
  const relative = /try again in\s*(\d+(?:\.\d+)?)\s*(ms|s|seconds?)\b/i.exec(message);
  if (relative) return now.getTime() + Number(relative[1]) * (relative[2]?.toLowerCase() === 'ms' ? 1 : 1000);
  const at = /[Tt]ry again at (?:([A-Z][a-z]{2}) (\d{1,2})(?:st|nd|rd|th), (\d{4}) )?(\d{1,2}):(\d{2}) ([AP]M)\b/.exec(message);
  if (!at) return undefined;
  const [, month, day, year, hour, minute, half] = at;
  if (month !== undefined && !MONTHS.includes(month)) return undefined;
  const hours = (Number(hour) % 12) + (half === 'PM' ? 12 : 0);
  const date = month ? new Date(Number(year), MONTHS.indexOf(month), Number(day)) : new Date(now.getFullYear(), now.getMonth(), now.getDate());
  date.setHours(hours, Number(minute) + 1, 0, 0);
  return date.getTime();
}

/** DDx's typed failure modes that are limits (current DDx, internal/agent/provider_failure.go). */
const DDX_FAILURE_MODES: Record<string, LimitKind> = { provider_rate_limit: 'rate', provider_quota: 'quota' };
/** DDx v0.6.1's early-cancel patterns (internal/agent/executor.go) that are limits; the rest are auth. */
const DDX_CANCEL_PATTERNS: Record<string, LimitKind> = {
  '\\b429\\b': 'rate',
  'rate limit': 'rate',
  ratelimit: 'rate',
  'quota exceeded': 'quota',
  quota_exceeded: 'quota',
  'insufficient credits': 'quota',
  insufficient_credits: 'quota',
};

/**
 * DDx: its result (execute-bead's JSON, or the fields `ddx try` prints) says a limit through a
 * typed failure mode or one of its own fixed texts in `detail` / `error`. `failure_mode:
 * auth_error` is not enough: DDx files a 429 and a wrong API key under it alike, and a wrong key
 * never resets.
 */
export function ddxUsageLimit(result: Json): UsageLimit | undefined {
  if (result.status === 'success') return undefined;
  for (const key of ['failure_mode', 'outcome_reason'] as const) {
    const mode = result[key];
    const kind = typeof mode === 'string' ? DDX_FAILURE_MODES[mode] : undefined;
    if (kind) return { agent: 'ddx', kind, detail: oneLine(textOf(result) || String(mode)) };
  }
  const text = textOf(result);
  if (text.startsWith('rate-limited beyond budget')) return { agent: 'ddx', kind: 'rate', detail: oneLine(text) };
  const cancelled = /^cancelled: auth\/rate-limit detected \((.*)\)$/.exec(text);
  const kind = cancelled ? DDX_CANCEL_PATTERNS[cancelled[1] ?? ''] : undefined;
  return kind ? { agent: 'ddx', kind, detail: oneLine(text) } : undefined;
}

/** DDx's limit from a build's stdout: the JSON result execute-bead prints (the last object of an array). */
export function ddxUsageLimitOf(stdout: string): UsageLimit | undefined {
  const found = findJsonDocument(stdout);
  if (found.kind !== 'found') return undefined;
  const value = Array.isArray(found.value) ? found.value.filter(isRecord).pop() : found.value;
  return isRecord(value) ? ddxUsageLimit(value) : undefined;
}

/**
 * A limit named in a CLI's own error text, as DDx records it (DDx keeps the harness's final text,
 * not its events: docs/ddx.md "DDx's records"). claude 2.1.332 ends a limited call with
 * "API Error: Request rejected (429) · …" (an API key's rate limit, no reset) or "You've hit your
 * 5-hour limit · resets 8:36pm (UTC)" (a subscription's window, the reset in the named zone);
 * older claude releases said "Claude AI usage limit reached|<unix seconds>". codex's texts are
 * those of its `turn.failed` (CODEX_LIMITS).
 */
export function limitInText(text: string, now: Date): UsageLimit | undefined {
  const line = text.trim();
  // claude's own wording separates with " · " (codex's "You've hit your usage limit." ends the sentence)
  const window = /You['’]ve hit your (?:[\w-]+ )?limit\s*·(?:.*?resets ([^·\n]+))?/i.exec(line);
  if (window) {
    const resetsAt = window[1] ? wallClockReset(window[1].trim(), now) : undefined;
    return { agent: 'claude', kind: 'usage', ...(resetsAt !== undefined ? { resetsAt } : {}), detail: oneLine(line) };
  }
  const legacy = /Claude AI usage limit reached\|(\d{9,11})/.exec(line);
  if (legacy) return { agent: 'claude', kind: 'usage', resetsAt: Number(legacy[1]) * 1000, detail: oneLine(line) };
  if (/^API Error: (?:Request rejected )?\(?429\b/i.test(line) || /\brate_limit_error\b/.test(line)) return { agent: 'claude', kind: 'rate', detail: oneLine(line) };
  return codexLimitIn(line, now);
}

/**
 * "8:36pm (UTC)", "3pm (Europe/Berlin)", "8:36pm": the next such wall-clock time after `now` in
 * that zone (the machine's own without one), to the end of that minute.
 */
export function wallClockReset(text: string, now: Date): number | undefined {
  const match = /^(\d{1,2})(?::(\d{2}))?\s*([ap]m)(?:\s*\(([^)]+)\))?/i.exec(text);
  if (!match) return undefined;
  const hour = (Number(match[1]) % 12) + (match[3]?.toLowerCase() === 'pm' ? 12 : 0);
  const minute = Number(match[2] ?? 0);
  const zone = match[4];
  let offsetMs: number;
  try {
    offsetMs = zone ? zoneOffsetMs(zone, now) : -now.getTimezoneOffset() * 60_000;
  } catch {
    return undefined; // a zone name this Node does not know
  }
  // the wall clock in that zone now, then the next time it reads hour:minute
  const local = new Date(now.getTime() + offsetMs);
  let at = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate(), hour, minute + 1) - offsetMs;
  if (at <= now.getTime()) at += 24 * 3_600_000;
  return at;
}

/** How far a time zone's wall clock is ahead of UTC at `at`, in ms. */
function zoneOffsetMs(zone: string, at: Date): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }).formatToParts(at);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(at.getTime() / 1000) * 1000;
}

function textOf(result: Json): string {
  for (const key of ['detail', 'error'] as const) {
    const value = result[key];
    if (typeof value === 'string' && value.trim()) return value.trim();
  }
  return '';
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
