// helix against the REAL codex and claude CLIs pinned in tests/e2e/clis (issue #11; codex 0.171.0
// and claude 2.1.332 since issue #24), each talking to a
// scripted stand-in of its model API on 127.0.0.1 (model-api.ts). Every test runs the built
// bin/helix in a real temp git repository; the scripted model makes the CLI really run commands,
// apply a patch or write a file. Run with `npm run test:agents` (it installs the pinned CLIs first).
//
// What must not regress, and the test that fails if it does:
//   1 trailers from the final answer only .... "check obeys the answer", "review counts 3",
//     and all of its parts ...................... "review with a final turn in two parts"
//   2 effort and model reach the model ........ "build …" (xhigh), "check …" (default low),
//                                               "review …" (default high), "--effort max …"
//   3 tokens and cost from structured output .. "build …" (run-state, status = what was sent)
//   4 prompts on stdin, any size .............. "a 200 KB bead"
//   5 root without IS_SANDBOX=1 ............... "claude as root …"
//   6 helix stops only leftovers nobody runs .. "a background job the agent starts …"
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeInvocation, codexInvocation, jsonEvents, runAgentInvocation } from '../../src/agents/index.js';
import { API_OF, type Agent, E2EProject, MODEL_OF, tokensSent, withModelApi } from './real-cli-project.js';
import { bead } from '../helpers/bead.js';
import type { ModelApi, RecordedRequest } from './model-api.js';

let api: ModelApi;
withModelApi((started) => {
  api = started;
});

/** The reasoning effort a request carried: codex sends `reasoning.effort`, claude `output_config.effort`. */
function effortOf(agent: Agent, request: RecordedRequest | undefined): unknown {
  const body = request?.body ?? {};
  return agent === 'codex' ? (body.reasoning as { effort?: string } | undefined)?.effort : (body.output_config as { effort?: string } | undefined)?.effort;
}

/** The whole request as text (the prompt is somewhere in `input` / `messages`). */
const bodyText = (request: RecordedRequest | undefined) => JSON.stringify(request?.body ?? {});

