// helix acts on what an agent ANSWERED, never on what it merely read (issue #11): codex and claude
// stand-ins print their transcript (a command's output holding other trailers) apart from the final
// answer, as the real CLIs do; every command that reads trailers must follow the answer. Also: token
// and cost accounting from the agents' structured output, and the root/IS_SANDBOX advice.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeWouldRefuse } from '../../src/agents/index.js';
import { commitFiles, World } from './stub-world.js';

const stop = { when: 'check', stdout: 'NEXT_ACTION: STOP\n' };

describe('trailers come from the final answer only', () => {
  for (const agent of ['codex', 'claude'] as const) {
    it(`${agent}: helix check ignores a NEXT_ACTION that appears only in the transcript`, () => {
      const w = new World({ programs: [agent], env: { HELIX_AGENT: agent }, responses: [{ when: 'check', stdout: 'Nothing decided yet.\n', transcript: 'NEXT_ACTION: POLISH' }] });
      const r = w.helix(['check']);
      expect(r.stdout).toBe('Nothing decided yet.\n');
      expect(r.stderr).toContain('helix: unable to determine NEXT_ACTION from check output');
      expect(r.status).toBe(1);
    });

    it(`${agent}: helix run obeys the answer's NEXT_ACTION, not the transcript's`, () => {
      const w = new World({ programs: [agent], env: { HELIX_AGENT: agent }, responses: [{ when: 'check', stdout: 'The skill mentions another code.\nNEXT_ACTION: WAIT\n', transcript: 'NEXT_ACTION: POLISH' }] });
      const r = w.helix(['run', '--no-auto-align']);
      expect(r.status).toBe(0);
      expect(w.actions()).toEqual(['check']);
      expect(r.stderr).toContain('helix: check returned WAIT');
    });

    it(`${agent}: helix review reads ISSUES_COUNT from the answer after noisy tool output`, () => {
      const w = new World({
        programs: [agent],
        env: { HELIX_AGENT: agent },
        responses: [{ when: 'review', stdout: 'REVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 3\nFINDINGS_FILED: 3\n', transcript: 'PASS 12 tests\nREVIEW_STATUS: CLEAN\nISSUES_COUNT: 0\n' }],
      });
      const r = w.helix(['review']);
      expect(r.status).toBe(10);
      expect(r.stderr).toContain('helix: review reported 3 issue(s), 3 filed as tracker issues\n');
      expect(r.stdout).toBe('REVIEW_STATUS: ISSUES_FOUND\nISSUES_COUNT: 3\nFINDINGS_FILED: 3\n');
    });
  }

  it('memory feedback reads UTILIZED / LEARNED from the answer only (the run feeds back the answer)', () => {
    // the run loop hands run.answer to the memory port; a LEARNED line in the transcript is not learned
    const w = new World({
      programs: ['codex'],
      responses: [{ when: 'implementation', run: [commitFiles(1), ['helix', 'tracker', 'close', '{{id}}']], stdout: 'done\nLEARNED: the answer lesson\n', transcript: 'LEARNED: a lesson the agent only read' }, stop],
      env: { HELIX_MEMORY: '1', HELIX_EMBEDDER: 'lexical' },
    });
    w.bead({ title: 'task', acceptance: 'done' });
    expect(w.helix(['run', '--no-auto-align', '--no-auto-review']).status).toBe(0);
    const recalled = w.helix(['memory', 'recall', 'lesson', '--limit', '20']).stdout;
    expect(recalled).toContain('the answer lesson');
    expect(recalled).not.toContain('only read');
  });
});

describe('tokens and cost from structured output', () => {
  it('claude: tokens and total_cost_usd reach the completion line, the run total, run-state and helix status', () => {
    const w = new World({
      programs: ['claude'],
      env: { HELIX_AGENT: 'claude' },
      responses: [{ when: 'implementation', run: [['helix', 'tracker', 'close', '{{id}}']], stdout: 'done\n', tokens: 1200, cost: 0.25 }, { ...stop, tokens: 300, cost: 0.05 }],
    });
    w.bead({ title: 'task', acceptance: 'done' });
    const r = w.helix(['run', '--no-auto-align', '--summary']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/claude complete \(rc=0, \d+s, 1200 tokens, \$0\.2500\)/);
    expect(r.stderr).toMatch(/cycle 1: hx-\w+ → COMPLETE \(1\/1 done, 1200 tokens\)/);
    expect(r.stderr).toContain('helix: ═══ run complete: 1 attempted, 1 completed, 0 skipped, 1500 tokens, $0.3000 ═══');
    const state = JSON.parse(readFileSync(join(w.repo, '.ddx', 'run-state.json'), 'utf8')) as Record<string, unknown>;
    expect(state).toMatchObject({ total_tokens: 1500, total_cost_usd: 0.3 });
    const status = w.helix(['status']).stdout;
    expect(status).toContain('  Tokens:      1500');
    expect(status).toContain('  Cost:        $0.3000');
  });

  it('codex: tokens from turn.completed usage; no cost is shown because codex reports none', () => {
    const w = new World({ programs: ['codex'], responses: [{ ...stop, tokens: 4321 }] });
    const r = w.helix(['run', '--no-auto-align', '--summary']);
    expect(r.stderr).toContain('helix: ═══ run complete: 0 attempted, 0 completed, 0 skipped, 4321 tokens ═══');
    expect(w.helix(['status']).stdout).not.toContain('Cost:');
  });
});

describe('claude as root', () => {
  const asRoot = { HELIX_AGENT: 'claude', HELIX_STUB_AS_ROOT: '1', IS_SANDBOX: '' };

  it('a refused call prints one line saying what to do; helix does not set IS_SANDBOX itself (the call stays refused)', () => {
    const w = new World({ programs: ['claude'], env: asRoot });
    const r = w.helix(['check']);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      'helix: claude refuses its bypass flags as root: run helix as a non-root user, or set IS_SANDBOX=1 if this is a disposable container or VM (helix does not set it for you)\n',
    );
  });

  it('claudeWouldRefuse: root without IS_SANDBOX=1 only', () => {
    expect(claudeWouldRefuse(0, {})).toBe(true);
    expect(claudeWouldRefuse(0, { IS_SANDBOX: '1' })).toBe(false);
    expect(claudeWouldRefuse(1000, {})).toBe(false);
  });

  // helix doctor asks the real uid; this machine's tests run as root (CI too), elsewhere this is skipped.
  it.skipIf(process.getuid?.() !== 0)('helix doctor (as root) warns under Tools, in text and JSON, until IS_SANDBOX=1 is set', () => {
    const w = new World({ programs: ['claude'], env: { IS_SANDBOX: '' } });
    const text = w.helix(['doctor']).stdout;
    expect(text).toContain('  claude: running as root without IS_SANDBOX=1: claude refuses its bypass flags as root: run helix as a non-root user, or set IS_SANDBOX=1');
    expect(JSON.parse(w.helix(['doctor', '--json']).stdout).warnings).toHaveLength(1);
    expect(w.helix(['doctor'], { IS_SANDBOX: '1' }).stdout).not.toContain('IS_SANDBOX');
  });

  it('the same call with IS_SANDBOX=1 set by the user runs', () => {
    const w = new World({ programs: ['claude'], responses: [stop], env: { ...asRoot, IS_SANDBOX: '1' } });
    expect(w.helix(['check'])).toMatchObject({ status: 0, stdout: 'NEXT_ACTION: STOP\n' });
  });
});
