// Limit detection from structured output only (src/agents/usage-limit.ts). The fixtures are
// verbatim stdout of the real CLIs answering the model stand-in's limit responses
// (tests/e2e/model-api.ts LIMITS): claude 2.1.197 and 2.1.332 with an API key (429, retry-after
// 3600) and with a subscription token (a rejected 5-hour window), codex 0.171.0 on a ChatGPT usage
// limit (captured with TZ=UTC) and on an API rate limit. tests/e2e/limits.e2e.ts runs the same
// cases live, for both CLIs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeUsageLimit, codexResetTime, codexUsageLimit, ddxUsageLimit, jsonEvents, usageLimitOf } from '../../src/agents/index.js';

// codex prints its reset in local time; the fixture was captured in UTC
process.env.TZ = 'UTC';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8');
const events = (name: string) => jsonEvents(fixture(name));
const line = (value: unknown) => `${JSON.stringify(value)}\n`;

describe('claude', () => {
  for (const version of ['2.1.197', '2.1.332']) {
    it(`${version}, API key: a 429 result is a rate limit without a reset`, () => {
      const limit = claudeUsageLimit(events(`claude-${version}-limit-api-key.jsonl`));
      expect(limit).toEqual({ agent: 'claude', kind: 'rate', detail: 'API Error: Request rejected (429) · This request would exceed the rate limit for your organization.' });
    });

    it(`${version}, subscription: the rejected rate_limit_event names the reset; a usage window`, () => {
      const stream = events(`claude-${version}-limit-subscription.jsonl`);
      const info = stream.find((e) => e.type === 'rate_limit_event')?.rate_limit_info as { resetsAt: number };
      const limit = claudeUsageLimit(stream);
      expect(limit).toMatchObject({ agent: 'claude', kind: 'usage', resetsAt: info.resetsAt * 1000 });
      expect(limit?.detail).toMatch(/^You've hit your (session|5-hour) limit · resets /);
    });
  }

  const result = (fields: Record<string, unknown>) => ({ type: 'result', subtype: 'success', is_error: false, result: 'ok', ...fields });
  it.each([
    ['a finished call, whatever it retried on the way', [{ type: 'system', subtype: 'api_retry', attempt: 1, error_status: 429, error: 'rate_limit' }, result({})]],
    ['an answer that quotes the limit texts', [result({ result: "You've hit your session limit · resets 7:42pm (UTC)\nAPI Error: 429 rate_limit_error" })]],
    ['an error that is not a 429 (overloaded)', [result({ is_error: true, api_error_status: 529, result: 'API Error: 529 overloaded' })]],
    ['an error without a status (a failed tool loop)', [result({ is_error: true, subtype: 'error_max_turns' })]],
    ['a rejected window the call got past (fallback)', [{ type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt: 1795722577 } }, result({})]],
    ['no result event at all (killed)', [{ type: 'assistant', message: { content: [{ type: 'text', text: 'rate limit' }] } }]],
  ])('no limit: %s', (_name, stream) => {
    expect(claudeUsageLimit(stream as Record<string, unknown>[])).toBeUndefined();
  });

  it('2.1.332 says api_error: usage_limit_reached: a usage window even without a rate_limit_event', () => {
    expect(claudeUsageLimit([result({ is_error: true, api_error_status: 429, api_error: 'usage_limit_reached', result: "You've hit your limit" })])).toEqual({ agent: 'claude', kind: 'usage', detail: "You've hit your limit" });
  });
});

describe('codex', () => {
  const failed = (message: string) => [{ type: 'turn.started' }, { type: 'error', message }, { type: 'turn.failed', error: { message } }];
  const now = new Date('2026-11-26T18:49:12Z');

  it('0.171.0, ChatGPT usage limit: the reset is read from "try again at 7:49 PM" (today, local time), to the end of that minute', () => {
    expect(codexUsageLimit(events('codex-0.171.0-limit-usage.jsonl'), now)).toMatchObject({ agent: 'codex', kind: 'usage', resetsAt: Date.parse('2026-11-26T19:50:00Z') });
  });

  it('0.171.0, API rate limit: the failure after 5 reconnects is a rate limit without a reset', () => {
    expect(codexUsageLimit(events('codex-0.171.0-limit-rate.jsonl'), now)).toEqual({ agent: 'codex', kind: 'rate', detail: 'exceeded retry limit, last status: 429 Too Many Requests, request id: req_standin' });
  });

  it.each([
    ["You've hit your usage limit. Try again at Nov 29th, 2026 7:41 PM.", 'usage', '2026-11-29T19:42:00Z'],
    ["You’ve hit your usage limit. Try again at Dec 1st, 2026 12:05 AM.", 'usage', '2026-12-01T00:06:00Z'],
    ["You've hit your usage limit. To get more access now, send a request to your admin or try again at 12:30 PM.", 'usage', '2026-11-26T12:31:00Z'],
    ["You've hit your usage limit for gpt-5.2-codex. Switch to another model now, or try again later.", 'usage', undefined],
    ['rate limit exceeded: Rate limit reached on tokens per min (TPM). Please try again in 1.5s.', 'rate', '2026-11-26T18:49:13.500Z'],
    ['rate limit exceeded: Please try again in 250ms.', 'rate', '2026-11-26T18:49:12.250Z'],
    ['Quota exceeded. Check your plan and billing details.', 'quota', undefined],
    ['Your workspace is out of credits. Add credits to continue.', 'quota', undefined],
    ['You hit your spend cap set in your workspace. Increase your spend cap to continue.', 'quota', undefined],
  ])('%s → %s, resets %s', (message, kind, reset) => {
    const limit = codexUsageLimit(failed(message), now);
    // a reset named relative to now ("try again in 1.5s") is marked: no clock-skew margin is added to it
    const relative = /try again in/.test(message);
    expect(limit).toEqual({ agent: 'codex', kind, detail: message, ...(reset ? { resetsAt: Date.parse(reset) } : {}), ...(relative ? { relative: true } : {}) });
  });

  it.each([
    ['a reconnect that then finished', [{ type: 'error', message: 'Reconnecting... 1/5 (exceeded retry limit, last status: 429 Too Many Requests)' }, { type: 'turn.completed', usage: {} }]],
    ['an answer quoting the limit texts', [{ type: 'item.completed', item: { type: 'agent_message', text: "You've hit your usage limit. Try again at 7:41 PM." } }, { type: 'turn.completed' }]],
    ['a command whose output quotes them', [{ type: 'item.completed', item: { type: 'command_execution', aggregated_output: 'exceeded retry limit, last status: 429', exit_code: 1 } }, { type: 'turn.completed' }]],
    ['another failure (server error)', failed("We're currently experiencing high demand, which may cause temporary errors.")],
    ['a 500 after retries', failed('exceeded retry limit, last status: 500 Internal Server Error')],
    ['usage not included in the plan (never resets)', failed('To use Codex with your ChatGPT plan, upgrade to Plus: https://chatgpt.com/explore/plus.')],
  ])('no limit: %s', (_name, stream) => {
    expect(codexUsageLimit(stream as Record<string, unknown>[], now)).toBeUndefined();
  });

  it('an unknown month or a message without a time has no reset', () => {
    expect(codexResetTime('try again at Foo 3rd, 2026 7:41 PM.', now)).toBeUndefined();
    expect(codexResetTime('try again later.', now)).toBeUndefined();
  });
});

