// What a person (or a harness) sees, per output mode (docs/contract/bash-interface.md §0.2–§0.4, §2): `--summary`
// prints only the summary forms and the always-lines, each agent call's `log L<a>–L<b>` pointing at
// exactly its framed block in the session log; `--quiet` hides only the agent-call noise and keeps
// the narrative and the long cycle line; normal mode shows all of it. Run-state carries every key.
import { readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Project, RUN_COMPLETE } from './stub-project.js';
import { bead } from '../helpers/bead.js';

const T = '\\[\\d\\d:\\d\\d:\\d\\d\\]';
const LOG = '/\\S+/\\.helix-logs/helix-\\d{8}-\\d{6}\\.log';
/** Every line `--summary` may print (§0.2: the summary forms and the always-lines). */
const SUMMARY_LINES = [
  new RegExp(`^helix: ${T} cycle \\d+: hx-\\w+ \\(\\d+ ready\\)$`),
  new RegExp(`^helix: ${T} cycle \\d+: hx-\\w+ → COMPLETE \\(\\d+/\\d+ done, \\d+ tokens\\)$`),
  // every failure says which bead, which attempt and why; every backoff and the park say so too
  new RegExp(`^helix: ${T} cycle \\d+: FAILED \\(hx-\\w+ attempt \\d\\): .+$`),
  new RegExp(`^helix: ${T} backoff \\d+s, then attempt \\d for hx-\\w+$`),
  new RegExp(`^helix: ${T} backoff \\d+s after attempt 4 for hx-\\w+, the last$`),
  new RegExp(`^helix: ${T} BLOCKED hx-\\w+ after \\d+ attempts$`),
  /^helix: parked hx-\w+ until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(work-retry-after; `helix tracker unpark hx-\w+` clears it\)$/,
  // a DDx build call (named by its harness), and `ddx agent run` calls with their cost
  new RegExp(`^helix: ${T} \\w+ complete \\(rc=-?\\d+, \\d+s, \\d+ tokens\\) — log L\\d+–L\\d+ in ${LOG}$`),
  new RegExp(`^helix: ${T} \\w+ complete \\(rc=-?\\d+, \\d+s, \\d+ tokens, \\$[\\d.]+\\) — log L\\d+–L\\d+ in ${LOG}$`),
  /^helix: stopping after check returned [A-Z]+$/,
  /^helix: BLOCKERS \((1 issue|\d+ issues)\):$/,
  /^helix: {3}hx-\w+ — .+$/,
  /^helix: {5}.+$/,
  new RegExp(`^helix: blocker report written to /\\S+/\\.helix-logs/blockers-\\d{8}-\\d{6}\\.md$`),
  // the run's last line, after the blocker report's: its night's page
  /^helix: run report written to \/\S+\/\.helix-logs\/helix-\d{8}-\d{6}\.report\.html$/,
  /^$/,
  RUN_COMPLETE,
  // after it, what the budget caps count, whenever a call reported no cost (a DDx agent run here)
  /^helix: \$\d+\.\d{2,4} spent \(\+ \d+ agent calls? of unknown cost\), \d+ tokens$/,
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
  it('prints only the summary forms and the always-lines, and each log reference points at that call’s framed block', () => {
    const p = scenario();
    const r = p.helix(['run', '--summary']);
    expect(r.status).toBe(0);
    const lines = r.stderr.split('\n').slice(0, -1);
    const stray = lines.filter((l) => !SUMMARY_LINES.some((re) => re.test(l)));
    expect(stray).toEqual([]);
    // every kind of line showed up at least once, so the check above is not vacuous
    for (const re of SUMMARY_LINES) expect(lines.some((l) => re.test(l)), String(re)).toBe(true);
    // the build calls' and the drain check's output go to the log, not the terminal (§0.2)
    expect(r.stdout).not.toMatch(/AGENT-|CHECK-OUT/);

    const logName = String(p.runState().log);
    expect(logName).toMatch(new RegExp(`^${LOG}$`));
    const log = readFileSync(logName, 'utf8').split('\n');
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
      // L<a>–L<b>: the log's line count before the block and after it, as `wc -l` counted (§0.3)
      const block = log.slice(ref.first, ref.last);
      const id = builds[i];
      expect(block[0]).toMatch(new RegExp(`^--- ddx agent execute-bead output ${T} rc=${ref.rc} elapsed=\\d+s ---$`));
      expect(block.at(-1)).toBe('--- end ddx agent execute-bead output ---');
      if (i < 4) {
        expect(ref.rc).toBe(1);
        expect(block.slice(1, 3)).toEqual([`AGENT-FAIL ${id}`, 'second line']);
      } else {
        expect(ref.rc).toBe(0);
        expect(block[1]).toBe(`AGENT-OUT ${id}`);
      }
      // the execute-bead JSON result is the last thing inside the frame
      expect(JSON.parse(block.at(-2) as string)).toMatchObject({ bead_id: id });
      expect(log[ref.first - 1]?.startsWith('helix:')).toBe(true);
    });
    const checkRef = refs.find((ref) => !ref.build);
    const checkBlock = log.slice(checkRef?.first, checkRef?.last);
    expect(checkBlock[0]).toMatch(new RegExp(`^--- ddx agent run ${T} harness=claude rc=0 exit=0 elapsed=\\d+s cost=\\$0 tokens=0 ---$`));
    expect(checkBlock.slice(1)).toEqual(['CHECK-OUT', 'NEXT_ACTION: STOP', '--- end ddx agent output ---']);
    expect(r.stderr).toMatch(/cycle 5: hx-0000000a → COMPLETE \(1\/5 done, 7 tokens\)/);
    expect(r.stderr).toMatch(/cycle 6: hx-0000000b → COMPLETE \(2\/6 done, 14 tokens\)/);
    expect(r.stderr).toContain('\n\nhelix: ═══ run complete: 6 attempted, 2 completed, 1 skipped, 14 tokens ═══\n');
    // narrative lines are in the log (§0.3)
    expect(log).toContain('helix: implementation failed during cycle 1 (will not count toward completed cycles)');
    expect(log).toContain('helix: attempt 2 for hx-0000000c (backoff 0s)');
    expect(log).toContain('helix: queue empty, running alignment before stopping');
  });

  it('with epic focus and orphan recovery too: the reclaim lines show in every mode, the focus lines stay in the log', () => {
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
    // §3: reclaim lines in every mode; §2.3: `epic focus <epic> → child` (a task's parent epic) is an always-line
    const always = [/^helix: epic focus hx-\w+ → child hx-\w+$/, /^helix: reclaiming orphaned hx-\w+ \(age=\d+s, pid=\d+ dead\)$/, /^helix: recovered \d+ orphaned issue\(s\)$/];
    expect(r.stderr.split('\n').slice(0, -1).filter((l) => ![...SUMMARY_LINES, ...always].some((re) => re.test(l)))).toEqual([]);
    expect(r.stderr).toContain(`helix: reclaiming orphaned hx-000000c2 (age=`);
    expect(r.stderr).toContain('helix: epic focus hx-000000e1 → child hx-000000c1\n');
    const log = readFileSync(String(p.runState().log), 'utf8');
    expect(log).toContain('helix: found 1 in-progress issue(s), checking for orphans...\n');
    expect(log).toContain('helix: epic focus: hx-000000e1 → child hx-000000c2\n');
    expect(log).toContain('helix: epic hx-000000e1 has no remaining open children — closing epic\n');
    expect(r.stderr).not.toContain('closing epic');
    expect(p.bead('hx-000000e1').status).toBe('closed');
  });
});

