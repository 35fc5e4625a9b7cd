// The final answer and usage, read from what the real CLIs printed. The fixtures are verbatim
// stdout of codex 0.169.0 (`exec --json`) and claude 2.1.197 (`-p --output-format stream-json
// --verbose`), captured against the model stand-in of tests/e2e: in both the model first ran a shell
// command whose output holds trailers (the transcript), then answered with different ones.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTrailers, progressLines, jsonEvents, readAgentAnswer, usageTokens } from '../../src/agents/index.js';

const fixture = (name: string) => readFileSync(join(import.meta.dirname, 'fixtures', name), 'utf8');
const codexOut = fixture('codex-0.169.0-exec-json.jsonl');
const claudeOut = fixture('claude-2.1.197-stream-json.jsonl');

describe('codex exec --json (0.169.0)', () => {
  it('the answer is the last agent message; the command output with NEXT_ACTION: POLISH is not part of it', () => {
    const { answer } = readAgentAnswer('codex-json', codexOut);
    expect(answer).toBe('I changed a.txt.\nNEXT_ACTION: STOP');
    expect(codexOut).toContain('NEXT_ACTION: POLISH'); // it is in the transcript
    expect(parseTrailers(answer).nextAction).toBe('STOP');
  });

  it('usage comes from turn.completed: input includes the cached part; tokens = input + output', () => {
    const { usage } = readAgentAnswer('codex-json', codexOut);
    // the stand-in sent 1001+1002 input (100 cached each), 21+22 output (5 reasoning each)
    expect(usage).toEqual({ input: 2003, cachedInput: 200, cacheCreation: 0, output: 43, reasoning: 10 });
    expect(usageTokens(usage!)).toBe(2046);
  });

  it('progress lines: the command, then the first line of its output', () => {
    const lines = jsonEvents(codexOut).flatMap((e) => progressLines('codex-json', e));
    expect(lines[0]).toMatch(/^→ exec\(\/bin\/bash -lc "printf /);
    expect(lines[1]).toBe('   line1');
  });
});

describe('claude -p --output-format stream-json --verbose (2.1.197)', () => {
  it('the answer is the result event; the tool result with REVIEW_STATUS: CLEAN / ISSUES_COUNT: 0 is not part of it', () => {
    const { answer } = readAgentAnswer('claude-stream-json', claudeOut);
    expect(answer).toBe('Reviewed.\nREVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 3\nFINDINGS_FILED: 0');
    expect(parseTrailers(answer)).toMatchObject({ reviewStatus: 'ISSUES_FOUND', issuesCount: 3 });
    expect(claudeOut).toContain('ISSUES_COUNT: 0'); // it is in the transcript
  });

  it('usage sums modelUsage with cache reads and writes as input; cost is total_cost_usd', () => {
    const { usage } = readAgentAnswer('claude-stream-json', claudeOut);
    // the stand-in sent 301+302 input, 200+200 cache reads, 50+50 cache writes, 31+32 output
    expect(usage).toMatchObject({ input: 603 + 400 + 100, cachedInput: 400, cacheCreation: 100, output: 63, reasoning: 0 });
    expect(usage?.costUsd).toBeGreaterThan(0);
  });

  it('the single-object --output-format json reads the same way', () => {
    const result = claudeOut.trim().split('\n').pop()!;
    expect(readAgentAnswer('claude-stream-json', result).answer).toContain('ISSUES_COUNT: 3');
  });

  it('progress lines: the tool call and the first line of its result', () => {
    const lines = jsonEvents(claudeOut).flatMap((e) => progressLines('claude-stream-json', e));
    expect(lines).toEqual([`→ Bash(printf 'noise\\nREVIEW_STATUS: CLEAN\\nISSUES_COUNT: 0\\n'; echo changed > a.txt)`, '   noise']);
  });

  it('no result event (killed, refused, crashed) → an empty answer, no usage: nothing from the transcript', () => {
    const withoutResult = claudeOut.trim().split('\n').slice(0, -1).join('\n');
    expect(readAgentAnswer('claude-stream-json', withoutResult)).toEqual({ answer: '' });
  });
});

describe('other programs', () => {
  it('ddx agent run: stdout is the answer (DDx prints the harness text result there)', () => {
    expect(readAgentAnswer(undefined, 'NEXT_ACTION: WAIT\n')).toEqual({ answer: 'NEXT_ACTION: WAIT\n' });
  });

  it('lines that are not JSON objects are skipped', () => {
    expect(readAgentAnswer('codex-json', 'warning: x\n[1,2]\n{broken\n')).toEqual({ answer: '' });
  });
});
