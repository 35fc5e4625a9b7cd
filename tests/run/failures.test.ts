// Failed attempts end to end: backoff to a block with the right reason, verification that
// reopens a bead the agent closed, queue drift mid-run, ineligible beads, and the blocker report.
import { chmodSync, existsSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { Project, RUN_COMPLETE, helixLines } from './stub-project.js';
import { bead } from '../helpers/bead.js';

const INTRACTABLE = 'intractable after 4 attempts with exponential backoff';
const NOT_COMPLETED = 'failed to complete after 4 attempts with exponential backoff';
const DRIFT = 'queue drift: upstream governance fields changed during execution';
const CLAIM_KEYS = ['claimed-pid', 'claimed-at', 'claim-token', 'claimed-machine', 'owner'];

function expectUnclaimed(b: Record<string, unknown>) {
  for (const key of CLAIM_KEYS) expect(b).not.toHaveProperty(key);
}

describe('backoff to a block', () => {
  const cases = [
    { name: 'the agent failed every time', response: { result: { status: 'execution_failed', outcome: 'error', exit_code: 1, detail: 'boom' }, exit: 1 }, reason: INTRACTABLE, blocked: 'after 4 attempts', blocking: 'after 4 failed attempts' },
    { name: 'the agent exited 0 without completing', response: { result: { status: 'no_changes', outcome: 'no-changes' } }, reason: NOT_COMPLETED, blocked: 'after 4 non-completing attempts', blocking: 'after 4 non-completing attempts' },
    { name: 'the agent exited 0 and printed no result', response: { stdout: 'did some thinking\n' }, reason: NOT_COMPLETED, blocked: 'after 4 non-completing attempts', blocking: 'after 4 non-completing attempts' },
  ];
  for (const c of cases) {
    it(`blocks after exactly 4 attempts when ${c.name}, with reason "${c.reason.split(' after')[0]}"`, () => {
      const p = new Project({
        beads: [bead({ id: 'hx-000000aa', title: 'Stubborn bead' }), bead({ id: 'hx-000000bb' })],
        script: { responses: [1, 2, 3, 4].map(() => ({ when: 'execute-bead', ...c.response })) },
      });
      const r = p.helix(['run', '--summary']);
      expect(r.status).toBe(0);
      expect(p.buildCalls().map((x) => x.id)).toEqual(['hx-000000aa', 'hx-000000aa', 'hx-000000aa', 'hx-000000aa', 'hx-000000bb']);
      expect(r.stderr).toMatch(new RegExp(`^helix: \\[\\d\\d:\\d\\d:\\d\\d\\] BLOCKED hx-000000aa ${c.blocked}$`, 'm'));
      expect(r.stderr).toContain('helix: BLOCKERS (1 issue):');
      expect(r.stderr).toContain(`helix:   hx-000000aa — ${c.reason}\nhelix:     Stubborn bead\n`);
      // the long form goes with the other modes
      const quiet = new Project({ beads: [bead({ id: 'hx-000000aa' })], script: { responses: [1, 2, 3, 4].map(() => ({ when: 'execute-bead', ...c.response })) } });
      const q = quiet.helix(['run', '--quiet']);
      expect(q.stderr).toContain(`helix: blocking hx-000000aa ${c.blocking}\n`);
      expect(q.stderr).not.toMatch(/BLOCKED hx-000000aa/);
      expect(r.stderr.match(RUN_COMPLETE)?.slice(1, 4)).toEqual(['5', '1', '1']);
      const blocked = p.bead('hx-000000aa');
      expect(blocked.status).toBe('open');
      expectUnclaimed(blocked);
      expect(blocked.labels).toEqual(expect.arrayContaining(['helix', 'blocked']));
      expect(String(blocked.notes)).toMatch(new RegExp(`^BLOCKED \\[[^\\]]+\\]: ${c.reason}$`));
      expect(p.bead('hx-000000bb').status).toBe('closed');
      expect(p.runState()).toMatchObject({ skipped_count: 1, attempted_cycles: 5, completed_cycles: 1 });
    });
  }

  it('the blocker report file, and a second run that hits the same block adds no second note', () => {
    const p = new Project({
      beads: [bead({ id: 'hx-000000aa', title: 'Stubborn bead' })],
      script: { defaults: { 'execute-bead': { result: { status: 'execution_failed', outcome: 'error', exit_code: 1 }, exit: 1 } } },
    });
    const first = p.helix(['run', '--summary']);
    expect(first.status).toBe(0);
    const [report] = p.logFiles('blockers-');
    expect(report).toBeDefined();
    const text = readFileSync(report as string, 'utf8').split('\n');
    expect(text[0]).toBe('# HELIX Run Blocker Report');
    expect(text).toContainEqual(expect.stringMatching(/^Generated: \d{4}-\d\d-\d\dT/));
    expect(text).toContain('Cycles: 4 attempted, 0 completed, 1 skipped');
    expect(text).toContain(`Log: ${String(p.runState().log)}`);
    expect(text).toContain('### hx-000000aa');
    expect(text).toContain('**Title:** Stubborn bead');
    expect(text).toContain(`**Reason:** ${INTRACTABLE}`);
    const notesAfterFirst = p.bead('hx-000000aa').notes;
    // parked the way DDx parks a bead (work-retry-after, RFC 3339 UTC), an hour out the first time
    const parkedUntil = String(p.bead('hx-000000aa')['work-retry-after']);
    expect(parkedUntil).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Date.parse(parkedUntil) - Date.now()).toBeGreaterThan(3_500_000);
    expect(Date.parse(parkedUntil) - Date.now()).toBeLessThanOrEqual(3_600_000);
    // the park and its time, in every mode (it was a narrative line, in the log only with --summary)
    expect(first.stderr).toContain(`helix: parked hx-000000aa until ${parkedUntil} (work-retry-after; \`helix tracker unpark hx-000000aa\` clears it)\n`);

    // the next run leaves the parked bead alone: no attempt is spent on it
    const parked = p.helix(['run', '--summary']);
    expect(parked.status).toBe(0);
    expect(p.buildCalls()).toHaveLength(4);
    const status = JSON.parse(p.helix(['status', '--json']).stdout) as { parked_beads: Array<{ id: string; reason: string; next_eligible: string }> };
    expect(status.parked_beads).toContainEqual(expect.objectContaining({ id: 'hx-000000aa', reason: 'retry-parked', next_eligible: parkedUntil }));

    // unparked, it is tried again; parked again, for twice as long
    expect(p.helix(['tracker', 'unpark', 'hx-000000aa']).stdout).toBe('Unparked hx-000000aa (cleared work-retry-after)\n');
    expect(p.helix(['tracker', 'unpark', 'hx-000000aa']).stdout).toBe('hx-000000aa was not parked\n');
    const second = p.helix(['run', '--summary']);
    expect(second.status).toBe(0);
    expect(p.buildCalls()).toHaveLength(8);
    expect(Date.parse(String(p.bead('hx-000000aa')['work-retry-after'])) - Date.now()).toBeGreaterThan(7_100_000);
    const b = p.bead('hx-000000aa');
    expect(b.notes).toBe(notesAfterFirst);
    expect(String(b.notes).split('\n').filter((l) => l.startsWith('BLOCKED ['))).toHaveLength(1);
    expect(b.labels?.filter((l) => l === 'blocked')).toHaveLength(1);
  });
});

