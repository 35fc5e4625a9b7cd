// The other roads through the loop: HELIX_EXECUTOR=execute-loop, direct codex with its token
// footer, --dry-run, `helix check`, the DESIGN/BACKFILL drain routes, and the blocker report for an
// epic blocked by its child.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Project, RUN_COMPLETE } from './stub-project.js';
import { bead } from '../helpers/bead.js';

describe('build paths', () => {
  it('HELIX_EXECUTOR=execute-loop on DDx v0.6.1 is refused with one line: its execute-loop cannot run the bead helix chose', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001' }), bead({ id: 'hx-00000002' })] });
    const before = readFileSync(p.beadsFile, 'utf8');
    const r = p.helix(['run', '--summary'], { HELIX_EXECUTOR: 'execute-loop' });
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(
      "helix: HELIX_EXECUTOR=execute-loop needs DDx's `ddx try <id>` (v0.6.2-alpha50 or later); DDx v0.6.1 has only `ddx agent execute-loop`, which picks its own bead. Unset HELIX_EXECUTOR to let helix claim and run `ddx agent execute-bead`.\n",
    );
    expect(p.buildCalls()).toEqual([]);
    expect(readFileSync(p.beadsFile, 'utf8')).toBe(before);
  });

  it('direct codex (no execute-bead): the exact flags, and tokens read from its footer', () => {
    const p = new Project({
      beads: [bead({ id: 'hx-00000001' })],
      script: {
        executeBeadHelp: false,
        responses: [{ when: 'implementation', run: [['helix', 'tracker', 'close', '{{id}}']], stdout: 'done\n', tokens: 12345 }],
      },
    });
    const r = p.helix(['run', '--summary', '--agent', 'codex', '--model', 'gpt-x']);
    expect(r.status).toBe(0);
    const [call] = p.buildCalls();
    expect(call?.kind).toBe('codex');
    expect(call?.argv.slice(0, 6)).toEqual(['--dangerously-bypass-approvals-and-sandbox', 'exec', '-C', p.root, '-m', 'gpt-x']);
    expect(call?.argv).toContain('--ephemeral');
    expect(r.stderr).toMatch(/codex complete \(rc=0, \d+s, 12345 tokens\)/);
    expect(r.stderr).toMatch(/cycle 1: hx-00000001 → COMPLETE \(1\/1 done, 12345 tokens\)/);
    expect(p.runState().total_tokens).toBe(12345);
  });

  it('run --dry-run prints the command it would run and changes nothing', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001' })] });
    const before = readFileSync(p.beadsFile, 'utf8');
    const r = p.helix(['run', '--dry-run']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^HELIX_SELECTED_ISSUE=hx-00000001 ddx agent execute-bead hx-00000001 .*--json/);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    expect(readFileSync(p.beadsFile, 'utf8')).toBe(before);
    // only the one probe of which DDx this is
    expect(p.calls().map((c) => c.kind)).toEqual(['version']);
  });
});

