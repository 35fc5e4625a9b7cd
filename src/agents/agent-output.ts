// Reading what an agent answered, as opposed to what it did on the way. codex and claude print
// their whole transcript — the prompt, every command and the start of its output, files they read —
// and a trailer in that transcript is text the agent merely saw (a skill file's "NEXT_ACTION:
// POLISH", a test log's "ISSUES_COUNT: 0"). helix acts only on the final answer:
//   codex `exec --json`: every `item.completed` agent_message after the last tool item (the final
//     turn: a model may answer in several messages, one event each); usage from `turn.completed`
//     (input_tokens includes cached_input_tokens);
//   claude `--output-format stream-json`: every text block of the main agent's assistant events
//     after its last tool call or tool result (the `result` event keeps only the LAST block: a
//     final turn of trailers, then a sentence, would lose the trailers), else the `result` event's
//     `result` (`--output-format json`); usage summed over `modelUsage` (every request of the call,
//     side requests too), else `usage`; `total_cost_usd`;
//   anything else (ddx agent run, which prints the harness's text result): stdout.
// Pure functions over the text the runner collected; a line that is not JSON is skipped.
import type { AnswerFormat } from './invocation.js';

/** Token usage of one call, the same meaning for every agent. */
export interface AgentUsage {
  /** Every input token the model read, cache reads and cache writes included. */
  input: number;
  /** The part of `input` read from the prompt cache. */
  cachedInput: number;
  /** The part of `input` written to the prompt cache (claude). */
  cacheCreation: number;
  /** Every token the model wrote, reasoning included. */
  output: number;
  /** The part of `output` spent on reasoning (codex). */
  reasoning: number;
  /** What the agent says the call cost (claude's total_cost_usd); undefined when it does not say. */
  costUsd?: number;
}

export interface AgentAnswer {
  /** The final answer: trailers, UTILIZED and LEARNED lines are read from this text only. */
  answer: string;
  /** Present when the output carried usage (structured formats). */
  usage?: AgentUsage;
}

/** input + output: what helix reports as "tokens" for a call. */
export function usageTokens(usage: AgentUsage): number {
  return usage.input + usage.output;
}

export function readAgentAnswer(format: AnswerFormat | undefined, stdout: string): AgentAnswer {
  if (format === 'codex-json') return readCodexJson(stdout);
  if (format === 'claude-stream-json') return readClaudeJson(stdout);
  return { answer: stdout };
}

type Json = Record<string, unknown>;

/** Each stdout line that is a JSON object, in order. */
export function jsonEvents(stdout: string): Json[] {
  const events: Json[] = [];
  for (const line of stdout.split('\n')) {
    const event = parseEventLine(line);
    if (event) events.push(event);
  }
  return events;
}