describe('verification (HELIX_VERIFY_CMD, the bead’s verify key)', () => {
  it('a failed HELIX_VERIFY_CMD reopens the bead the agent closed and counts as a failed attempt', () => {
    const p = new Project({
      beads: [bead({ id: 'hx-000000aa' })],
      script: {
        responses: [
          { when: 'execute-bead', run: [['helix', 'tracker', 'close', '{{id}}']], result: {} },
          { when: 'execute-bead', run: [['touch', 'verified.flag'], ['helix', 'tracker', 'close', '{{id}}']], result: {} },
        ],
      },
    });
    const r = p.helix(['run', '--summary'], { HELIX_VERIFY_CMD: 'test -f verified.flag' });
    expect(r.status).toBe(0);
    expect(p.buildCalls()).toHaveLength(2);
    // a failed verification is a failed cycle too: --summary says which bead and why, in one line
    expect(r.stderr).toMatch(/^helix: \[\d\d:\d\d:\d\d\] cycle 1: FAILED \(hx-000000aa attempt 1\): verification failed: test -f verified.flag exited 1$/m);
    expect(r.stderr).toMatch(/^helix: \[\d\d:\d\d:\d\d\] backoff 0s, then attempt 2 for hx-000000aa$/m);
    expect(r.stderr).toMatch(/cycle 2: hx-000000aa → COMPLETE \(1\/2 done/);
    const b = p.bead('hx-000000aa');
    expect(b.status).toBe('closed');
    expect(String(b.notes)).toMatch(/^REOPENED \[[^\]]+\]: verification failed: test -f verified.flag exited 1/);
    expect(r.stderr.match(RUN_COMPLETE)?.slice(1, 3)).toEqual(['2', '1']);
  });

  it('a success result that fails verification is not closed by helix: the claim is released', () => {
    const p = new Project({
      beads: [bead({ id: 'hx-000000aa' })],
      script: { defaults: { 'execute-bead': { result: {} } } },
    });
    const r = p.helix(['run', '--summary', '--max-cycles', '1'], { HELIX_VERIFY_CMD: 'exit 3' });
    expect(r.status).toBe(0);
    expect(p.buildCalls()).toHaveLength(4);
    const b = p.bead('hx-000000aa');
    expect(b.status).toBe('open');
    expectUnclaimed(b);
    expect(r.stderr).toContain(`helix:   hx-000000aa — ${NOT_COMPLETED}`);
  });

  it('the bead’s verify key is taken before the attempt: an agent rewriting it cannot pass verification', () => {
    const p = new Project({
      beads: [bead({ id: 'hx-000000aa', verify: 'test -f verified.flag' })],
      script: {
        responses: [
          { when: 'execute-bead', run: [['helix', 'tracker', 'update', '{{id}}', '--set', 'verify=true'], ['helix', 'tracker', 'close', '{{id}}']], result: {} },
          { when: 'execute-bead', run: [['touch', 'verified.flag']], result: {} },
        ],
      },
    });
    const r = p.helix(['run', '--summary']);
    expect(r.status).toBe(0);
    expect(p.buildCalls()).toHaveLength(2);
    expect(r.stderr).toMatch(/cycle 2: hx-000000aa → COMPLETE/);
    expect(p.bead('hx-000000aa').status).toBe('closed');
    expect(String(p.bead('hx-000000aa').notes)).toContain('verification failed: test -f verified.flag exited 1');
  });
});

