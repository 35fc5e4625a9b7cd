// Spend caps in the loop, end to end through bin/helix with the stub agents: --max-cost,
// --max-tokens and --max-duration are checked between attempts (the attempt that crosses one
// finishes, no new one starts), the run stops with reason `budget` and exit 21 saying what was
// spent; a call that reported no cost makes --max-cost stop rather than silently not fire; a
// `budget:<USD>` label caps its bead; bad values are one line and exit 7.
import { describe, expect, it } from 'vitest';
import { bead } from '../helpers/bead.js';
import { Project, RUN_COMPLETE } from './stub-project.js';

const FIVE = ['a', 'b', 'c', 'd', 'e'].map((n) => bead({ id: `hx-0000000${n}` }));
const CLOSE = [['helix', 'tracker', 'close', '{{id}}']];
const RUN = ['run', '--summary', '--no-auto-align', '--no-auto-review'];

describe('run caps', () => {
  it('--max-cost: claude reports $0.40 a build; the third crosses $1, the run stops before a fourth (exit 21, reason budget), saying what was spent', () => {
    const p = new Project({ beads: FIVE, script: { executeBeadHelp: false, defaults: { implementation: { run: CLOSE, stdout: 'done\n', cost: 0.4, tokens: 1000 } } } });
    const r = p.helix([...RUN, '--agent', 'claude', '--max-cost', '1']);
    expect(r.status, r.stderr).toBe(21);
    expect(p.buildCalls()).toHaveLength(3);
    expect(r.stderr).toContain('helix: stopping: BUDGET: --max-cost $1.00 reached: $1.20 spent, 3000 tokens\n');
    expect(r.stderr).toMatch(/run complete: 3 attempted, 3 completed, 0 skipped, 3000 tokens, \$1\.2000 ═══\nhelix: \$1\.20 spent, 3000 tokens\n/);
    expect(p.runState()).toMatchObject({ stop_reason: 'budget', spent: { cost_usd: 1.2, tokens: 3000, unknown_cost_calls: 0 } });
  });

  it('--max-cost with builds on an agent that reports no cost (codex): the cap cannot be checked, so the run stops before the first build and says why', () => {
    const p = new Project({ beads: FIVE, script: { executeBeadHelp: false, defaults: { implementation: { run: CLOSE, stdout: 'done\n', tokens: 700 } } } });
    const r = p.helix([...RUN, '--agent', 'codex', '--max-cost', '5']);
    expect(r.status, r.stderr).toBe(21);
    expect(p.buildCalls()).toHaveLength(0);
    expect(r.stderr).toContain('helix: stopping: BUDGET: --max-cost $5.00 cannot be checked: the builds run on codex, which reports no cost; nothing was started. Use --max-tokens to cap codex.\n');
  });

  it('--max-cost when a call reports no cost after all (DDx, whose record has none): the run stops after that attempt and says why; status says the cost is unknown', () => {
    const p = new Project({ beads: FIVE, script: { defaults: { 'execute-bead': { run: CLOSE, result: { tokens: 700, cost_usd: null } } } } });
    const r = p.helix([...RUN, '--max-cost', '5']);
    expect(r.status, r.stderr).toBe(21);
    expect(p.buildCalls()).toHaveLength(1);
    expect(r.stderr).toMatch(/helix: stopping: BUDGET: --max-cost \$5\.00 cannot be checked: 1 agent call reported no cost \(codex never does\); \$0\.00 spent \(\+ 1 agent call of unknown cost\), \d+ tokens\. Use --max-tokens to cap an agent that reports no cost\.\n/);
    const status = p.helix(['status']);
    expect(status.stdout).toContain('  Cost unknown: 1 agent call reported no cost (not in the cost above)\n');
    expect(JSON.parse(p.helix(['status', '--json']).stdout).run.spent).toMatchObject({ cost_usd: 0, unknown_cost_calls: 1 });
  });

  it('--max-tokens: DDx reports 600 tokens a build; the second crosses 1000 (exit 21)', () => {
    const p = new Project({ beads: FIVE, script: { defaults: { 'execute-bead': { run: CLOSE, result: { tokens: 600, cost_usd: 0.01 } } } } });
    const r = p.helix([...RUN, '--max-tokens', '1000']);
    expect(r.status, r.stderr).toBe(21);
    expect(p.buildCalls()).toHaveLength(2);
    expect(r.stderr).toContain('helix: stopping: BUDGET: --max-tokens 1000 reached: $0.02 spent, 1200 tokens\n');
  });

  it('--max-duration: no attempt starts once the run is that old', () => {
    const p = new Project({ beads: FIVE });
    const r = p.helix([...RUN, '--max-duration', '1ns']);
    expect(r.status, r.stderr).toBe(21);
    expect(p.buildCalls()).toHaveLength(0);
    expect(r.stderr).toMatch(/^helix: stopping: BUDGET: --max-duration 0ms reached after \d+m?s: \$0\.00 spent, 0 tokens$/m);
    expect(r.stderr.match(RUN_COMPLETE)?.slice(1, 4)).toEqual(['0', '0', '0']);
  });
});

describe('a budget:<USD> label caps its bead', () => {
  it('a failing bead labelled budget:0.5 gets no third attempt once its builds cost $0.60; the next bead is worked', () => {
    const p = new Project({
      beads: [bead({ id: 'hx-000000aa', labels: ['budget:0.5'] }), bead({ id: 'hx-000000bb' })],
      script: { executeBeadHelp: false, responses: [1, 2].map(() => ({ when: 'implementation', stdout: 'no luck\n', cost: 0.3, exit: 1 })), defaults: { implementation: { run: CLOSE, stdout: 'done\n', cost: 0.1 } } },
    });
    const r = p.helix([...RUN, '--agent', 'claude']);
    expect(r.status, r.stderr).toBe(0);
    expect(p.buildCalls().map((c) => c.id)).toEqual(['hx-000000aa', 'hx-000000aa', 'hx-000000bb']);
    expect(r.stderr).toContain('helix:   hx-000000aa — budget:0.5 reached: $0.60 spent, 0 tokens\n');
    expect(p.bead('hx-000000aa').labels).toContain('blocked');
    expect(p.bead('hx-000000bb').status).toBe('closed');
  });
});

describe('bad values: one line on stderr, exit 7, nothing run', () => {
  it.each([
    [['--max-cost', '-1'], /--max-cost/],
    [['--max-cost', 'lots'], /--max-cost/],
    [['--max-tokens', '1.5'], /--max-tokens/],
    [['--max-duration', '5x'], /^helix: --max-duration must be a duration such as 90s, 45m or 1h30m \(time: unknown unit "x" in duration "5x"\)$/],
    [['--max-wait', '1d'], /^helix: --max-wait must be a duration/],
    [['--max-wait', '-5m'], /^helix: --max-wait must not be negative, got "-5m"$/],
  ])('run %j', (flags, message) => {
    const p = new Project({ beads: FIVE });
    const r = p.helix(['run', ...flags]);
    expect(r.status).toBe(7);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(message);
    expect(p.calls()).toEqual([]);
  });
});