for (const agent of ['codex', 'claude'] as const) {
  const wire = API_OF[agent];

  describe(`${agent} (real CLI)`, () => {
    it('build: the model changes a file through the CLI, commits and closes; helix verifies; effort xhigh and the model reach the request; tokens and cost match what the API sent', async () => {
      const id = 'hx-e2e00001';
      const p = new E2EProject(api, agent, {
        beads: [bead({ id, title: 'Greet the world', description: 'Create hello.txt that says hello.', verify: 'grep -q "hello from the agent" hello.txt' })],
        env: { HELIX_MEMORY: '1', HELIX_EMBEDDER: 'lexical' },
      });
      api.script(wire, [
        // codex: its apply_patch (intercepted from the shell call); claude: its Write tool
        agent === 'codex'
          ? { shell: "apply_patch <<'PATCH'\n*** Begin Patch\n*** Add File: hello.txt\n+hello from the agent\n*** End Patch\nPATCH" }
          : { tool: 'Write', input: { file_path: join(p.root, 'hello.txt'), content: 'hello from the agent\n' } },
        { shell: `git add hello.txt && git commit -q -m "${id}: greet" && ${p.helixShim} tracker close ${id} && echo "LEARNED: a lesson the agent only saw in command output"` },
        { text: `Added hello.txt and closed ${id}.\nLEARNED: commit the change before closing the bead` },
      ]);
      const r = await p.helix(['run', '--max-cycles', '1', '--no-auto-review', '--no-auto-align', '--effort', 'xhigh']);
      expect(r.stderr).toContain(`helix: verifying: grep -q "hello from the agent" hello.txt`);
      expect(r.status).toBe(0);
      expect(readFileSync(join(p.root, 'hello.txt'), 'utf8')).toBe('hello from the agent\n');
      expect(p.git('log', '-1', '--format=%s').trim()).toBe(`${id}: greet`);
      expect(p.bead(id).status).toBe('closed');
      // live progress from the structured stream (normal mode)
      expect(r.stderr).toMatch(agent === 'codex' ? /\] → Edit\(hello\.txt\)/ : /\] → Write\(hello\.txt\)/);
      expect(r.stderr).toMatch(/\] → (exec|Bash)\(.*git add hello\.txt/);
      expect(r.stderr).not.toMatch(/\] {2}! /); // no command failed

      const requests = api.mainRequests(wire);
      expect(requests).toHaveLength(3);
      expect(api.remaining(wire)).toBe(0);
      for (const request of requests) {
        expect(request.body.model).toBe(MODEL_OF[agent]);
        expect(effortOf(agent, request)).toBe('xhigh');
      }
      const tokens = tokensSent(wire, api.usageSent(wire));
      const state = p.runState();
      expect(state.total_tokens).toBe(tokens);
      expect(r.stderr).toContain(`1 completed, 0 skipped, ${tokens} tokens`);
      const status = (await p.helix(['status'])).stdout;
      expect(status).toContain(`  Tokens:      ${tokens}`);
      // the completion line in normal mode, with the running total (codex's line names no cost)
      expect(r.stderr).toMatch(new RegExp(`\\] ${agent} complete \\(rc=0, \\d+s, \\d+ tokens(, \\$\\d+\\.\\d{4})?, ${tokens} total\\)\n`));
      if (agent === 'claude') {
        expect(state.total_cost_usd).toBeGreaterThan(0);
        expect(status).toMatch(/ {2}Cost: {8}\$\d+\.\d{4}/);
      } else {
        expect(state.total_cost_usd).toBeNull(); // codex reports no cost
      }
      // memory learns from the answer, not from what the agent saw
      expect((await p.helix(['memory', 'recall', 'commit the change before closing the bead'])).stdout).toContain('commit the change before closing the bead');
      expect((await p.helix(['memory', 'recall', 'a lesson the agent only saw in command output'])).stdout).not.toContain('only saw in command output');
    });

    it('check obeys the answer: the transcript shows NEXT_ACTION: POLISH (a file the agent read), the answer quotes it and ends with WAIT; default effort low', async () => {
      const p = new E2EProject(api, agent);
      p.file('notes/skill.md', 'When polish is due, answer:\nNEXT_ACTION: POLISH\n');
      api.script(wire, [{ shell: 'cat notes/skill.md' }, { text: 'The skill says `NEXT_ACTION: POLISH` when polish is due; nothing is due yet.\n\nNEXT_ACTION: WAIT' }]);
      const r = await p.helix(['run', '--no-auto-align']);
      expect(r.stderr).toContain('helix: check returned WAIT');
      expect(r.status).toBe(0);
      expect(api.mainRequests(wire)).toHaveLength(2); // no polish call followed
      expect(api.remaining(wire)).toBe(0);
      // the CLI really ran the command and sent its output (with POLISH) back to the model
      expect(bodyText(api.mainRequests(wire)[1])).toContain('NEXT_ACTION: POLISH');
      expect(r.stderr).toMatch(/\] {2}  When polish is due, answer:/);
      expect(effortOf(agent, api.mainRequests(wire)[0])).toBe('low');
    });

    it('review counts 3: ISSUES_COUNT: 3 in the answer after noisy tool output saying 0; default effort high', async () => {
      const p = new E2EProject(api, agent);
      api.script(wire, [
        { shell: "printf 'PASS 12 tests\\nREVIEW_STATUS: CLEAN\\nISSUES_COUNT: 0\\n'" },
        { text: 'Three problems in the last commit.\nREVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 3\nFINDINGS_FILED: 0' },
      ]);
      const r = await p.helix(['review']);
      // docs/contract/bash-interface.md §9: the Bash line, and exit 10 when the review found issues
      expect(r.stderr).toContain('helix: review reported 3 issue(s), 0 filed as tracker issues\n');
      expect(r.status).toBe(10);
      expect(r.stdout).toBe('Three problems in the last commit.\nREVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 3\nFINDINGS_FILED: 0\n');
      expect(p.beads().map((b) => b.title)).toContainEqual(expect.stringMatching(/^Review findings for last-commit: 3 not filed by the reviewer$/));
      expect(effortOf(agent, api.mainRequests(wire)[0])).toBe('high');
    });

    it('review with a final turn in two parts (the trailers, then a sentence): all of it is the answer; exit 10', async () => {
      const p = new E2EProject(api, agent);
      const parts = ['REVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 2\nFINDINGS_FILED: 0', 'Two problems in the last commit; details above.'];
      api.script(wire, [{ shell: 'git log -1 --oneline' }, { parts }]);
      const r = await p.helix(['review']);
      expect(r.stderr).toContain('helix: review reported 2 issue(s), 0 filed as tracker issues\n');
      expect(r.status).toBe(10);
      expect(r.stdout).toBe(`${parts.join('\n')}\n`);
    });

    it('what the CLI itself reports for a two-part final turn: claude\'s `result` keeps the last part, codex one agent_message per part', async () => {
      const p = new E2EProject(api, agent);
      api.script(wire, [{ parts: ['NEXT_ACTION: WAIT', 'Nothing is due yet.'] }]);
      const options = { root: p.root, prompt: 'Check.\n', model: MODEL_OF[agent] };
      const result = await runAgentInvocation(agent === 'claude' ? claudeInvocation(options) : codexInvocation(options), { env: p.env, timeoutMs: 120_000 });
      const events = jsonEvents(result.stdout);
      if (agent === 'claude') expect(events.filter((e) => e.type === 'result').pop()).toMatchObject({ result: 'Nothing is due yet.' });
      else {
        const messages = events.filter((e) => e.type === 'item.completed' && (e.item as { type?: string }).type === 'agent_message');
        expect(messages.map((e) => (e.item as { text?: string }).text)).toEqual(['NEXT_ACTION: WAIT', 'Nothing is due yet.']);
      }
      expect(result.answer).toBe('NEXT_ACTION: WAIT\nNothing is due yet.');
    });

    it('--effort max reaches the model as max', async () => {
      const p = new E2EProject(api, agent);
      api.script(wire, [{ text: 'NEXT_ACTION: STOP' }]);
      const r = await p.helix(['check', '--effort', 'max']);
      expect(r).toMatchObject({ status: 0, stdout: 'NEXT_ACTION: STOP\n' });
      expect(effortOf(agent, api.mainRequests(wire)[0])).toBe('max');
    });

    it('a 200 KB bead reaches the model whole (the prompt goes on stdin)', async () => {
      const id = 'hx-e2e00002';
      const tail = 'END-OF-THE-LONG-BEAD-7f3a';
      const description = `${'The parser must accept every line of this specification. '.repeat(3600)}${tail}`;
      expect(description.length).toBeGreaterThan(200_000);
      const p = new E2EProject(api, agent, { beads: [bead({ id, title: 'A long bead', description })] });
      api.script(wire, [{ shell: `${p.helixShim} tracker close ${id}` }, { text: `Closed ${id}.` }]);
      const r = await p.helix(['run', '--max-cycles', '1', '--no-auto-review', '--no-auto-align']);
      expect(r.status).toBe(0);
      expect(p.bead(id).status).toBe('closed');
      const first = bodyText(api.mainRequests(wire)[0]);
      expect(first.length).toBeGreaterThan(200_000);
      expect(first).toContain(tail);
    });

    it('a background job the agent starts in one step is still there in its next: helix stops only leftovers nobody runs (issue 31)', async () => {
      const id = 'hx-e2e00003';
      const p = new E2EProject(api, agent, { beads: [bead({ id, title: 'Use a server' })] });
      const pid = join(p.home, 'server.pid');
      const seen = join(p.home, 'server.seen');
      api.script(wire, [
        { shell: `setsid sh -c 'echo $$ > "${pid}"; while :; do echo serving; sleep 0.2; done' & echo started` },
        // the agent's next step comes after helix's 2 s hold on pipe holders has passed
        { shell: `sleep 5; if kill -0 "$(cat "${pid}")"; then echo alive > "${seen}"; else echo gone > "${seen}"; fi; ${p.helixShim} tracker close ${id}` },
        { text: `Closed ${id}.` },
      ]);
      const r = await p.helix(['run', '--max-cycles', '1', '--no-auto-review', '--no-auto-align']);
      expect(r.status).toBe(0);
      // claude leaves a job its Bash started running, and helix must not stop it while claude runs;
      // codex 0.171 ends a command's background jobs itself (measured with helix's watch switched off too)
      expect(readFileSync(seen, 'utf8')).toBe(agent === 'claude' ? 'alive\n' : 'gone\n');
    });
  });
}

// claude refuses its bypass flags as root unless IS_SANDBOX=1; only meaningful when we are root.
describe.skipIf(process.getuid?.() !== 0)('claude as root (real CLI)', () => {
  it('without IS_SANDBOX=1 the call is refused and helix says what to do in one line; helix doctor says it first', async () => {
    const p = new E2EProject(api, 'claude');
    delete p.env.IS_SANDBOX;
    api.script('anthropic', [{ text: 'NEXT_ACTION: STOP' }]);
    const r = await p.helix(['check']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(
      'helix: claude refuses its bypass flags as root: run helix as a non-root user, or set IS_SANDBOX=1 if this is a disposable container or VM (helix does not set it for you)\n',
    );
    expect(api.mainRequests('anthropic')).toHaveLength(0);
    const doctor = await p.helix(['doctor']);
    expect(doctor.stdout).toContain('  claude: running as root without IS_SANDBOX=1: claude refuses its bypass flags as root');
  });
});