describe('queue drift (the stub changes the bead mid-run)', () => {
  const helix = (...args: string[]) => ['helix', ...args];
  const drifts: Array<[string, string[]]> = [
    ['spec-id', helix('tracker', 'update', '{{id}}', '--set', 'spec-id=SPEC-2')],
    ['parent', helix('tracker', 'update', '{{id}}', '--parent', 'hx-000000ff')],
    ['superseded-by', helix('tracker', 'update', '{{id}}', '--set', 'superseded-by=hx-000000ff')],
    ['replaces', helix('tracker', 'update', '{{id}}', '--set', 'replaces=hx-000000ff')],
    ['dependencies', helix('tracker', 'dep', 'add', '{{id}}', 'hx-000000ee')],
  ];
  for (const [field, command] of drifts) {
    it(`${field}: refuses the stale completion, releases the claim, skips the bead`, () => {
      const p = new Project({
        beads: [
          bead({ id: 'hx-000000aa', title: 'Drifting', 'spec-id': 'SPEC-1' }),
          bead({ id: 'hx-000000ee', status: 'closed' }),
          bead({ id: 'hx-000000ff', status: 'closed' }),
        ],
        script: { responses: [{ when: 'execute-bead', run: [command], result: {} }] },
      });
      const r = p.helix(['run', '--summary']);
      expect(r.status).toBe(0);
      expect(r.stderr).toContain('helix: queue drift detected for hx-000000aa; refusing stale completion');
      expect(r.stderr).toContain(`helix:   hx-000000aa — ${DRIFT}\nhelix:     Drifting\n`);
      expect(p.buildCalls()).toHaveLength(1);
      const b = p.bead('hx-000000aa');
      expect(b.status).toBe('open');
      expectUnclaimed(b);
      expect(r.stderr.match(RUN_COMPLETE)?.slice(1, 4)).toEqual(['1', '0', '1']);
    });
  }

  it('a drifted bead the agent closed stays closed: releasing never reopens it', () => {
    const p = new Project({
      beads: [bead({ id: 'hx-000000aa', 'spec-id': 'SPEC-1' })],
      script: { responses: [{ when: 'execute-bead', run: [['helix', 'tracker', 'update', '{{id}}', '--set', 'spec-id=SPEC-2'], ['helix', 'tracker', 'close', '{{id}}']], result: {} }] },
    });
    const r = p.helix(['run', '--summary']);
    expect(r.stderr).toContain('helix: queue drift detected for hx-000000aa; refusing stale completion');
    const b = p.bead('hx-000000aa');
    expect(b.status).toBe('closed');
    for (const key of ['claimed-pid', 'claimed-at', 'claim-token']) expect(b).not.toHaveProperty(key);
  });
});

