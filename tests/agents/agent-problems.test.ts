// What a failed call's own program said (agents/agent-problems.ts, usage-limit.ts limitInText):
// the real CLIs' error texts, measured against the model stand-in (claude 2.1.332, codex 0.171.0).
import { describe, expect, it } from 'vitest';
import { ddxProblemOf, errorTextsOf, limitInText, problemIn, wallClockReset } from '../../src/agents/index.js';

describe('problemIn: a failure that is not the work', () => {
  it.each([
    ['Invalid API key · Fix external API key', 'setup', 'authentication failed'],
    ["There's an issue with the selected model (claude-sonnet-5-5). It may not exist or you may not have access to it. Run --model to pick a different model.", 'setup', 'the model is unknown or not available'],
    ['ResolveRoute: no viable routing candidate for pins harness=claude min_power=7', 'setup', 'DDx could not route to the agent'],
    ['exec: "claude": executable file not found in $PATH', 'setup', 'the agent program is not installed'],
    ['--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons', 'setup', 'claude refuses to run unattended as root without IS_SANDBOX=1'],
    ['API Error: Connection error.', 'infrastructure', 'the provider did not answer'],
    ['importing candidate: importing clone result: fatal: bad object worktrees/ddx-land-finalize-22109650/HEAD', 'infrastructure', "DDx's git work collided with a ddx try beside it"],
    ["pre-execute-bead checkpoint: syncing checkpoint index: fatal: Unable to create '/p/.git/index.lock': File exists.", 'infrastructure', "DDx's git work collided with a ddx try beside it"],
    ['land_retry: land coordination retry: land advancer: adding temp worktree at 1935ce4e5c90: git worktree add /s/.cache/ddx/ddx-land-wt-380419915', 'infrastructure', "DDx's git work collided with a ddx try beside it"],
    ['Error: offline coordination lock: timeout waiting for project lock (owner pid: unknown path: /p/.ddx/offline-coordination.lock)', 'infrastructure', "DDx's project lock stayed held"],
    ['API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', 'infrastructure', 'the provider did not answer'],
  ])('%s → %s', (text, kind, what) => {
    expect(problemIn(text)).toMatchObject({ kind, what });
  });

  it('names nothing in the work\'s own failures', () => {
    for (const text of ['tests failed: 3 of 12', 'exit status 1', 'agent exited without a commit or no_changes_rationale.txt', 'the 401 page renders wrong']) expect(problemIn(text)).toBeUndefined();
  });

  it("DDx's status and failure mode come first: review_malfunction is DDx's, harness_not_installed is setup", () => {
    expect(ddxProblemOf({ status: 'review_malfunction', detail: 'no verdict' })).toMatchObject({ kind: 'infrastructure' });
    expect(ddxProblemOf({ status: 'execution_failed', failure_mode: 'harness_not_installed', detail: 'exit status 127' })).toMatchObject({ kind: 'setup', what: 'the agent program is not installed' });
    expect(ddxProblemOf({ status: 'execution_failed', failure_mode: 'unknown', detail: 'exit status 1' })).toBeUndefined();
  });
});

describe('errorTextsOf: only what the CLI reported as its error', () => {
  it("claude: the result event with is_error; a successful answer's words are not read", () => {
    const failed = [JSON.stringify({ type: 'result', is_error: true, result: 'Invalid API key · Fix external API key' })].join('\n');
    expect(errorTextsOf('claude-stream-json', failed, '')).toEqual(['Invalid API key · Fix external API key']);
    const fine = JSON.stringify({ type: 'result', is_error: false, result: 'Fixed the Invalid API key message' });
    expect(errorTextsOf('claude-stream-json', fine, 'some stderr')).toEqual(['some stderr']);
  });

  it("codex: turn.failed's message; stderr only when nothing structured came", () => {
    const events = [JSON.stringify({ type: 'turn.failed', error: { message: 'unexpected status 401 Unauthorized: Missing bearer' } })].join('\n');
    expect(errorTextsOf('codex-json', events, 'noise')).toEqual(['unexpected status 401 Unauthorized: Missing bearer']);
  });
});

describe('limitInText: the CLI\'s own words in DDx\'s record', () => {
  const now = new Date('2026-11-28T19:51:10Z');
  it('an API key\'s 429 is a rate limit without a reset; a subscription window names its reset', () => {
    expect(limitInText('API Error: Request rejected (429) · This request would exceed the rate limit for your organization of 50 requests per minute.', now)).toEqual({
      agent: 'claude', kind: 'rate', detail: 'API Error: Request rejected (429) · This request would exceed the rate limit for your organization of 50 requests per minute.',
    });
    expect(limitInText("You've hit your 5-hour limit · resets 8:51pm (UTC)", now)).toMatchObject({ kind: 'usage', resetsAt: Date.parse('2026-11-28T20:52:00Z') });
    expect(limitInText('Claude AI usage limit reached|1795900000', now)).toMatchObject({ kind: 'usage', resetsAt: 1795900000_000 });
    expect(limitInText("You've hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), or try again at 8:49 PM.", now)).toMatchObject({ agent: 'codex', kind: 'usage' });
    // a reset named relative to now is measured on helix's own clock (a second's margin, not a minute's)
    expect(limitInText('rate limit exceeded: Rate limit reached for gpt-5 on tokens per min. Please try again in 20s.', now)).toMatchObject({ agent: 'codex', kind: 'rate', resetsAt: now.getTime() + 20_000, relative: true });
    expect(limitInText('tests failed', now)).toBeUndefined();
  });

  it('wallClockReset: the next such time in the named zone; one already past today is tomorrow', () => {
    expect(wallClockReset('3pm (Europe/Berlin)', now)).toBe(Date.parse('2026-11-29T14:01:00Z'));
    expect(wallClockReset('9:05pm (UTC)', now)).toBe(Date.parse('2026-11-28T21:06:00Z'));
    expect(wallClockReset('7am (UTC)', now)).toBe(Date.parse('2026-11-29T07:01:00Z'));
    expect(wallClockReset('8pm (Not/AZone)', now)).toBeUndefined();
  });
});

describe("DDx refusing until an operator acts (measured on ae663ca012: a lifecycle schema marker of another version)", () => {
  it('is a setup error', () => {
    expect(problemIn('Error: lifecycle_migration_required: bead: lifecycle migration required: lifecycle schema marker version 0 is older than 1')).toMatchObject({ kind: 'setup', what: 'DDx needs an operator to act first' });
  });
});
