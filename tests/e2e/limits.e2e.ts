// What the REAL claude and codex CLIs report when their model API answers with a usage or rate
// limit, and what helix reads from it (src/agents/usage-limit.ts). The stand-in (model-api.ts)
// answers with the limit responses of the real APIs (LIMITS); each test runs the CLI exactly as
// helix calls it (direct-invocations.ts, run-agent.ts) and checks both the CLI's structured events —
// the measurement docs/agent-clis.md records — and helix's reading of them. An answer that merely
// talks about limits must never count as one.
//
// claude's default retry of a 429 without a long retry-after takes about 3 minutes (10 retries);
// that one test runs only with HELIX_E2E_SLOW=1 (docs/agent-clis.md says how).
import { describe, expect, it } from 'vitest';
import { type AgentRunResult, claudeInvocation, codexInvocation, jsonEvents, runAgentInvocation, usageLimitOf } from '../../src/agents/index.js';
import { API_OF, type Agent, E2EProject, MODEL_OF, withModelApi } from './real-cli-project.js';
import { LIMITS, type ModelApi, type Step } from './model-api.js';
import { bead } from '../helpers/bead.js';

let api: ModelApi;
withModelApi((started) => {
  api = started;
});

interface Call {
  result: AgentRunResult;
  events: Record<string, unknown>[];
  /** Wall-clock bounds of the call, for resets relative to "now". */
  started: number;
  ended: number;
}

/** Runs one CLI the way helix calls it, against `steps`, with `env` on top of the project's. */
async function call(agent: Agent, steps: Step[], env: NodeJS.ProcessEnv = {}): Promise<Call> {
  const p = new E2EProject(api, agent);
  api.script(API_OF[agent], steps);
  const options = { root: p.root, prompt: 'Say hello.\n', model: MODEL_OF[agent] };
  const invocation = agent === 'claude' ? claudeInvocation(options) : codexInvocation(options);
  const started = Date.now();
  const result = await runAgentInvocation(invocation, { env: { ...p.env, ...env }, timeoutMs: 600_000 });
  return { result, events: jsonEvents(result.stdout), started, ended: Date.now() };
}

const limitOf = (agent: Agent, c: Call, now = new Date(c.ended)) => usageLimitOf(agent === 'claude' ? 'claude-stream-json' : 'codex-json', c.result.stdout, now);
const ofType = (c: Call, type: string) => c.events.filter((e) => e.type === type);
const lastResult = (c: Call) => ofType(c, 'result').pop() ?? {};
const failedMessage = (c: Call) => String(((ofType(c, 'turn.failed').pop()?.error ?? {}) as { message?: string }).message);
/** A time on a whole second (what the APIs send), an hour or more ahead. */
const ahead = (seconds: number) => new Date(Math.floor(Date.now() / 1000 + seconds) * 1000);

// An answer quoting every limit text the CLIs print: it is text the model wrote, not a limit.
const TALK_OF_LIMITS = [
  "The log said: You've hit your session limit · resets 7:42pm (UTC).",
  "And: You’ve hit your usage limit. Try again at 7:41 PM. / exceeded retry limit, last status: 429 Too Many Requests",
  'API Error: Request rejected (429) · rate limit. Quota exceeded. Check your plan and billing details.',
  'NEXT_ACTION: STOP',
].join('\n');