describe('queue drift on a superseded bead', () => {
  it('a bead superseded and closed during the attempt is reopened: its completion was stale', () => {
    const p = new Project({
      beads: [bead({ id: 'hx-000000aa' }), bead({ id: 'hx-000000ff', status: 'closed' })],
      script: { responses: [{ when: 'execute-bead', run: [['helix', 'tracker', 'update', '{{id}}', '--set', 'superseded-by=hx-000000ff'], ['helix', 'tracker', 'close', '{{id}}']], result: {} }] },
    });
    const r = p.helix(['run', '--summary']);
    expect(r.stderr).toContain('helix: queue drift detected for hx-000000aa; refusing stale completion');
    expect(p.bead('hx-000000aa')).toMatchObject({ status: 'open', 'superseded-by': 'hx-000000ff' });
    expect(p.buildCalls()).toHaveLength(1);
  });
});

describe('execution eligibility', () => {
  it('never claims a bead that is execution-ineligible, superseded, or parked for retry', () => {
    const ineligible = [
      bead({ id: 'hx-00000001', 'execution-eligible': false, 'spec-id': 'S' }),
      bead({ id: 'hx-00000002', 'superseded-by': 'hx-00000004', 'spec-id': 'S' }),
      bead({ id: 'hx-00000003', 'execute-loop-retry-after': '2999-01-01T00:00:00Z', 'spec-id': 'S' }),
    ];
    const p = new Project({ beads: [...ineligible, bead({ id: 'hx-00000004' })] });
    const r = p.helix(['run', '--summary']);
    expect(r.status).toBe(0);
    expect(p.buildCalls().map((c) => c.id)).toEqual(['hx-00000004']);
    for (const original of ineligible) expect(p.bead(original.id)).toEqual(original);
  });
});

describe('hostile bead text', () => {
  for (const path of ['execute-bead', 'direct codex', 'direct claude'] as const) {
    it(`a title with $(…) and backticks is never executed (${path})`, () => {
      const title = '$(touch pwned) `touch pwned2` ; touch pwned3';
      const p = new Project({ beads: [bead({ id: 'hx-000000aa', title, description: '$(touch pwned4)' })] });
      const args = path === 'direct claude' ? ['run', '--agent', 'claude'] : path === 'direct codex' ? ['run', '--agent', 'codex'] : ['run'];
      const script = path === 'execute-bead' ? undefined : { executeBeadHelp: false, responses: [] };
      if (script) p.script(script);
      const r = p.helix([...args, '--summary']);
      expect(r.status).toBe(0);
      expect(p.buildCalls()).toHaveLength(1);
      if (path !== 'execute-bead') expect(p.buildCalls()[0]?.kind).toBe(path.split(' ')[1]);
      expect(p.bead('hx-000000aa').status).toBe('closed');
      for (const dir of [p.root, p.scratch, process.cwd()]) {
        for (const name of ['pwned', 'pwned2', 'pwned3', 'pwned4']) expect(existsSync(join(dir, name))).toBe(false);
      }
      // the text did reach the agent, verbatim, as data
      const call = p.buildCalls()[0];
      const prompt = path === 'execute-bead' ? readFileSync(join(p.root, '.helix', 'prompts', 'hx-000000aa.md'), 'utf8') : `${call?.stdin ?? ''}${call?.argv.join('\n') ?? ''}`;
      expect(prompt).toContain(`Title: ${title}`);
      expect(helixLines(r.stderr).length).toBeGreaterThan(0);
    });
  }
});

