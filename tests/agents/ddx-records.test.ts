// DDx's own record of a call (agents/ddx-records.ts), read from what the real binaries wrote
// (tests/agents/fixtures/ddx-records/README.md): every session's tokens and cost, the CLI's own
// words in a failed session, the attempt's result — and what helix makes of them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tempDir } from '../helpers/cli.js';
import { describe, expect, it } from 'vitest';
import { buildSessionOf, failureTextsOf, limitInText, newestSucceededAttempt, problemIn, readDdxRecord } from '../../src/agents/index.js';

const FIXTURES = resolve(import.meta.dirname, 'fixtures', 'ddx-records');
const SINCE = new Date('2026-11-28T19:30:00Z');
const record = (name: string, beadId: string | null = 'hx-e2e000d1') => readDdxRecord(join(FIXTURES, name), SINCE, { ...(beadId ? { beadId } : {}), until: SINCE });

describe("DDx's record of a build", () => {
  it('current DDx: every session of the attempt is on the bill — intake and build, not the build alone', () => {
    const ok = record('current-ok');
    expect(ok.sessions.map((s) => s.id)).toEqual(['as-0e8ccdaf', 'eb-4d106c4a']);
    // input (claude's cache reads and writes, which DDx's session logs record apart, included) + output
    expect(ok.spent).toEqual({ tokens: 607 + 400 + 100 + 67 + (305 + 200 + 50 + 35), costUsd: 0.002174 + 0.001105 });
    expect(ok.result).toMatchObject({ bead_id: 'hx-e2e000d1' });
  });

  it('v0.6.1: the one session, with the tokens execute-bead printed', () => {
    expect(record('0.6.1-ok').spent).toEqual({ tokens: 666, costUsd: 0.0021260000000000003 });
  });

  it("the build's final answer: current DDx's session log (its copy under the bundle), v0.6.1's agent log", () => {
    expect(buildSessionOf(record('current-limit'))?.output).toMatch(/^API Error: Request rejected \(429\)/);
    expect(buildSessionOf(record('0.6.1-limit'))?.output).toMatch(/^API Error: Request rejected \(429\)/);
  });

  it("the build's answer is the build's, not the review's: current DDx records its pre-land review with the build's bundle, its log in agent-logs (measured)", () => {
    const root = tempDir();
    const bundle = '.ddx/executions/20261128T211531-485f6d22';
    const end = (output: string) => `${JSON.stringify({ type: 'session.end', data: { status: 'success', output } })}\n`;
    mkdirSync(join(root, bundle, 'embedded'), { recursive: true });
    mkdirSync(join(root, '.ddx', 'agent-logs', 'sessions'), { recursive: true });
    writeFileSync(join(root, bundle, 'embedded', 'svc-1.jsonl'), end('Created hello.txt.\nUTILIZED: [a]'));
    writeFileSync(join(root, '.ddx', 'agent-logs', 'svc-2.jsonl'), end('{"verdict":"APPROVE"}'));
    const row = (startedAt: string, nativeLogRef: string) => JSON.stringify({ id: 'eb-3b05f698', beadID: 'hx-1', harness: 'claude', startedAt, tokens: 10, outcome: 'success', exitCode: 0, bundlePath: bundle, nativeLogRef });
    writeFileSync(join(root, '.ddx', 'agent-logs', 'sessions', 'sessions-2026-11.jsonl'), `${row('2026-11-28T21:15:32.02Z', `/gone/clone/${bundle}/embedded/svc-1.jsonl`)}\n${row('2026-11-28T21:15:32.87Z', '.ddx/agent-logs/svc-2.jsonl')}\n`);
    const record = readDdxRecord(root, SINCE, { beadId: 'hx-1', until: SINCE });
    expect(record.sessions).toHaveLength(2);
    expect(buildSessionOf(record)?.output).toBe('Created hello.txt.\nUTILIZED: [a]');
  });

  it('a triage DDx records without a bead belongs to the build; an action (no bead) counts only sessions without one', () => {
    expect(record('current-limit').sessions).toHaveLength(3);
    expect(record('current-limit', null).sessions.map((s) => s.id)).toEqual(['as-5cb25ba3']);
  });

  it('a session that started before the call, even in the same second, is not the call\'s', () => {
    const later = readDdxRecord(join(FIXTURES, 'current-ok'), new Date('2026-11-28T19:51:16.800Z'), { beadId: 'hx-e2e000d1', until: SINCE });
    expect(later.sessions.map((s) => s.id)).toEqual(['eb-4d106c4a']);
  });

  it('a window that opens after the call counts nothing', () => {
    expect(readDdxRecord(join(FIXTURES, 'current-ok'), new Date('2026-11-28T20:00:00Z'), { beadId: 'hx-e2e000d1' })).toEqual({ sessions: [] });
  });
});