describe('usageLimitOf: the stdout of a call, by its answer format', () => {
  it('reads claude and codex streams; a ddx call (plain stdout) is judged from its result instead', () => {
    const now = new Date();
    expect(usageLimitOf('claude-stream-json', fixture('claude-2.1.332-limit-api-key.jsonl'), now)?.agent).toBe('claude');
    expect(usageLimitOf('codex-json', fixture('codex-0.171.0-limit-rate.jsonl'), now)?.agent).toBe('codex');
    expect(usageLimitOf(undefined, fixture('codex-0.171.0-limit-rate.jsonl'), now)).toBeUndefined();
    expect(usageLimitOf('claude-stream-json', `not json\n${line({ type: 'result', is_error: false })}`, now)).toBeUndefined();
  });

  it('a transcript and an answer full of limit texts, in a call that ended well, are no limit', () => {
    const now = new Date();
    const said = "You've hit your usage limit. Try again at 7:41 PM. API Error: 429 rate_limit_error. Quota exceeded.";
    const claude = [
      { type: 'user', message: { content: [{ type: 'tool_result', content: said }] } },
      { type: 'assistant', message: { content: [{ type: 'text', text: said }] } },
      { type: 'result', subtype: 'success', is_error: false, result: said },
    ];
    const codex = [
      { type: 'item.completed', item: { type: 'command_execution', aggregated_output: said, exit_code: 0 } },
      { type: 'item.completed', item: { type: 'agent_message', text: said } },
      { type: 'turn.completed', usage: { input_tokens: 1, output_tokens: 1 } },
    ];
    expect(usageLimitOf('claude-stream-json', claude.map(line).join(''), now)).toBeUndefined();
    expect(usageLimitOf('codex-json', codex.map(line).join(''), now)).toBeUndefined();
  });
});

describe('DDx results', () => {
  it.each([
    ['current DDx, typed provider_rate_limit', { status: 'execution_failed', failure_mode: 'provider_rate_limit', detail: 'provider rate limited' }, 'rate'],
    ['current DDx, typed provider_quota (outcome_reason)', { status: 'execution_failed', outcome_reason: 'provider_quota' }, 'quota'],
    ['current DDx after its own 5-minute retry budget', { status: 'execution_failed', failure_mode: 'auth_error', detail: 'rate-limited beyond budget' }, 'rate'],
    ['DDx v0.6.1 cancelled a harness on a 429 line', { status: 'execution_failed', error: 'cancelled: auth/rate-limit detected (\\b429\\b)' }, 'rate'],
    ['DDx v0.6.1 cancelled a harness on "quota exceeded"', { status: 'execution_failed', detail: 'cancelled: auth/rate-limit detected (quota exceeded)' }, 'quota'],
  ])('%s → %s', (_name, result, kind) => {
    expect(ddxUsageLimit(result)).toMatchObject({ agent: 'ddx', kind });
    expect(ddxUsageLimit(result)?.resetsAt).toBeUndefined();
  });

  it.each([
    ['auth_error alone (DDx files a wrong API key there too)', { status: 'execution_failed', failure_mode: 'auth_error', detail: 'claude: 429 rate limit' }],
    ['v0.6.1 cancelled on a 401 (auth, never resets)', { status: 'execution_failed', error: 'cancelled: auth/rate-limit detected (\\b401\\b)' }],
    ['resource_exhausted (disk or file descriptors of the execution roots)', { status: 'resource_exhausted', detail: 'resource_exhausted: execution root unhealthy' }],
    ['a detail that only mentions a rate limit', { status: 'execution_failed', detail: 'tests failed: rate limit middleware returns 500' }],
    ['success', { status: 'success', detail: 'rate-limited beyond budget? no' }],
  ])('no limit: %s', (_name, result) => {
    expect(ddxUsageLimit(result)).toBeUndefined();
  });
});
