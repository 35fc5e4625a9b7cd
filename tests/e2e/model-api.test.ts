// tests/e2e/model-api.ts is what the REAL codex and claude CLIs talk to in `npm run test:agents`
// and `npm run test:first-night`. `npm test` loads it and has it answer one main request of each
// API, so a break in it shows here and not only in the lanes that need the CLIs installed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelApi } from './model-api.js';

let api: ModelApi;
beforeAll(async () => {
  api = await ModelApi.start();
});
afterAll(async () => {
  await api.close();
});

/** The server-sent event names of a streamed answer, in order. */
async function eventNames(response: Response): Promise<string[]> {
  const text = await response.text();
  return [...text.matchAll(/^event: (\S+)$/gm)].map((m) => m[1] as string);
}

describe('the model API stand-in the real CLIs talk to', () => {
  it('answers the connectivity probe claude makes', async () => {
    expect((await fetch(api.origin, { method: 'HEAD' })).status).toBe(200);
  });

  it('streams an Anthropic Messages answer to a main request and records its usage', async () => {
    api.script('anthropic', [{ text: 'done' }]);
    const response = await fetch(`${api.origin}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-x', stream: true, tools: [{ name: 'Bash' }], messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBe(200);
    expect(await eventNames(response)).toEqual(['message_start', 'content_block_start', 'ping', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(api.mainRequests('anthropic')).toHaveLength(1);
    expect(api.remaining('anthropic')).toBe(0);
  });

  it('streams an OpenAI Responses answer to a main request', async () => {
    api.script('openai', [{ text: 'done' }]);
    const response = await fetch(`${api.origin}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-x', stream: true, tools: [{ type: 'function', name: 'exec_command' }], input: [] }),
    });
    expect(response.status).toBe(200);
    const names = await eventNames(response);
    expect(names[0]).toBe('response.created');
    expect(names.at(-1)).toBe('response.completed');
    expect(api.usageSent('openai').input).toBeGreaterThan(0);
  });
});
