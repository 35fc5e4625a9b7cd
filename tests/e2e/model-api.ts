// A scripted stand-in of the two model APIs the real agent CLIs talk to, on 127.0.0.1, port 0:
// the OpenAI Responses API (`POST /v1/responses`, what codex 0.169 calls with `wire_api =
// "responses"`) and the Anthropic Messages API (`POST /v1/messages`, what claude 2.1 calls with
// ANTHROPIC_BASE_URL). Both stream server-sent events in the order and shape the real services
// use, so the CLIs run their real agent loop: the scripted model asks for a shell command, the CLI
// runs it and sends the output back, and the next scripted step answers.
//
// Each API has its own queue of steps; every "main" request (one that offers tools) takes the next
// step. claude also makes side requests without tools (e.g. a session title with a JSON schema):
// they are answered with a small fixed reply and take no step. Every request and the usage sent
// back are recorded, so a test can assert what reached the "model" (effort, model name, prompt)
// and that helix's token count equals what was billed.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Api = 'openai' | 'anthropic';

/** Token usage one response reports (per request; the CLIs add them up). */
export interface Usage {
  input: number;
  output: number;
  /** OpenAI: input_tokens_details.cached_tokens (part of `input`); Anthropic: cache_read_input_tokens (not part of `input`). */
  cached: number;
  /** Anthropic only: cache_creation_input_tokens. */
  cacheCreation: number;
  /** OpenAI only: output_tokens_details.reasoning_tokens (part of `output`). */
  reasoning: number;
}

/**
 * An error response the real API sends instead of a model turn: an HTTP status with its headers and
 * JSON body, or (OpenAI) a `response.failed` event inside a 200 stream. See the builders in LIMITS.
 */
export interface LimitResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
  /** OpenAI only: answer 200 and fail the stream with this `response.error` instead. */
  streamError?: { code: string; message: string };
}

type NoStep = { shell?: undefined; tool?: undefined; text?: undefined; parts?: undefined; limit?: undefined };

/**
 * One scripted model turn: a shell command (codex's `exec_command` / claude's `Bash` tool), any other
 * tool call by name (e.g. claude's `Write`), text, which ends the turn, or `parts`: a final answer
 * in several text blocks (Anthropic: text content blocks of one message; OpenAI: message items of
 * one response). A `limit` step answers the next `times` main requests (default 1; Infinity: all
 * that follow) with an error response instead of a turn.
 */
export type Step = (
  | (Omit<NoStep, 'shell'> & { shell: string })
  | (Omit<NoStep, 'tool'> & { tool: string; input: Record<string, unknown> })
  | (Omit<NoStep, 'text'> & { text: string })
  | (Omit<NoStep, 'parts'> & { parts: string[] })
  | (Omit<NoStep, 'limit'> & { limit: LimitResponse; times?: number })
) & { usage?: Partial<Usage> };

/** The text blocks of a final answer step. */
function textParts(step: Step): string[] {
  return step.parts ?? [step.text ?? ''];
}

const unixSeconds = (date: Date) => String(Math.floor(date.getTime() / 1000));

/**
 * The limit responses of the real APIs, as their documentation and the CLIs' own parsers describe
 * them (docs/agent-clis.md, "Usage and rate limits"): headers and bodies with the fields each CLI reads.
 */
