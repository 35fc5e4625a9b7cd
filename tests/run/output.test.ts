// What a person (or a harness) sees: `--summary` prints only the contract's lines (§9), each agent
// call's `log L<a>–L<b>` points at exactly its output in the session log, normal mode prints the
// `ready=…, cycle=…, issue=…` line, and run-state carries every §9 key.
import { readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Project, RUN_COMPLETE, bead } from './harness.js';

const T = '\\[\\d\\d:\\d\\d:\\d\\d\\]';
const SUMMARY_LINES = [
  new RegExp(`^helix: ${T} cycle \\d+: hx-\\w+ \\(\\d+ ready\\)$`),
  new RegExp(`^helix: ${T} cycle \\d+: hx-\\w+ → COMPLETE \\(\\d+/\\d+ done, \\d+ tokens\\)$`),
  new RegExp(`^helix: ${T} cycle \\d+: FAILED$`),
  new RegExp(`^helix: ${T} BLOCKED hx-\\w+ after \\d+ attempts$`),
  new RegExp(`^helix: ${T} \\w+ complete \\(rc=-?\\d+, \\d+s, \\d+ tokens\\) — log L\\d+–L\\d+ in \\.helix-logs/helix-\\d{8}-\\d{6}\\.log$`),
  /^helix: stopping after check returned [A-Z]+$/,
  /^helix: BLOCKERS \(\d+ issues\):$/,
  /^helix: {3}hx-\w+: .+ — .+$/,
  RUN_COMPLETE,
];

const FAIL = { result: { status: 'execution_failed', outcome: 'error', exit_code: 1 }, exit: 1 };

function scenario() {
  return new Project({
    beads: [bead({ id: 'hx-0000000c', title: 'Hard one', priority: 1 }), bead({ id: 'hx-0000000a' }), bead({ id: 'hx-0000000b' })],
    script: {
      responses: [1, 2, 3, 4].map(() => ({ when: 'execute-bead', stdout: 'AGENT-FAIL {{id}}\nsecond line\n', ...FAIL })),
      defaults: {
        'execute-bead': { stdout: 'AGENT-OUT {{id}}\n', run: [['helix', 'tracker', 'close', '{{id}}']], result: { tokens: 7 } },
        check: { stdout: 'CHECK-OUT\nNEXT_ACTION: STOP\n' },
      },
    },
  });
}