describe('an agent that cannot be started', () => {
  it("is a setup error, not the bead's failure: the run stops at once with one line and exit 22; nothing counted, nothing parked (issue 30)", () => {
    // A codex whose #! interpreter is gone: on PATH and executable, yet every start fails (ENOENT).
    // The only codex on PATH (a later one would be found instead), no ddx: git and node beside it.
    const bin = tempDir('helix-bin-');
    writeFileSync(join(bin, 'codex'), '#!/nonexistent/interpreter\n');
    chmodSync(join(bin, 'codex'), 0o755);
    symlinkSync(process.execPath, join(bin, 'node'));
    const p = new Project({
      beads: [bead({ id: 'hx-000000aa', title: 'First' }), bead({ id: 'hx-000000bb', title: 'Second' })],
      script: { responses: [] },
      env: { PATH: `${bin}:/usr/bin:/bin` },
    });
    for (const run of [1, 2]) {
      const r = p.helix(['run', '--agent', 'codex', '--summary']);
      expect(r.status, `run ${run}: ${r.stderr}`).toBe(22);
      const starts = r.stderr.split('\n').filter((l) => l.startsWith('helix: could not start'));
      expect(starts).toEqual([`helix: could not start codex: the interpreter its #! line names was not found (ENOENT)`]);
      expect(r.stderr).toContain('helix: stopping: SETUP: codex could not be started on hx-000000aa');
      for (const line of helixLines(r.stderr)) expect(line.length).toBeLessThan(400);
      expect(r.stderr.match(RUN_COMPLETE)?.slice(1, 4)).toEqual(['0', '0', '0']);
      for (const id of ['hx-000000aa', 'hx-000000bb']) {
        expect(p.bead(id).status).toBe('open');
        expect(p.bead(id)['work-retry-after']).toBeUndefined();
        expectUnclaimed(p.bead(id));
      }
    }
  });
});

describe('SALVAGED', () => {
  it('an agent that exits non-zero after closing the bead counts as completed', () => {
    const p = new Project({
      beads: [bead({ id: 'hx-000000aa' })],
      script: { responses: [{ when: 'execute-bead', run: [['helix', 'tracker', 'close', '{{id}}']], stderr: 'crashed on the way out\n', exit: 1 }] },
    });
    const r = p.helix(['run', '--summary']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/^helix: \[\d\d:\d\d:\d\d\] cycle 1: hx-000000aa → COMPLETE \(1\/1 done, 0 tokens\)$/m);
    expect(p.buildCalls()).toHaveLength(1);
    expect(r.stderr).toMatch(/^helix: \[\d\d:\d\d:\d\d\] cycle 1: hx-000000aa → SALVAGED \(agent rc=1 but issue closed\)$/m);
    const log = readFileSync(String(p.runState().log), 'utf8');
    expect(log).toContain('helix: agent exited 1 but tracker shows progress (closed 0 → 1) — counting as success');
    expect(log).toContain('helix: hx-000000aa SALVAGED');
  });
});

describe('typed stop through the CLI', () => {
  it('SYSTEMIC_FAILURE: distinct beads failing with one category (HELIX_SYSTEMIC_THRESHOLD of them) stop the run with exit 1', () => {
    const p = new Project({
      beads: ['1', '2', '3', '4'].map((n) => bead({ id: `hx-0000000${n}` })),
      script: { defaults: { 'execute-bead': { result: { status: 'execution_failed', outcome: 'error', exit_code: 1, detail: "Error: Cannot find module 'left-pad'" }, exit: 1 } } },
    });
    // hx-1 fails four times (one bead, however often, is not systemic), then hx-2 fails: two beads
    const r = p.helix(['run', '--summary'], { HELIX_SYSTEMIC_THRESHOLD: '2' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^helix: stopping: SYSTEMIC_FAILURE: 2 beads failed with "import" \(hx-00000001, hx-00000002\)/m);
    expect(r.stderr).toMatch(RUN_COMPLETE);
    expect(p.runState().stop_reason).toBe('systemic_failure');
  });
});