describe('what helix reads off a failed build through DDx', () => {
  const now = new Date('2026-11-28T19:51:10Z');
  const limitOf = (name: string) => failureTextsOf(record(name)).map((t) => limitInText(t, now)).find(Boolean);
  const problemOf = (name: string) => failureTextsOf(record(name)).map(problemIn).find(Boolean);

  it.each(['0.6.1-limit', 'current-limit'])('%s: an API key over its rate limit is a rate limit (no reset named)', (name) => {
    expect(limitOf(name)).toMatchObject({ agent: 'claude', kind: 'rate' });
    expect(limitOf(name)?.resetsAt).toBeUndefined();
  });

  it.each(['0.6.1-sub', 'current-sub'])("%s: a spent subscription window is a usage limit until its reset (8:51pm UTC, to the minute's end)", (name) => {
    expect(limitOf(name)).toMatchObject({ agent: 'claude', kind: 'usage', resetsAt: Date.parse('2026-11-28T20:52:00Z') });
  });

  it.each(['0.6.1-model', 'current-model'])('%s: an unknown model is a setup error, not a limit', (name) => {
    expect(limitOf(name)).toBeUndefined();
    expect(problemOf(name)).toMatchObject({ kind: 'setup', what: 'the model is unknown or not available' });
  });

  it('a login that does not work is a setup error', () => {
    expect(problemOf('current-auth')).toMatchObject({ kind: 'setup', what: 'authentication failed' });
  });

  it('a build that ran names no problem and no limit (current: DDx found no commit — the work\'s failure)', () => {
    expect(limitOf('current-ok')).toBeUndefined();
    expect(problemOf('current-ok')).toBeUndefined();
    expect(failureTextsOf(record('current-ok'))).toContain('agent exited without a commit or no_changes_rationale.txt');
  });
});

describe("DDx's execution records: the newest attempt it would land by dangling-success recovery", () => {
  /** An attempt folder as DDx leaves it: its result.json, and a check's own verdict file when given. */
  function execution(root: string, folder: string, result: Record<string, unknown>, checks: Record<string, string> = {}): void {
    mkdirSync(join(root, '.ddx', 'executions', folder, 'checks'), { recursive: true });
    writeFileSync(join(root, '.ddx', 'executions', folder, 'result.json'), JSON.stringify(result));
    for (const [name, text] of Object.entries(checks)) writeFileSync(join(root, '.ddx', 'executions', folder, 'checks', `${name}.json`), text);
  }
  const succeeded = (rev: string) => ({ bead_id: 'hx-1', base_rev: 'b0', result_rev: rev, outcome: 'task_succeeded' });

  it('the newest folder first; another bead, another outcome and an attempt with no commit of its own are passed over', () => {
    const root = tempDir();
    execution(root, '20260101T000000-aa', succeeded('r1'));
    execution(root, '20260101T000001-bb', succeeded('r2'));
    execution(root, '20260101T000002-cc', { ...succeeded('r3'), bead_id: 'hx-2' });
    execution(root, '20260101T000003-dd', { ...succeeded('r4'), outcome: 'task_failed' });
    execution(root, '20260101T000004-ee', succeeded('b0'));
    expect(newestSucceededAttempt(root, 'hx-1', 'helix-verify')).toEqual({ result_rev: 'r2', base_rev: 'b0', checkPassed: false });
  });

  it("whether the check passed is the status of its verdict file, read as JSON: a `pass` elsewhere in it is not its status", () => {
    const root = tempDir();
    execution(root, '20260101T000000-aa', succeeded('r1'), { 'helix-verify': '{ "status" : "pass", "message": "npm test exited 0" }' });
    expect(newestSucceededAttempt(root, 'hx-1', 'helix-verify')?.checkPassed).toBe(true);
    execution(root, '20260101T000001-bb', succeeded('r2'), { 'helix-verify': '{"status":"block","message":"2 of 3 failed","violations":[{"file":"a.ts","status":"pass"}]}', other: '{"status":"pass"}' });
    expect(newestSucceededAttempt(root, 'hx-1', 'helix-verify')).toEqual({ result_rev: 'r2', base_rev: 'b0', checkPassed: false });
  });

  it('no executions folder, or a result.json that is not JSON: nothing', () => {
    const root = tempDir();
    expect(newestSucceededAttempt(root, 'hx-1', 'helix-verify')).toBeUndefined();
    mkdirSync(join(root, '.ddx', 'executions', '20260101T000000-aa'), { recursive: true });
    writeFileSync(join(root, '.ddx', 'executions', '20260101T000000-aa', 'result.json'), '{"bead_id": "hx-1", ');
    expect(newestSucceededAttempt(root, 'hx-1', 'helix-verify')).toBeUndefined();
  });
});
