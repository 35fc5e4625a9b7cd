// One agent call as the user sees it (shell/agent-call.ts), through a run's CallContext with the
// codex and claude stubs as real child processes: the start and completion lines, the framed block
// in the session log and the range the summary line names, the running token total; a program that
// cannot be started is a failed call inside the loop and an error outside it; beads lost during a
// check stop the run (15), during a planning action they are saved and the run goes on; an
// interrupt ends the call; and a limit or a setup problem is read from what the program printed.
import { watch } from 'node:fs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentStartError } from '../../../src/agents/index.js';
import { actionInvocation } from '../../../src/supervisor/core/dispatch.js';
import { actionPrompt } from '../../../src/supervisor/text/prompts.js';
import { type AgentCall, RunInterrupted, callAgent, limitOfCall, problemOfCall } from '../../../src/supervisor/shell/agent-call.js';
import { bead } from '../../helpers/bead.js';
import { type RunWorld, runWorld } from './run-world.js';

const CLOCK = '\\d\\d:\\d\\d:\\d\\d';
const T = `helix: \\[${CLOCK}\\]`;

/** The check's real command for this world's agent, with its real prompt (or this one). */
function check(w: RunWorld, prompt = actionPrompt('check', { ...w.run.promptPlace(), scope: 'repo' })) {
  return actionInvocation(w.run.session, 'check', prompt);
}

/** The check's command and call, as callAgent takes them. */
function checkCall(w: RunWorld): [ReturnType<typeof check>['invocation'], ReturnType<typeof check>['call']] {
  const { invocation, call } = check(w);
  return [invocation, call];
}

describe('a call and its lines', () => {
  it('codex: its start line, the framed block in the session log, the completion lines with the running total', async () => {
    const w = await runWorld({ script: { responses: [{ when: 'codex', stdout: 'NEXT_ACTION: STOP\n', transcript: 'ran the tests', tokens: 40 }, { when: 'codex', stdout: 'again\n', tokens: 2 }] } });
    const { invocation, call } = check(w);
    const first = await callAgent(w.run.calls, invocation, call);
    expect(first).toMatchObject({ exitCode: 0, answer: 'NEXT_ACTION: STOP', tokens: 40 });
    expect(w.stderr[0]).toMatch(new RegExp(`^${T} codex exec -C ${w.project.root} .*<prompt ${Buffer.byteLength(call.prompt!)} bytes> \\(timeout \\d+s\\)$`));
    // the command it ran and what that printed, between the two
    expect(w.stderr.slice(1, -1)).toEqual([expect.stringMatching(new RegExp(`^${T} → exec\\(/bin/bash -lc "cat notes.md"\\)$`)), expect.stringMatching(new RegExp(`^${T}    ran the tests$`))]);
    expect(w.stderr.at(-1)).toMatch(new RegExp(`^${T} codex complete \\(rc=0, \\d+s, 40 tokens, 40 total\\)$`));
    const log = readFileSync(w.output.logName, 'utf8').split('\n');
    const { first: from, last: to } = first.log!;
    expect(log[from]).toMatch(new RegExp(`^--- codex output \\[${CLOCK}\\] rc=0 elapsed=\\d+s ---$`));
    expect(log.slice(from, to).join('\n')).toContain('ran the tests');
    expect(log[to - 1]).toBe('--- end codex output ---');
    const second = await callAgent(w.run.calls, invocation, call);
    expect(second.answer).toBe('again');
    expect(w.stderr.at(-1)).toMatch(/codex complete \(rc=0, \d+s, 2 tokens, 42 total\)$/);
  });

  it('with --summary only the summary line, naming its lines in the session log', async () => {
    const w = await runWorld({ mode: 'summary' });
    const result = await callAgent(w.run.calls, ...checkCall(w));
    expect(w.stderr).toEqual([expect.stringMatching(new RegExp(`^${T} codex complete \\(rc=0, \\d+s, 0 tokens\\) — log L${result.log!.first}–L${result.log!.last} in ${w.output.logName}$`))]);
  });

  it('claude: the prompt echoed under its start line', async () => {
    const w = await runWorld({ programs: ['claude'] });
    const { invocation, call } = check(w, 'Line one\nLine two\n');
    await callAgent(w.run.calls, invocation, call);
    expect(w.stderr.slice(1, 4)).toEqual(['helix: │ Line one', 'helix: │ Line two', 'helix: └─ 18 bytes']);
  });
});