export const LIMITS = {
  /** Anthropic API key over its per-minute limit: 429 `rate_limit_error`, `retry-after` seconds, `anthropic-ratelimit-*-reset` as RFC 3339. */
  anthropicRateLimit: (retryAfterSec: number, now = new Date()): LimitResponse => ({
    status: 429,
    headers: {
      'retry-after': String(retryAfterSec),
      'anthropic-ratelimit-requests-limit': '50',
      'anthropic-ratelimit-requests-remaining': '0',
      'anthropic-ratelimit-requests-reset': new Date(now.getTime() + retryAfterSec * 1000).toISOString(),
      'request-id': 'req_standin_limit',
    },
    body: { type: 'error', error: { type: 'rate_limit_error', message: 'This request would exceed the rate limit for your organization of 50 requests per minute.' } },
  }),
  /**
   * A Claude subscription's usage window spent (claude logged in with CLAUDE_CODE_OAUTH_TOKEN): 429
   * with `anthropic-ratelimit-unified-status: rejected` and the window's reset in Unix seconds.
   */
  anthropicSubscriptionLimit: (resetAt: Date): LimitResponse => ({
    status: 429,
    headers: {
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-reset': unixSeconds(resetAt),
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
      'anthropic-ratelimit-unified-5h-status': 'rejected',
      'anthropic-ratelimit-unified-5h-reset': unixSeconds(resetAt),
      'anthropic-ratelimit-unified-5h-utilization': '1.0',
      'anthropic-ratelimit-unified-fallback': 'unavailable',
      'anthropic-ratelimit-unified-overage-status': 'rejected',
      'anthropic-ratelimit-unified-overage-disabled-reason': 'org_level_disabled',
      'request-id': 'req_standin_limit',
    },
    body: { type: 'error', error: { type: 'rate_limit_error', message: "This request would exceed your account's rate limit. Please try again later." } },
  }),
  /** A ChatGPT plan's Codex usage limit: 429 `usage_limit_reached` with `resets_at`, and the `x-codex-*` window headers. */
  openaiUsageLimit: (resetAt: Date, now = new Date()): LimitResponse => {
    const inSeconds = String(Math.max(0, Math.round((resetAt.getTime() - now.getTime()) / 1000)));
    return {
      status: 429,
      headers: {
        'x-codex-primary-used-percent': '100',
        'x-codex-primary-window-minutes': '300',
        'x-codex-primary-reset-after-seconds': inSeconds,
        'x-codex-primary-reset-at': unixSeconds(resetAt),
        'x-codex-secondary-used-percent': '41',
        'x-codex-secondary-window-minutes': '10080',
        'x-request-id': 'req_standin_limit',
      },
      body: { error: { type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: 'plus', resets_at: Number(unixSeconds(resetAt)), resets_in_seconds: Number(inSeconds) } },
    };
  },
  /** An OpenAI API key over its per-minute limit: 429 `rate_limit_exceeded`, `retry-after`, `x-ratelimit-reset-requests`. */
  openaiRateLimit: (retryAfterSec: number): LimitResponse => ({
    status: 429,
    headers: {
      'retry-after': String(retryAfterSec),
      'x-ratelimit-limit-requests': '3',
      'x-ratelimit-remaining-requests': '0',
      'x-ratelimit-reset-requests': `${retryAfterSec}s`,
      'x-request-id': 'req_standin_limit',
    },
    body: { error: { type: 'requests', code: 'rate_limit_exceeded', message: `Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in ${retryAfterSec}s.`, param: null } },
  }),
  /** An OpenAI account out of credit: 429 `insufficient_quota`. */
  openaiQuota: (): LimitResponse => ({
    status: 429,
    headers: { 'x-request-id': 'req_standin_limit' },
    body: { error: { type: 'insufficient_quota', code: 'insufficient_quota', message: 'You exceeded your current quota, please check your plan and billing details.', param: null } },
  }),
  /** A token-per-minute limit reported inside the stream: `response.failed` with `rate_limit_exceeded` and "try again in". */
  openaiStreamRateLimit: (retryAfterSec: number): LimitResponse => ({
    status: 200,
    headers: {},
    body: undefined,
    streamError: { code: 'rate_limit_exceeded', message: `Rate limit reached on tokens per min (TPM): Limit 30000, Used 30000, Requested 500. Please try again in ${retryAfterSec}s.` },
  }),
};

/** The tool call a step stands for on one API, or undefined for a text step. */
function toolCall(api: Api, step: Step): { name: string; input: Record<string, unknown> } | undefined {
  if (step.limit !== undefined) return undefined;
  if (step.shell !== undefined) {
    return api === 'openai' ? { name: 'exec_command', input: { cmd: step.shell } } : { name: 'Bash', input: { command: step.shell, description: 'Run a shell command' } };
  }
  if (step.tool !== undefined) return { name: step.tool, input: step.input };
  return undefined;
}