/** One line of a JSONL stream as an object, or undefined (blank, not JSON, not an object). */
export function parseEventLine(line: string): Json | undefined {
  const text = line.trim();
  if (!text.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** codex items that are neither the model's text nor its reasoning: a tool call ends a turn's text. */
const CODEX_TEXT_ITEMS = new Set(['agent_message', 'reasoning', 'error']);

function readCodexJson(stdout: string): AgentAnswer {
  let parts: string[] = [];
  let usage: AgentUsage | undefined;
  for (const event of jsonEvents(stdout)) {
    const item = isRecord(event.item) ? event.item : undefined;
    const itemEvent = event.type === 'item.started' || event.type === 'item.completed';
    if (item && itemEvent && !CODEX_TEXT_ITEMS.has(String(item.type))) parts = [];
    if (item && event.type === 'item.completed' && item.type === 'agent_message' && typeof item.text === 'string') parts.push(item.text);
    if (event.type === 'turn.completed' && isRecord(event.usage)) {
      const u = event.usage;
      usage = add(usage, {
        input: count(u.input_tokens),
        cachedInput: count(u.cached_input_tokens),
        cacheCreation: count(u.cache_write_input_tokens),
        output: count(u.output_tokens),
        reasoning: count(u.reasoning_output_tokens),
      });
    }
  }
  const answer = parts.join('\n');
  return usage ? { answer, usage } : { answer };
}

/** The text blocks of the main agent's final turn: those after its last tool call or tool result. */
function claudeFinalTurn(events: Json[]): string[] {
  let parts: string[] = [];
  for (const event of events) {
    if (event.parent_tool_use_id) continue; // a subagent's messages
    const message = event.message;
    if (event.type === 'user') parts = [];
    if (event.type !== 'assistant' || !isRecord(message) || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (!isRecord(block)) continue;
      if (block.type === 'tool_use') parts = [];
      else if (block.type === 'text' && typeof block.text === 'string') parts.push(block.text);
    }
  }
  return parts;
}

function readClaudeJson(stdout: string): AgentAnswer {
  const events = jsonEvents(stdout);
  const result = events.filter((e) => e.type === 'result').pop();
  if (!result) return { answer: '' };
  const parts = claudeFinalTurn(events);
  const answer = parts.length > 0 ? parts.join('\n') : typeof result.result === 'string' ? result.result : '';
  let usage: AgentUsage | undefined;
  if (isRecord(result.modelUsage) && Object.keys(result.modelUsage).length > 0) {
    for (const model of Object.values(result.modelUsage)) {
      if (!isRecord(model)) continue;
      const cacheRead = count(model.cacheReadInputTokens);
      const cacheWrite = count(model.cacheCreationInputTokens);
      usage = add(usage, { input: count(model.inputTokens) + cacheRead + cacheWrite, cachedInput: cacheRead, cacheCreation: cacheWrite, output: count(model.outputTokens), reasoning: 0 });
    }
  } else if (isRecord(result.usage)) {
    const u = result.usage;
    const cacheRead = count(u.cache_read_input_tokens);
    const cacheWrite = count(u.cache_creation_input_tokens);
    usage = { input: count(u.input_tokens) + cacheRead + cacheWrite, cachedInput: cacheRead, cacheCreation: cacheWrite, output: count(u.output_tokens), reasoning: 0 };
  }
  const cost = result.total_cost_usd;
  if (typeof cost === 'number' && Number.isFinite(cost) && cost >= 0) usage = { ...(usage ?? empty()), costUsd: cost };
  return usage ? { answer, usage } : { answer };
}

function empty(): AgentUsage {
  return { input: 0, cachedInput: 0, cacheCreation: 0, output: 0, reasoning: 0 };
}

/** Adds two usages; cost is summed when either knows it. */
export function add(a: AgentUsage | undefined, b: AgentUsage): AgentUsage {
  const base = a ?? empty();
  const sum: AgentUsage = {
    input: base.input + b.input,
    cachedInput: base.cachedInput + b.cachedInput,
    cacheCreation: base.cacheCreation + b.cacheCreation,
    output: base.output + b.output,
    reasoning: base.reasoning + b.reasoning,
  };
  if (base.costUsd !== undefined || b.costUsd !== undefined) sum.costUsd = (base.costUsd ?? 0) + (b.costUsd ?? 0);
  return sum;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// ── live progress (docs/contract/bash-interface.md §0.4) ──────────────────────────────────────────────────────

const COMMAND_CHARS = 80;
const THINKING_CHARS = 500;
const RESULT_CHARS = 120;

/**
 * The progress lines one event of an agent's stream stands for (without the `helix: [<t>] `
 * prefix): `→ <Tool>(<detail>)` for a tool call, `💭 <thinking>` for a thinking block, and
 * ` <mark> <first line of the result>` for a tool result (`!` marks an error).
 */
export function progressLines(format: AnswerFormat, event: Json): string[] {
  return format === 'codex-json' ? codexProgress(event) : claudeProgress(event);
}

function claudeProgress(event: Json): string[] {
  const message = event.message;
  if (!isRecord(message) || !Array.isArray(message.content)) return [];
  const lines: string[] = [];
  for (const block of message.content) {
    if (!isRecord(block)) continue;
    if (event.type === 'assistant' && block.type === 'tool_use') lines.push(`→ ${toolCall(String(block.name ?? 'tool'), isRecord(block.input) ? block.input : {})}`);
    else if (event.type === 'assistant' && block.type === 'thinking' && typeof block.thinking === 'string' && block.thinking.trim()) {
      lines.push(`💭 ${oneLine(block.thinking).slice(0, THINKING_CHARS)}`);
    } else if (event.type === 'user' && block.type === 'tool_result') lines.push(resultLine(toolResultText(block.content), block.is_error === true));
  }
  return lines;
}

function toolCall(name: string, input: Json): string {
  const text = (key: string) => (typeof input[key] === 'string' ? (input[key] as string) : '');
  let detail = '';
  if (name === 'Read' || name === 'Write' || name === 'Edit' || name === 'NotebookEdit') detail = basename(text('file_path') || text('notebook_path'));
  else if (name === 'Glob' || name === 'Grep') detail = text('pattern');
  else if (name === 'Bash') detail = oneLine(text('command')).slice(0, COMMAND_CHARS);
  else if (name === 'Agent' || name === 'Task') detail = text('description');
  else if (name === 'Skill') detail = text('skill') || text('name');
  else return name;
  return `${name}(${detail})`;
}

function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c) => (isRecord(c) && typeof c.text === 'string' ? c.text : '')).join('\n');
  return '';
}

function codexProgress(event: Json): string[] {
  const item = event.item;
  if (!isRecord(item)) return event.type === 'turn.failed' || event.type === 'error' ? [`! ${oneLine(errorText(event)).slice(0, RESULT_CHARS)}`] : [];
  if (event.type === 'item.started') {
    if (item.type === 'command_execution') return [`→ exec(${oneLine(String(item.command ?? '')).slice(0, COMMAND_CHARS)})`];
    if (item.type === 'mcp_tool_call') return [`→ ${String(item.server ?? 'mcp')}.${String(item.tool ?? 'tool')}`];
    if (item.type === 'web_search') return [`→ WebSearch(${String(item.query ?? '')})`];
    return [];
  }
  if (event.type !== 'item.completed') return [];
  if (item.type === 'command_execution') return [resultLine(String(item.aggregated_output ?? ''), typeof item.exit_code === 'number' && item.exit_code !== 0)];
  if (item.type === 'file_change' && Array.isArray(item.changes)) {
    const paths = item.changes.map((c) => (isRecord(c) ? basename(String(c.path ?? '')) : '')).filter(Boolean);
    return [`→ Edit(${paths.join(', ')})`];
  }
  if (item.type === 'reasoning' && typeof item.text === 'string' && item.text.trim()) return [`💭 ${oneLine(item.text).slice(0, THINKING_CHARS)}`];
  return [];
}

function errorText(event: Json): string {
  if (typeof event.message === 'string') return event.message;
  const error = event.error;
  return isRecord(error) && typeof error.message === 'string' ? error.message : 'error';
}

function resultLine(text: string, isError: boolean): string {
  const first = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return ` ${isError ? '!' : ' '} ${first.trim().slice(0, RESULT_CHARS)}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function basename(path: string): string {
  return path.split('/').pop() ?? path;
}