describe('a program that cannot be started', () => {
  it('inside the loop is a failed call with one line; outside it, an error', async () => {
    const w = await runWorld();
    const { invocation, call } = check(w);
    const missing = { ...invocation, file: join(w.project.scratch, 'no-such-agent') };
    const failed = await callAgent(w.run.calls, missing, call);
    expect(failed).toMatchObject({ exitCode: 127, startCode: 'ENOENT', answer: '' });
    expect(w.stderr.filter((l) => l.includes('no-such-agent'))).toHaveLength(1);
    expect(problemOfCall(missing, failed)).toMatchObject({ kind: 'setup', what: `${missing.file} could not be started` });
    const { loop: _loop, ...outside } = w.run.calls;
    await expect(callAgent(outside, missing, call)).rejects.toBeInstanceOf(AgentStartError);
  });
});

describe('beads that vanish during a call', () => {
  const wipe = { run: [['sh', '-c', ': > .ddx/beads.jsonl']] };

  it('during the check they stop the run with exit 15, naming them', async () => {
    const w = await runWorld({ beads: [bead({ id: 'hx-1' })], script: { responses: [{ when: 'check', ...wipe }] } });
    await expect(callAgent(w.run.calls, ...checkCall(w))).rejects.toMatchObject({ exitCode: 15, message: expect.stringContaining('hx-1') });
  });

  it('during a planning action they are saved, said, and the run goes on', async () => {
    const w = await runWorld({ beads: [bead({ id: 'hx-1' })], script: { responses: [{ when: 'polish', ...wipe }] } });
    const { invocation, call } = actionInvocation(w.run.session, 'polish', actionPrompt('polish', { ...w.run.promptPlace(), scope: 'repo', rounds: 6 }));
    await callAgent(w.run.calls, invocation, call);
    expect(w.stderr.some((l) => l.endsWith('; the polish action rewrote the queue, the run goes on'))).toBe(true);
  });
});

describe('an interrupted call', () => {
  it('ends the call and throws RunInterrupted', async () => {
    const w = await runWorld({ script: { responses: [{ when: 'codex', hang: true, marker: 'started' }] } });
    const interrupt = new AbortController();
    // the interrupt comes once the agent is running: when the stub writes its marker in its cwd
    const watcher = watch(w.project.root, (_, name) => { if (name === 'started') interrupt.abort(); });
    try {
      await expect(callAgent({ ...w.run.calls, signal: interrupt.signal }, ...checkCall(w))).rejects.toBeInstanceOf(RunInterrupted);
    } finally {
      watcher.close();
    }
  });
});

describe('what a call that did not get through ran into', () => {
  it('a usage or rate limit from codex, and none from a call that timed out or succeeded', async () => {
    const w = await runWorld({ script: { responses: [{ when: 'codex', turnFailed: 'rate limit exceeded: Please try again in 0.2s.', exit: 1 }] } });
    const { invocation, call } = check(w);
    const limited = await callAgent(w.run.calls, invocation, call);
    const now = new Date();
    expect(limitOfCall(invocation, limited, now)).toMatchObject({ agent: 'codex', kind: 'rate' });
    expect(limitOfCall(invocation, { ...limited, timedOut: true } as AgentCall, now)).toBeUndefined();
    const fine = await callAgent(w.run.calls, invocation, call);
    expect(limitOfCall(invocation, fine, now)).toBeUndefined();
    expect(problemOfCall(invocation, fine)).toBeUndefined();
  });

  it("a 429 from claude is a limit", async () => {
    const w = await runWorld({ programs: ['claude'], script: { responses: [{ when: 'claude', limit429: { resetsInSeconds: 60 }, exit: 1 }] } });
    const { invocation, call } = check(w);
    const limited = await callAgent(w.run.calls, invocation, call);
    expect(limitOfCall(invocation, limited, new Date())).toMatchObject({ agent: 'claude', resetsAt: expect.any(Number) });
  });
});