describe('helix check', () => {
  it('prints the check output and exits 0 when it names a NEXT_ACTION', () => {
    const p = new Project({ script: { responses: [{ when: 'check', stdout: 'All good.\n**NEXT_ACTION:** `BUILD`\n' }] } });
    const r = p.helix(['check', 'src']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('All good.\n**NEXT_ACTION:** `BUILD`\n');
    const [call] = p.checkCalls();
    expect(call?.stdin).toContain('Review scope: src.');
    // The per-call lines name the agent that ran (docs/contract/bash-interface.md §0.4), not the action.
    const harness = call?.argv[call.argv.indexOf('--harness') + 1];
    expect(['codex', 'claude']).toContain(harness);
    expect(r.stderr).toMatch(new RegExp(`^helix: \\[[\\d:]+\\] ddx agent run --harness ${harness} \\(requested: ${harness}\\)  <prompt \\d+ bytes> \\(timeout 2700s\\)$`, 'm'));
    expect(r.stderr).toMatch(new RegExp(`^helix: \\[[\\d:]+\\] ${harness} complete \\(rc=0, \\d+s, \\d+ tokens, \\$0, \\d+ total\\)$`, 'm'));
  });

  it('exits 1 with the contract line when there is none', () => {
    const p = new Project({ script: { responses: [{ when: 'check', stdout: 'no idea\n' }] } });
    const r = p.helix(['check']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('helix: unable to determine NEXT_ACTION from check output');
  });
});

describe('drain routes that run an action', () => {
  it('DESIGN runs the plan action once, then DESIGN again stops cleanly', () => {
    const p = new Project({ script: { defaults: { check: { stdout: 'NEXT_ACTION: DESIGN\n' } } } });
    const r = p.helix(['run', '--summary']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('helix: stopping after check returned DESIGN');
    expect(p.calls().filter((c) => c.action === 'plan')).toHaveLength(1);
    expect(p.checkCalls()).toHaveLength(2);
  });

  it('BACKFILL runs backfill inline and re-checks; a BLOCKED backfill exits 1', () => {
    const ok = new Project({ script: { defaults: { check: { stdout: 'NEXT_ACTION: BACKFILL\n' }, backfill: { run: [['mkdir', '-p', 'docs'], ['touch', 'docs/r.md']], stdout: 'BACKFILL_STATUS: COMPLETE\nBACKFILL_REPORT: docs/r.md\n' } } } });
    const r = ok.helix(['run', '--summary']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('helix: stopping after check returned BACKFILL');
    expect(ok.calls().filter((c) => c.action === 'backfill')).toHaveLength(1);

    const blocked = new Project({ script: { defaults: { check: { stdout: 'NEXT_ACTION: BACKFILL\n' }, backfill: { stdout: 'BACKFILL_STATUS: BLOCKED\n' } } } });
    const b = blocked.helix(['run', '--summary']);
    expect(b.status).toBe(1);
    expect(b.stderr).toMatch(RUN_COMPLETE);
  });
});

describe('blocked epic', () => {
  it('a child that stays intractable blocks its focused epic, and the report names the epic by its title', () => {
    const p = new Project({
      beads: [bead({ id: 'hx-000000e1', title: 'Ship the parser', issue_type: 'epic' }), bead({ id: 'hx-000000c1', title: 'Tokenizer', parent: 'hx-000000e1' })],
      script: { defaults: { 'execute-bead': { result: { status: 'execution_failed', outcome: 'error', exit_code: 1 }, exit: 1 } } },
    });
    const r = p.helix(['run', '--summary']);
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('helix: BLOCKERS (2 issues):');
    expect(r.stderr).toContain('helix:   hx-000000c1 — intractable after 4 attempts with exponential backoff\nhelix:     Tokenizer\n');
    expect(r.stderr).toContain('helix:   hx-000000e1 — child hx-000000c1 intractable after 4 attempts\nhelix:     Ship the parser\n');
    const log = readFileSync(String(p.runState().log), 'utf8');
    expect(log).toContain('helix: blocking parent epic hx-000000e1 due to intractable child hx-000000c1\n');
    const report = readFileSync(p.logFiles('blockers-')[0] as string, 'utf8');
    expect(report).toContain('### hx-000000e1\n\n**Title:** Ship the parser\n**Reason:** child hx-000000c1 intractable after 4 attempts');
    expect(p.bead('hx-000000e1')).toMatchObject({ status: 'open', labels: ['helix', 'blocked'] });
  });
});

describe('agent rotation', () => {
  it('with both agents on PATH and no model named, builds and check go to the alternate; the rest stays on the primary', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001' })] });
    const r = p.helix(['run', '--summary']);
    expect(r.status).toBe(0);
    const [build] = p.buildCalls();
    expect(build?.argv).toEqual(expect.arrayContaining(['--harness', 'claude']));
    const [check] = p.checkCalls();
    expect(check?.argv.slice(0, 4)).toEqual(['agent', 'run', '--harness', 'claude']);
    const align = p.calls().find((c) => c.action === 'align');
    expect(align?.argv).toEqual(expect.arrayContaining(['--harness', 'codex']));
  });

  it('--model names who builds: no automatic alternate, and the model reaches the builds (issue 30)', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001' })] });
    const r = p.helix(['run', '--summary', '--model', 'gpt-x']);
    expect(r.status).toBe(0);
    expect(p.buildCalls()[0]?.argv).toEqual(expect.arrayContaining(['--harness', 'codex', '--model', 'gpt-x']));
    expect(p.checkCalls()[0]?.argv).toEqual(expect.arrayContaining(['--harness', 'codex', '--model', 'gpt-x']));
  });

  it('HELIX_ALT_AGENT=none keeps everything on the primary, with its model', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001' })] });
    const r = p.helix(['run', '--summary', '--model', 'gpt-x'], { HELIX_ALT_AGENT: 'none' });
    expect(r.status).toBe(0);
    expect(p.buildCalls()[0]?.argv).toEqual(expect.arrayContaining(['--harness', 'codex', '--model', 'gpt-x']));
    expect(p.checkCalls()[0]?.argv).toEqual(expect.arrayContaining(['--harness', 'codex', '--model', 'gpt-x']));
  });
});

describe('direct prompting', () => {
  it('HELIX_DIRECT_AGENT=1 sends actions straight to the agent while builds stay on execute-bead', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001' })] });
    const r = p.helix(['run', '--summary'], { HELIX_DIRECT_AGENT: '1' });
    expect(r.status).toBe(0);
    expect(p.buildCalls().map((c) => c.kind)).toEqual(['execute-bead']);
    expect(p.checkCalls().map((c) => c.kind)).toEqual(['claude']);
    expect(p.checkCalls()[0]?.argv).toEqual([
      '-p', '--permission-mode', 'bypassPermissions', '--dangerously-skip-permissions', '--no-session-persistence',
      '--output-format', 'stream-json', '--verbose', '--effort', 'low',
    ]);
    expect(p.checkCalls()[0]?.cwd).toBe(p.root);
  });

  it('a direct build prompt batches related ready beads by area label, never epics or other areas', () => {
    const p = new Project({
      beads: [
        bead({ id: 'hx-00000001', labels: ['area:ui'] }),
        bead({ id: 'hx-00000002', labels: ['area:ui'], title: 'Same area' }),
        bead({ id: 'hx-00000003', labels: ['area:db'] }),
        bead({ id: 'hx-00000004', labels: ['area:ui'], issue_type: 'epic' }),
      ],
      script: { executeBeadHelp: false },
    });
    const r = p.helix(['run', '--summary', '--agent', 'claude', '--max-cycles', '1']);
    expect(r.status).toBe(0);
    const prompt = p.buildCalls()[0]?.stdin ?? '';
    expect(prompt).toContain('Implementation target: hx-00000001');
    expect(prompt).toContain('- hx-00000002: Same area');
    expect(prompt).not.toContain('hx-00000003');
    expect(prompt).not.toContain('hx-00000004');
  });
});
