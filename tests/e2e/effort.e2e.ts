// What the REAL claude CLI sends as `output_config.effort` for each model when asked for `--effort
// xhigh` and `--effort max` (helix passes the user's effort through unchanged). claude lowers or
// drops it for some models without saying so; docs/agent-clis.md ("Effort per model") is this
// table. codex sends `reasoning.effort` unchanged for every model name (agents.e2e.ts).
import { describe, expect, it } from 'vitest';
import { claudeInvocation, runAgentInvocation } from '../../src/agents/index.js';
import { E2EProject, withModelApi } from './real-cli-project.js';
import type { ModelApi } from './model-api.js';

let api: ModelApi;
withModelApi((started) => {
  api = started;
});

/** The effort claude sent for `model` when asked for `effort` (undefined: none sent). */
async function sentEffort(model: string, effort: string): Promise<unknown> {
  const p = new E2EProject(api, 'claude');
  api.script('anthropic', [{ text: 'NEXT_ACTION: STOP' }]);
  const result = await runAgentInvocation(claudeInvocation({ root: p.root, prompt: 'Check.\n', model, effort }), { env: p.env, timeoutMs: 120_000 });
  expect(result.exitCode).toBe(0);
  const request = api.mainRequests('anthropic')[0];
  expect(request?.body.model).toBe(model);
  return (request?.body.output_config as { effort?: string } | undefined)?.effort;
}

describe('claude (real CLI): the effort it sends per model', () => {
  it.each([
    // model                 xhigh →   max →
    ['claude-opus-4-7', 'xhigh', 'max'],
    ['claude-opus-4-6', 'high', 'max'],
    ['claude-sonnet-4-6', 'high', 'max'],
    ['claude-opus-4-5', 'high', 'high'],
    ['claude-sonnet-4-5', undefined, undefined],
    ['claude-haiku-4-5', undefined, undefined],
    ['claude-e2e-standin', 'xhigh', 'max'], // a name claude does not know: passed through
  ])('%s: xhigh → %s, max → %s', async (model, xhigh, max) => {
    expect(await sentEffort(model, 'xhigh')).toBe(xhigh);
    expect(await sentEffort(model, 'max')).toBe(max);
    expect(await sentEffort(model, 'high')).toBe(xhigh === undefined ? undefined : 'high');
  });
});