describe('--quiet hides only the agent-call noise (docs/contract/bash-interface.md §0.2)', () => {
  it('narrative lines stay on stderr, the cycle line keeps its long form, answers go to stdout; no call, context or rotation lines', () => {
    const p = scenario();
    const r = p.helix(['run', '--quiet']);
    expect(r.status).toBe(0);
    // narrative
    expect(r.stderr).toContain('helix: implementation failed during cycle 1 (will not count toward completed cycles)\n');
    expect(r.stderr).toContain('helix: attempt 2 for hx-0000000c (backoff 0s)\n');
    expect(r.stderr).toContain('helix: queue empty, running alignment before stopping\n');
    expect(r.stderr).toContain('helix: delegating helix run build cycle to ddx agent execute-bead\n');
    // the long cycle line; not the summary forms
    expect(r.stderr).toMatch(new RegExp(`^helix: ${T} ready=3, cycle=1, issue=hx-0000000c$`, 'm'));
    expect(r.stderr).toContain('helix: blocking hx-0000000c after 4 failed attempts\n');
    expect(r.stderr).not.toMatch(/cycle \d+: (hx-\w+ \(|FAILED|.*→ COMPLETE)|BLOCKED hx-/);
    // hidden: agent-call start and completion lines, context, rotation
    expect(r.stderr).not.toMatch(/ complete \(rc=|ddx agent run --harness|generated context|adversarial|still running/);
    // the answers: build output and the check's answer on stdout
    expect(r.stdout).toContain('AGENT-FAIL hx-0000000c\n');
    expect(r.stdout).toContain('CHECK-OUT\nNEXT_ACTION: STOP\n');
    // the hidden lines are still in the log
    const log = readFileSync(String(p.runState().log), 'utf8');
    expect(log).toMatch(/helix: \[[\d:]+\] claude complete \(rc=0, \d+s, 7 tokens, \d+ total\)\n/);
    expect(log).toContain('helix: adversarial check: switching to claude\n');
  });
});

describe('normal mode', () => {
  it('prints the long cycle line, the narrative, the agent-call lines in their long form, and the answers on stdout', () => {
    const p = new Project({ beads: [bead({ id: 'hx-0000000a' }), bead({ id: 'hx-0000000b' })], script: { defaults: { 'execute-bead': { stdout: 'AGENT-OUT {{id}}\n', run: [['helix', 'tracker', 'close', '{{id}}']], result: {} } } } });
    const r = p.helix(['run']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^helix: ${T} ready=2, cycle=1, issue=hx-0000000a$`, 'm'));
    expect(r.stderr).toMatch(new RegExp(`^helix: ${T} ready=1, cycle=2, issue=hx-0000000b$`, 'm'));
    expect(r.stderr).toContain(`helix: generated context at ${p.root}/.helix/context.md\n`);
    expect(r.stderr).toContain('helix: adversarial check: switching to claude\n');
    // §0.4: `ddx agent run` start and completion lines (an empty model part keeps its two spaces)
    expect(r.stderr).toMatch(new RegExp(`^helix: ${T} ddx agent run --harness claude \\(requested: claude\\)  <prompt \\d+ bytes> \\(timeout 2700s\\)$`, 'm'));
    expect(r.stderr).toMatch(new RegExp(`^helix: ${T} claude complete \\(rc=0, \\d+s, 0 tokens, \\$0, 0 total\\)$`, 'm'));
    expect(r.stderr).toMatch(new RegExp(`^helix: ${T} claude complete \\(rc=0, \\d+s, 0 tokens, 0 total\\)$`, 'm'));
    expect(r.stderr).not.toMatch(/— log L/);
    expect(r.stderr).not.toMatch(/cycle \d+: hx-\w+ \(/);
    expect(r.stdout).toContain('AGENT-OUT hx-0000000a\n');
    expect(r.stderr).toMatch(/^helix: run started/m);
  });

  it('direct codex: the codex start line, its framed block in the log, and the long completion line with the running total', () => {
    const p = new Project({
      beads: [bead({ id: 'hx-0000000a' })],
      script: { executeBeadHelp: false, defaults: { implementation: { stdout: 'IMPLEMENTED\n', run: [['helix', 'tracker', 'close', '{{id}}']], tokens: 1234 } } },
      env: { HELIX_ALT_AGENT: 'none' },
    });
    // an older DDx without execute-bead, and HELIX_DIRECT_AGENT=1: every call goes to codex directly
    const r = p.helix(['run', '--agent', 'codex', '--model', 'gpt-x', '--no-auto-align'], { HELIX_DIRECT_AGENT: '1' });
    expect(r.status).toBe(0);
    const [build] = p.buildCalls();
    expect(build?.program).toBe('codex');
    // codex reads its prompt on stdin (`-`)
    const bytes = Buffer.byteLength(build?.stdin ?? '');
    expect(r.stderr).toMatch(new RegExp(`^helix: ${T} codex exec -C ${p.root} \\(model: gpt-x\\) <prompt ${bytes} bytes> \\(timeout 2700s\\)$`, 'm'));
    expect(r.stderr).toMatch(new RegExp(`^helix: ${T} codex complete \\(rc=0, \\d+s, 1234 tokens, 1234 total\\)$`, 'm'));
    const log = readFileSync(String(p.runState().log), 'utf8');
    // the raw output (codex's JSON events and its transcript) between the Bash frame lines; the answer on stdout
    expect(log).toMatch(new RegExp(`\\n--- codex output ${T} rc=0 elapsed=\\d+s ---\\n[^]*?IMPLEMENTED[^]*?\\n--- end codex output ---\\n`));
    expect(r.stdout).toContain('IMPLEMENTED\n');
  });

  it('direct claude: the start line, the prompt echoed line by line, its size, the completion line; the summary form names no total', () => {
    const p = new Project({ beads: [bead({ id: 'hx-0000000a' })], script: { executeBeadHelp: false }, env: { HELIX_ALT_AGENT: 'none' } });
    const r = p.helix(['run', '--agent', 'claude', '--no-auto-align', '--max-cycles', '1'], { HELIX_DIRECT_AGENT: '1' });
    expect(r.status).toBe(0);
    const prompt = p.buildCalls()[0]?.stdin ?? '';
    expect(r.stderr).toMatch(new RegExp(`^helix: ${T} claude -p --no-session-persistence  \\(timeout 2700s\\)$`, 'm'));
    const echoed = prompt.replace(/\n$/, '').split('\n').map((l) => `helix: │ ${l}`).join('\n');
    expect(r.stderr).toContain(`${echoed}\nhelix: └─ ${Buffer.byteLength(prompt)} bytes\n`);
    // the completion line in normal mode too (the Bash CLI printed none), with the running total
    expect(r.stderr).toMatch(new RegExp(`^helix: ${T} claude complete \\(rc=0, \\d+s, \\d+ tokens(, \\$\\d+\\.\\d{4})?, \\d+ total\\)$`, 'm'));
    const summary = new Project({ beads: [bead({ id: 'hx-0000000a' })], script: { executeBeadHelp: false }, env: { HELIX_ALT_AGENT: 'none' } });
    const s = summary.helix(['run', '--summary', '--agent', 'claude', '--no-auto-align', '--max-cycles', '1'], { HELIX_DIRECT_AGENT: '1' });
    // the Bash line had no tokens (it could not read them); helix reads claude's usage (and cost, when above 0)
    expect(s.stderr).toMatch(new RegExp(`^helix: ${T} claude complete \\(rc=0, \\d+s, \\d+ tokens\\) — log L\\d+–L\\d+ in ${LOG}$`, 'm'));
    expect(s.stderr).not.toContain('│');
  });
});

describe('run-state (docs/contract/bash-interface.md §12.3, docs/contract/cli.md §9)', () => {
  it('holds every key after a run, merged into what was there, with the migration counters', () => {
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
      ddx_delegation_success_count: 0,
      ddx_delegation_failure_count: {},
      parallel_run_denied_count: 0,
      supervisory_injection_count: {},
    });
    for (const key of ['last_run', 'cycle_start', 'cycle_end']) expect(String(state[key])).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(String(state.log)).toMatch(new RegExp(`^${p.root}/\\.helix-logs/helix-\\d{8}-\\d{6}\\.log$`));
  });
});