describe('--summary', () => {
  it('prints only the contract’s lines, and each log reference points at that call’s output', () => {
    const p = scenario();
    const r = p.helix(['run', '--summary']);
    expect(r.status).toBe(0);
    const lines = r.stderr.split('\n').filter(Boolean);
    const stray = lines.filter((l) => !SUMMARY_LINES.some((re) => re.test(l)));
    expect(stray).toEqual([]);
    // every kind of line showed up at least once, so the check above is not vacuous
    for (const re of SUMMARY_LINES) expect(lines.some((l) => re.test(l)), String(re)).toBe(true);
    expect(r.stdout).toBe('');

    const logName = String(p.runState().log);
    const log = readFileSync(join(p.root, logName), 'utf8').split('\n');
    // a build's `… complete` line is the one right after its cycle line; the others are check/align
    const refs = lines.flatMap((l, i) => {
      const m = /(\w+) complete \(rc=(-?\d+).*— log L(\d+)–L(\d+) in (\S+)$/.exec(l);
      const build = /cycle \d+: hx-\w+ \(\d+ ready\)$/.test(lines[i - 1] ?? '');
      return m ? [{ build, rc: Number(m[2]), first: Number(m[3]), last: Number(m[4]), file: m[5] }] : [];
    });
    expect(refs.map((ref) => ref.file)).toEqual(refs.map(() => logName));
    const builds = p.buildCalls().map((c) => c.id);
    expect(builds).toEqual(['hx-0000000c', 'hx-0000000c', 'hx-0000000c', 'hx-0000000c', 'hx-0000000a', 'hx-0000000b']);
    const buildRefs = refs.filter((ref) => ref.build);
    expect(buildRefs).toHaveLength(6);
    buildRefs.forEach((ref, i) => {
      const block = log.slice(ref.first - 1, ref.last);
      const id = builds[i];
      if (i < 4) {
        expect(ref.rc).toBe(1);
        expect(block[0]).toBe(`AGENT-FAIL ${id}`);
        expect(block[1]).toBe('second line');
      } else {
        expect(ref.rc).toBe(0);
        expect(block[0]).toBe(`AGENT-OUT ${id}`);
      }
      // the last line of the block is the execute-bead JSON result, and nothing else is in it
      expect(JSON.parse(block[block.length - 1] as string)).toMatchObject({ bead_id: id });
      expect(block).toHaveLength(i < 4 ? 3 : 2);
      expect(log[ref.first - 2]?.startsWith('helix:')).toBe(true);
      expect(log[ref.last]?.startsWith('helix:')).toBe(true);
    });
    const checkRef = refs.find((ref) => !ref.build);
    expect(log.slice((checkRef?.first ?? 0) - 1, checkRef?.last)).toEqual(['CHECK-OUT', 'NEXT_ACTION: STOP']);
    expect(r.stderr).toMatch(/cycle 5: hx-0000000a → COMPLETE \(1\/5 done, 7 tokens\)/);
    expect(r.stderr).toMatch(/cycle 6: hx-0000000b → COMPLETE \(2\/6 done, 14 tokens\)/);
    expect(r.stderr.match(RUN_COMPLETE)?.slice(1)).toEqual(['6', '2', '1', '14']);
  });

  it('with epic focus and orphan recovery too: stderr keeps to the contract lines, the log has the detail', () => {
    const dead = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' }).pid as number;
    const p = new Project({
      beads: [
        bead({ id: 'hx-000000e1', issue_type: 'epic' }),
        bead({ id: 'hx-000000c1', parent: 'hx-000000e1' }),
        bead({ id: 'hx-000000c2', parent: 'hx-000000e1', status: 'in_progress', owner: 'helix', 'claimed-pid': String(dead), 'claimed-at': '2026-01-01T00:00:00Z' }),
      ],
    });
    const r = p.helix(['run', '--summary']);
    expect(r.status).toBe(0);
    // the epic-focus and reclaim lines are quoted by the contract (§6.2, §7); they may show or stay in the log
    const quoted = [/^helix: epic focus hx-\w+ → child hx-\w+$/, /^helix: reclaiming orphaned hx-\w+ \(age=\d+s, pid=\d+ dead\)$/, /^helix: recovered \d+ orphaned issue\(s\)$/];
    const allowed = [...SUMMARY_LINES, ...quoted];
    expect(r.stderr.split('\n').filter(Boolean).filter((l) => !allowed.some((re) => re.test(l)))).toEqual([]);
    const log = readFileSync(join(p.root, String(p.runState().log)), 'utf8');
    expect(log).toContain('helix: epic focus hx-000000e1 → child hx-000000c1');
    expect(log).toContain(`helix: reclaiming orphaned hx-000000c2 (age=`);
    expect(log).toContain('helix: closed epic hx-000000e1 (all children closed)');
    expect(r.stderr).not.toContain('closed epic');
    expect(p.bead('hx-000000e1').status).toBe('closed');
  });

  it('normal mode prints the ready/cycle/issue line, the detail and the agent’s output', () => {
    const p = new Project({ beads: [bead({ id: 'hx-0000000a' }), bead({ id: 'hx-0000000b' })], script: { defaults: { 'execute-bead': { stdout: 'AGENT-OUT {{id}}\n', run: [['helix', 'tracker', 'close', '{{id}}']], result: {} } } } });
    const r = p.helix(['run']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^helix: ${T} ready=2, cycle=1, issue=hx-0000000a$`, 'm'));
    expect(r.stderr).toMatch(new RegExp(`^helix: ${T} ready=1, cycle=2, issue=hx-0000000b$`, 'm'));
    expect(r.stderr).toContain('AGENT-OUT hx-0000000a\n');
    expect(r.stderr).toMatch(/^helix: run started/m);
  });
});

describe('run-state (contract §9)', () => {
  it('holds every key after a run, merged into what was there', () => {
    const p = new Project({ beads: [bead({ id: 'hx-0000000a' })] });
    const stateFile = join(p.root, '.ddx', 'run-state.json');
    writeFileSync(stateFile, JSON.stringify({ other_tool: 'kept' }));
    const r = p.helix(['run', '--summary', '--agent', 'codex']);
    expect(r.status).toBe(0);
    const state = p.runState();
    for (const key of ['current_issue', 'focused_epic', 'completed_cycles', 'attempted_cycles', 'skipped_count', 'total_tokens', 'stop_reason', 'last_run', 'agent', 'cycle_start', 'cycle_end', 'cycle_duration', 'log']) {
      expect(state, key).toHaveProperty(key);
    }
    expect(state).toMatchObject({
      other_tool: 'kept',
      current_issue: null,
      focused_epic: null,
      completed_cycles: 1,
      attempted_cycles: 1,
      skipped_count: 0,
      total_tokens: 0,
      stop_reason: 'completed',
      agent: 'codex',
      cycle_duration: expect.any(Number),
    });
    for (const key of ['last_run', 'cycle_start', 'cycle_end']) expect(String(state[key])).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(String(state.log)).toMatch(/^\.helix-logs\/helix-\d{8}-\d{6}\.log$/);
  });
});