describe('claude (real CLI) on a limit', () => {
  it('an API key over its rate limit with an hour to wait: claude gives up at once (a retry-after over 60 s), `result` is_error with api_error_status 429, no reset in the stream', async () => {
    const c = await call('claude', [{ limit: LIMITS.anthropicRateLimit(3600), times: Infinity }]);
    expect(c.result.exitCode).toBe(1);
    expect(api.mainRequests('anthropic')).toHaveLength(1);
    expect(ofType(c, 'system').filter((e) => e.subtype === 'api_retry')).toHaveLength(0);
    expect(lastResult(c)).toMatchObject({ is_error: true, api_error_status: 429 });
    expect(String(lastResult(c).result)).toContain('429');
    expect(ofType(c, 'rate_limit_event')).toHaveLength(0);
    expect(limitOf('claude', c)).toEqual({ agent: 'claude', kind: 'rate', detail: lastResult(c).result });
  });

  it('a spent subscription window (CLAUDE_CODE_OAUTH_TOKEN): no retry; `rate_limit_event` says rejected with resetsAt; helix reads the reset', async () => {
    const reset = ahead(2 * 3600);
    const c = await call('claude', [{ limit: LIMITS.anthropicSubscriptionLimit(reset), times: Infinity }], { ANTHROPIC_API_KEY: '', CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-e2e-standin' });
    expect(c.result.exitCode).toBe(1);
    expect(api.mainRequests('anthropic')).toHaveLength(1);
    expect(ofType(c, 'rate_limit_event').pop()).toMatchObject({ rate_limit_info: { status: 'rejected', resetsAt: reset.getTime() / 1000, rateLimitType: 'five_hour' } });
    expect(lastResult(c)).toMatchObject({ is_error: true, api_error_status: 429 });
    expect(String(lastResult(c).result)).toMatch(/^You've hit your (session|5-hour) limit · resets /);
    expect(limitOf('claude', c)).toEqual({ agent: 'claude', kind: 'usage', resetsAt: reset.getTime(), detail: lastResult(c).result });
  });

  it('a 429 that clears: claude retries it on its own (`api_retry`, max_retries 10) and finishes; that call hit no limit', async () => {
    const c = await call('claude', [{ limit: LIMITS.anthropicRateLimit(1) }, { text: 'Hello.\nNEXT_ACTION: STOP' }]);
    expect(c.result.exitCode).toBe(0);
    expect(ofType(c, 'system').filter((e) => e.subtype === 'api_retry')).toEqual([
      expect.objectContaining({ attempt: 1, max_retries: 10, error_status: 429, error: 'rate_limit', retry_delay_ms: expect.any(Number) }),
    ]);
    expect(lastResult(c)).toMatchObject({ is_error: false, result: 'Hello.\nNEXT_ACTION: STOP' });
    expect(limitOf('claude', c)).toBeUndefined();
  });

  it.runIf(process.env.HELIX_E2E_SLOW === '1')('a 429 without retry-after that never clears: 10 retries, about 3 minutes, then the limit', async () => {
    const c = await call('claude', [{ limit: { ...LIMITS.anthropicRateLimit(1), headers: {} }, times: Infinity }]);
    const retries = ofType(c, 'system').filter((e) => e.subtype === 'api_retry');
    expect(retries.map((e) => e.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(api.mainRequests('anthropic')).toHaveLength(11);
    const waited = retries.reduce((sum, e) => sum + Number(e.retry_delay_ms), 0);
    expect(waited).toBeGreaterThan(120_000);
    process.stdout.write(`claude retried a 429 ${retries.length} times over ${Math.round((c.ended - c.started) / 1000)}s (delays ${Math.round(waited / 1000)}s)\n`);
    expect(limitOf('claude', c)).toMatchObject({ agent: 'claude', kind: 'rate' });
  }, 420_000);
});

describe('codex (real CLI) on a limit', () => {
  it('a ChatGPT usage limit: no retry; `turn.failed` says "You’ve hit your usage limit … try again at <time>"; helix reads the reset to the minute', async () => {
    const reset = ahead(2 * 3600 + 30);
    const c = await call('codex', [{ limit: LIMITS.openaiUsageLimit(reset), times: Infinity }]);
    expect(c.result.exitCode).toBe(1);
    expect(api.mainRequests('openai')).toHaveLength(1);
    expect(failedMessage(c)).toMatch(/^You['’]ve hit your usage limit\. .*try again at (\w{3} \d{1,2}\w\w, \d{4} )?\d{1,2}:\d\d [AP]M\.$/);
    const limit = limitOf('codex', c);
    expect(limit).toMatchObject({ agent: 'codex', kind: 'usage', detail: failedMessage(c) });
    // codex prints the minute of the reset: helix takes the end of that minute
    expect(limit?.resetsAt).toBeGreaterThan(reset.getTime());
    expect(limit?.resetsAt).toBeLessThanOrEqual(reset.getTime() + 60_000);
  });

  it('a usage limit that resets on another day: codex names the date, helix reads it', async () => {
    const reset = ahead(3 * 24 * 3600);
    const c = await call('codex', [{ limit: LIMITS.openaiUsageLimit(reset), times: Infinity }]);
    expect(failedMessage(c)).toMatch(/try again at \w{3} \d{1,2}(st|nd|rd|th), \d{4} \d{1,2}:\d\d [AP]M\.$/);
    const limit = limitOf('codex', c);
    expect(limit?.resetsAt).toBeGreaterThan(reset.getTime());
    expect(limit?.resetsAt).toBeLessThanOrEqual(reset.getTime() + 60_000);
  });

  it('an API key over its rate limit: codex retries 5 times ("Reconnecting... n/5"), then "exceeded retry limit, last status: 429"; no reset', async () => {
    const c = await call('codex', [{ limit: LIMITS.openaiRateLimit(1), times: Infinity }]);
    expect(c.result.exitCode).toBe(1);
    expect(api.mainRequests('openai')).toHaveLength(6);
    expect(ofType(c, 'error').map((e) => String(e.message).replace(/ \(.*/, ''))).toEqual([1, 2, 3, 4, 5].map((n) => `Reconnecting... ${n}/5`).concat('exceeded retry limit, last status: 429 Too Many Requests, request id: req_standin_limit'));
    expect(limitOf('codex', c)).toEqual({ agent: 'codex', kind: 'rate', detail: failedMessage(c) });
  });

  it('a rate limit inside the stream (`response.failed`): codex retries 5 times, then fails with the API\'s "try again in 1s"; helix reads the reset from it', async () => {
    const c = await call('codex', [{ limit: LIMITS.openaiStreamRateLimit(1), times: Infinity }]);
    expect(api.mainRequests('openai')).toHaveLength(6);
    expect(failedMessage(c)).toMatch(/^rate limit exceeded: .*Please try again in 1s\.$/);
    const at = new Date(c.ended);
    expect(limitOf('codex', c, at)).toEqual({ agent: 'codex', kind: 'rate', resetsAt: at.getTime() + 1000, relative: true, detail: failedMessage(c) });
  });

  it('an account out of credit (insufficient_quota): no retry, "Quota exceeded."; a limit without a reset', async () => {
    const c = await call('codex', [{ limit: LIMITS.openaiQuota(), times: Infinity }]);
    expect(api.mainRequests('openai')).toHaveLength(1);
    expect(failedMessage(c)).toBe('Quota exceeded. Check your plan and billing details.');
    expect(limitOf('codex', c)).toEqual({ agent: 'codex', kind: 'quota', detail: failedMessage(c) });
  });

  it('a 429 that clears: codex retries ("Reconnecting... 1/5") and finishes; that call hit no limit', async () => {
    const c = await call('codex', [{ limit: LIMITS.openaiRateLimit(1) }, { text: 'Hello.\nNEXT_ACTION: STOP' }]);
    expect(c.result.exitCode).toBe(0);
    expect(ofType(c, 'error').map((e) => String(e.message))).toEqual([expect.stringMatching(/^Reconnecting\.\.\. 1\/5 \(exceeded retry limit, last status: 429/)]);
    expect(ofType(c, 'turn.failed')).toHaveLength(0);
    expect(limitOf('codex', c)).toBeUndefined();
  });
});

describe('an answer that talks about limits (real CLIs)', () => {
  it.each(['claude', 'codex'] as const)('%s: quoting every limit text is not a limit', async (agent) => {
    const c = await call(agent, [{ text: TALK_OF_LIMITS }]);
    expect(c.result.exitCode).toBe(0);
    expect(c.result.answer).toBe(TALK_OF_LIMITS);
    expect(limitOf(agent, c)).toBeUndefined();
  });
});

describe('helix run on a limit (real CLIs through bin/helix)', () => {
  it('codex: a rate limit inside the stream ("try again in 1s") is waited out and the bead is then built — one attempt, no failure', async () => {
    const id = 'hx-e2e0a001';
    const p = new E2EProject(api, 'codex', { beads: [bead({ id, title: 'Close me' })] });
    api.script(API_OF.codex, [
      // codex retries 5 times, then gives up with the API's words: six answers
      { limit: LIMITS.openaiStreamRateLimit(1), times: 6 },
      { shell: `${p.helixShim} tracker close ${id}` },
      { text: `Closed ${id}.` },
    ]);
    const r = await p.helix(['run', '--max-cycles', '1', '--no-auto-review', '--no-auto-align']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`codex rate limit on ${id} \\(not counted as an attempt; claim released\\): waiting until \\S+ — rate limit exceeded: `));
    expect(r.stderr).toMatch(/resuming after waiting \d+s for the codex limit/);
    expect(p.bead(id).status).toBe('closed');
    expect(p.runState()).toMatchObject({ attempted_cycles: 1, completed_cycles: 1 });
  });

  it('claude: a spent subscription window that resets beyond --max-wait stops the run at once (exit 20); the bead is as it was', async () => {
    const id = 'hx-e2e0a002';
    const p = new E2EProject(api, 'claude', { beads: [bead({ id, title: 'Not tonight' })], env: { ANTHROPIC_API_KEY: '', CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-e2e-standin' } });
    api.script(API_OF.claude, [{ limit: LIMITS.anthropicSubscriptionLimit(ahead(2 * 3600)), times: Infinity }]);
    const r = await p.helix(['run', '--no-auto-review', '--no-auto-align', '--max-wait', '1h']);
    expect(r.status, r.stderr).toBe(20);
    expect(r.stderr).toMatch(/^helix: stopping: LIMIT: claude usage limit: it resets at \S+, beyond --max-wait 1h /m);
    const b = p.bead(id);
    expect(b.status).toBe('open');
    expect(b.labels ?? []).not.toContain('blocked');
    expect(b).not.toHaveProperty('claimed-pid');
    expect(p.runState()).toMatchObject({ stop_reason: 'limit', attempted_cycles: 0 });
  });
});