export interface RecordedRequest {
  api: Api;
  path: string;
  /** A request that offered tools: the agent loop itself (side requests take no step). */
  main: boolean;
  body: Record<string, unknown>;
  usage: Usage;
  /** Index of the step it took (main requests only). */
  step?: number;
  /** The request was answered with a limit step's error response. */
  limited?: boolean;
}

const SIDE_USAGE: Usage = { input: 40, output: 9, cached: 0, cacheCreation: 0, reasoning: 0 };

export class ModelApi {
  readonly requests: RecordedRequest[] = [];
  private readonly steps: Record<Api, Step[]> = { openai: [], anthropic: [] };
  private readonly taken: Record<Api, number> = { openai: 0, anthropic: 0 };
  /** How many times the current limit step of each API has answered. */
  private readonly limitAnswers: Record<Api, number> = { openai: 0, anthropic: 0 };
  private server?: Server;
  private counter = 0;

  /** Starts listening on 127.0.0.1 with a port the system picks. */
  static async start(): Promise<ModelApi> {
    const api = new ModelApi();
    const server = createServer((req, res) => void api.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    api.server = server;
    return api;
  }

  get port(): number {
    return (this.server?.address() as AddressInfo).port;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Replaces the script of one API (and forgets what was recorded for it). */
  script(api: Api, steps: Step[]): void {
    this.steps[api] = steps;
    this.taken[api] = 0;
    this.limitAnswers[api] = 0;
    this.requests.splice(0, this.requests.length, ...this.requests.filter((r) => r.api !== api));
  }

  /** Main requests of one API, in arrival order. */
  mainRequests(api: Api): RecordedRequest[] {
    return this.requests.filter((r) => r.api === api && r.main);
  }

  /** Steps of the script not yet taken. */
  remaining(api: Api): number {
    return this.steps[api].length - this.taken[api];
  }

  /** Sum of the usage sent on every request of one API (main and side). */
  usageSent(api: Api): Usage {
    const sum: Usage = { input: 0, output: 0, cached: 0, cacheCreation: 0, reasoning: 0 };
    for (const r of this.requests.filter((x) => x.api === api)) {
      for (const key of Object.keys(sum) as Array<keyof Usage>) sum[key] += r.usage[key];
    }
    return sum;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const path = req.url ?? '/';
    let body: Record<string, unknown> = {};
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      return json(res, 400, { error: { type: 'invalid_request_error', message: 'body is not JSON' } });
    }
    if (req.method === 'POST' && path.startsWith('/v1/responses')) return this.openai(res, path, body);
    if (req.method === 'POST' && path.startsWith('/v1/messages/count_tokens')) return json(res, 200, { input_tokens: Math.ceil(raw.length / 4) });
    if (req.method === 'POST' && path.startsWith('/v1/messages')) return this.anthropic(res, path, body);
    // claude sends `HEAD /` as a connectivity probe; anything else is not part of the stand-in.
    if (req.method === 'HEAD') return void res.writeHead(200).end();
    json(res, 404, { error: { type: 'not_found_error', message: `stand-in: no route for ${req.method} ${path}` } });
  }

  /**
   * Takes the next step of `api`; an exhausted script answers with an error the CLI reports. A limit
   * step stays current until it has answered `times` requests.
   */
  private nextStep(api: Api): { step?: Step; index?: number } {
    const index = this.taken[api];
    const step = this.steps[api][index];
    if (!step) return {};
    if (step.limit !== undefined && ++this.limitAnswers[api] < (step.times ?? 1)) return { step, index };
    this.limitAnswers[api] = 0;
    this.taken[api]++;
    return { step, index };
  }

  /** Answers a main request with a limit step's error response (usage 0: nothing was billed). */
  private refuse(api: Api, res: ServerResponse, path: string, body: Record<string, unknown>, limit: LimitResponse, index: number | undefined): void {
    this.requests.push({ api, path, main: true, body, usage: { ...SIDE_USAGE, input: 0, output: 0 }, limited: true, ...(index === undefined ? {} : { step: index }) });
    if (limit.streamError) {
      const response = { id: `resp_standin_${++this.counter}`, object: 'response', created_at: Math.floor(Date.now() / 1000), status: 'in_progress', model: body.model, output: [] };
      const stream = sse(res);
      stream('response.created', { type: 'response.created', response });
      stream('response.failed', { type: 'response.failed', response: { ...response, status: 'failed', error: limit.streamError } });
      res.end();
      return;
    }
    res.writeHead(limit.status, { 'content-type': 'application/json', ...limit.headers });
    res.end(JSON.stringify(limit.body));
  }

  private usageFor(step: Step | undefined, fallback: Usage): Usage {
    return { ...fallback, ...(step?.usage ?? {}) };
  }

  // ── OpenAI Responses API ────────────────────────────────────────────────────────────────────

  private openai(res: ServerResponse, path: string, body: Record<string, unknown>): void {
    const main = Array.isArray(body.tools) && body.tools.length > 0;
    const { step, index } = main ? this.nextStep('openai') : { step: { text: 'ok' } as Step, index: undefined };
    if (!step) {
      this.requests.push({ api: 'openai', path, main, body, usage: { ...SIDE_USAGE, input: 0, output: 0 } });
      // 400, not 5xx: the CLIs retry server errors with backoff; a test should fail at once
      return json(res, 400, { error: { type: 'invalid_request_error', message: 'stand-in: the script has no step left' } });
    }
    if (step.limit !== undefined) return this.refuse('openai', res, path, body, step.limit, index);
    const n = ++this.counter;
    const usage = this.usageFor(step, { input: 1000 + n, output: 20 + n, cached: 100, cacheCreation: 0, reasoning: 5 });
    this.requests.push({ api: 'openai', path, main, body, usage, ...(index === undefined ? {} : { step: index }) });

    const responseId = `resp_standin_${n}`;
    const response = (status: string, output: unknown[]) => ({
      id: responseId,
      object: 'response',
      created_at: Math.floor(Date.now() / 1000),
      status,
      model: body.model,
      output,
      ...(status === 'completed'
        ? {
            usage: {
              input_tokens: usage.input,
              input_tokens_details: { cached_tokens: usage.cached },
              output_tokens: usage.output,
              output_tokens_details: { reasoning_tokens: usage.reasoning },
              total_tokens: usage.input + usage.output,
            },
          }
        : {}),
    });
    const stream = sse(res);
    stream('response.created', { type: 'response.created', response: response('in_progress', []) });
    stream('response.in_progress', { type: 'response.in_progress', response: response('in_progress', []) });
    const items: Record<string, unknown>[] = [];
    const call = toolCall('openai', step);
    if (call) {
      const args = JSON.stringify(call.input);
      const item = { id: `fc_standin_${n}`, type: 'function_call', status: 'completed', name: call.name, call_id: `call_standin_${n}`, arguments: args };
      stream('response.output_item.added', { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress', arguments: '' } });
      stream('response.function_call_arguments.delta', { type: 'response.function_call_arguments.delta', item_id: item.id, output_index: 0, delta: args });
      stream('response.function_call_arguments.done', { type: 'response.function_call_arguments.done', item_id: item.id, output_index: 0, arguments: args });
      stream('response.output_item.done', { type: 'response.output_item.done', output_index: 0, item });
      items.push(item);
    } else {
      // each part is a message item of its own, as a model that writes two messages in one response
      for (const [at, text] of textParts(step).entries()) {
        const item = { id: `msg_standin_${n}_${at}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] };
        stream('response.output_item.added', { type: 'response.output_item.added', output_index: at, item: { ...item, status: 'in_progress', content: [] } });
        stream('response.content_part.added', { type: 'response.content_part.added', item_id: item.id, output_index: at, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
        for (const delta of pieces(text)) {
          stream('response.output_text.delta', { type: 'response.output_text.delta', item_id: item.id, output_index: at, content_index: 0, delta });
        }
        stream('response.output_text.done', { type: 'response.output_text.done', item_id: item.id, output_index: at, content_index: 0, text });
        stream('response.content_part.done', { type: 'response.content_part.done', item_id: item.id, output_index: at, content_index: 0, part: { type: 'output_text', text, annotations: [] } });
        stream('response.output_item.done', { type: 'response.output_item.done', output_index: at, item });
        items.push(item);
      }
    }
    stream('response.completed', { type: 'response.completed', response: response('completed', items) });
    res.end();
  }

  // ── Anthropic Messages API ──────────────────────────────────────────────────────────────────

  private anthropic(res: ServerResponse, path: string, body: Record<string, unknown>): void {
    const main = Array.isArray(body.tools) && body.tools.length > 0;
    let step: Step | undefined;
    let index: number | undefined;
    if (main) ({ step, index } = this.nextStep('anthropic'));
    else step = { text: sideReply(body) };
    if (!step) {
      this.requests.push({ api: 'anthropic', path, main, body, usage: { ...SIDE_USAGE, input: 0, output: 0 } });
      return json(res, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'stand-in: the script has no step left' } });
    }
    if (step.limit !== undefined) return this.refuse('anthropic', res, path, body, step.limit, index);
    const n = ++this.counter;
    const usage = main ? this.usageFor(step, { input: 300 + n, output: 30 + n, cached: 200, cacheCreation: 50, reasoning: 0 }) : { ...SIDE_USAGE };
    this.requests.push({ api: 'anthropic', path, main, body, usage, ...(index === undefined ? {} : { step: index }) });

    const model = typeof body.model === 'string' ? body.model : 'claude-standin';
    const startUsage = { input_tokens: usage.input, cache_creation_input_tokens: usage.cacheCreation, cache_read_input_tokens: usage.cached, output_tokens: 1 };
    const call = toolCall('anthropic', step);
    if (body.stream !== true) {
      const content = call ? [{ type: 'tool_use', id: `toolu_standin_${n}`, name: call.name, input: call.input }] : textParts(step).map((text) => ({ type: 'text', text }));
      return json(res, 200, {
        id: `msg_standin_${n}`, type: 'message', role: 'assistant', model, content,
        stop_reason: call ? 'tool_use' : 'end_turn', stop_sequence: null,
        usage: { ...startUsage, output_tokens: usage.output },
      });
    }
    const stream = sse(res);
    stream('message_start', {
      type: 'message_start',
      message: { id: `msg_standin_${n}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: startUsage },
    });
    if (call) {
      const input = JSON.stringify(call.input);
      stream('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: `toolu_standin_${n}`, name: call.name, input: {} } });
      stream('ping', { type: 'ping' });
      for (const partial of pieces(input)) stream('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: partial } });
      stream('content_block_stop', { type: 'content_block_stop', index: 0 });
    } else {
      // each part is a text content block of its own, as a model that writes text in two blocks
      for (const [at, text] of textParts(step).entries()) {
        stream('content_block_start', { type: 'content_block_start', index: at, content_block: { type: 'text', text: '' } });
        if (at === 0) stream('ping', { type: 'ping' });
        for (const delta of pieces(text)) stream('content_block_delta', { type: 'content_block_delta', index: at, delta: { type: 'text_delta', text: delta } });
        stream('content_block_stop', { type: 'content_block_stop', index: at });
      }
    }
    stream('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: call ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: usage.output },
    });
    stream('message_stop', { type: 'message_stop' });
    res.end();
  }
}

/** A side request's answer: what its JSON schema asks for (a session title), else a word. */
function sideReply(body: Record<string, unknown>): string {
  const format = (body.output_config as { format?: { schema?: { properties?: Record<string, unknown> } } } | undefined)?.format;
  const keys = Object.keys(format?.schema?.properties ?? {});
  return keys.length > 0 ? JSON.stringify(Object.fromEntries(keys.map((k) => [k, 'helix task']))) : 'ok';
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

/** An SSE writer: `event: <name>` and one `data:` line per event, as both real APIs send them. */
function sse(res: ServerResponse): (event: string, data: unknown) => void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  return (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/** Text in a few deltas, as a streaming model sends it (split on line ends, so deltas stay whole lines). */
function pieces(text: string): string[] {
  const parts = text.match(/[^\n]*\n|[^\n]+/g) ?? [''];
  return parts.length > 0 ? parts : [''];
}
