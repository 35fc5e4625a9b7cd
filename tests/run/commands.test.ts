// The small commands around the loop: status (text and docs/contract/cli.md §10 JSON), next, build/implement, triage,
// and what `helix run` does when neither ddx nor an agent is installed.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Project, STUBS } from './stub-project.js';
import { bead } from '../helpers/bead.js';

const deadPid = () => spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' }).pid as number;
const hoursAgo = (h: number) => new Date(Date.now() - h * 3600_000).toISOString();

describe('helix status', () => {
  it('before any run: tracker counts and "No run state found"', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001' }), bead({ id: 'hx-00000002', status: 'closed' }), bead({ id: 'hx-00000003', dependencies: ['hx-00000001'] })] });
    const r = p.helix(['status']);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      [
        'HELIX Status',
        '============',
        '',
        'Tracker:',
        '  Total:   3',
        '  Open:    2',
        '  Closed:  1',
        '  Ready:   1',
        '  Blocked: 1',
        '',
        'No run state found. Run `helix run` to generate.',
        '',
        // helix adds which DDx it found after the Bash sections
        `DDx: v0.6.1 (ddx agent execute-bead / ddx agent run) at ${STUBS}/ddx`,
        '',
      ].join('\n'),
    );
  });

  it('after a run: the Last Run block; claimed beads listed; a stale pid file removed', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001' })] });
    expect(p.helix(['run', '--summary', '--agent', 'codex']).status).toBe(0);
    writeFileSync(p.beadsFile, readFileSync(p.beadsFile, 'utf8') + JSON.stringify(bead({ id: 'hx-00000009', title: 'Being worked', status: 'in_progress', owner: 'helix', 'claimed-pid': String(process.pid), 'claimed-at': new Date().toISOString() })) + '\n');
    const dead = deadPid();
    writeFileSync(join(p.root, '.ddx', 'helix.pid'), `${dead} 2026-01-01T00:00:00Z\n`);
    const r = p.helix(['status']);
    expect(r.status).toBe(0);
    const state = p.runState();
    expect(r.stdout).toContain('Claimed:\n  hx-00000009  Being worked\n');
    // docs/contract/bash-interface.md §14.1; `Epic focus:` only when a run ended focused on an epic;
    // helix says when the cost leaves calls out (the stub's build and check report none)
    expect(r.stdout).toContain(
      ['', 'Last Run:', '  Agent:       codex', '  Completed:   1 cycle', '  Attempted:   1 cycle', '  Tokens:      0', '  Cost unknown: 2 agent calls reported no cost (not in the cost above)', '  Stop reason: completed', `  Timestamp:   ${String(state.last_run)}`, ''].join('\n'),
    );
    expect(r.stdout).not.toContain('Epic focus:');
    expect(r.stdout).not.toContain('Active Run:');
    expect(existsSync(join(p.root, '.ddx', 'helix.pid'))).toBe(false);
  });

  it('--json has every docs/contract/cli.md §10 key with the right shapes', () => {
    const dead = deadPid();
    const p = new Project({
      beads: [
        bead({ id: 'hx-00000001' }),
        bead({ id: 'hx-00000002', dependencies: ['hx-00000001'] }),
        bead({ id: 'hx-00000003', 'execute-loop-retry-after': '2999-01-01T00:00:00Z' }),
        bead({ id: 'hx-00000004', status: 'in_progress', owner: 'helix', 'claimed-pid': String(dead), 'claimed-at': hoursAgo(3) }),
        bead({ id: 'hx-00000005', labels: ['blocked'] }),
        bead({ id: 'hx-00000006', labels: ['helix', 'review-finding'], notes: 'TRIGGERING_CYCLE=3 TRIGGERING_BEAD=hx-00000001' }),
        bead({ id: 'hx-00000007', labels: ['acceptance-failure'] }),
      ],
    });
    const before = JSON.parse(p.helix(['status', '--json']).stdout) as Record<string, unknown>;
    expect(Object.keys(before).sort()).toEqual(
      ['active_run', 'claimed_beads', 'current_cycle', 'ddx', 'injected_supervisory', 'last_limit', 'last_stop_reason', 'memory', 'night', 'parked_beads', 'running_bead', 'run', 'slots', 'tracker'].sort(),
    );
    // helix: no run is active, so no slots and no night (tests/run/status-slots.test.ts reads them during one)
    expect(before).toMatchObject({ slots: [], night: null });
    // helix: each bead in progress and its claimer (a dead pid here; no start time recorded, so the threshold applies)
    expect(before.claimed_beads).toEqual([{ id: 'hx-00000004', pid: dead, claimer: 'gone', reclaimable: true }]);
    // docs/contract/bash-interface.md §14.2: last_stop_reason is a string, never null; run is {} without run-state
    expect(before).toMatchObject({ current_cycle: 0, running_bead: null, last_stop_reason: 'unknown', run: {}, active_run: null });
    // which DDx was found: the stub answers `ddx version` as v0.6.1, the `ddx agent` surface
    expect(before.ddx).toEqual({ version: 'v0.6.1', surface: 'agent', path: expect.stringMatching(/\/ddx$/), supported: true });
    expect(before.tracker).toEqual({ total: 7, open: 6, in_progress: 1, closed: 0, ready: 5, blocked: 1, by_status: { open: 6, in_progress: 1 } });
    const parked = before.parked_beads as Array<Record<string, unknown>>;
    expect(parked.map((b) => [b.id, b.reason]).sort()).toEqual([
      ['hx-00000002', 'dep-blocked'],
      ['hx-00000003', 'retry-parked'],
      ['hx-00000004', 'orphaned-claim'],
      ['hx-00000005', 'skipped'],
    ]);
    expect(parked.find((b) => b.id === 'hx-00000003')).toMatchObject({ next_eligible: '2999-01-01T00:00:00Z', age_seconds: expect.any(Number) });
    // newest first; cycle and bead from the TRIGGERING_* markers in the notes
    expect(before.injected_supervisory).toEqual([
      { id: 'hx-00000007', type: 'acceptance-failure', triggering_cycle: null, triggering_bead: null, created_at: expect.any(String) },
      { id: 'hx-00000006', type: 'review-finding', triggering_cycle: 3, triggering_bead: 'hx-00000001', created_at: expect.any(String) },
    ]);

    // a live claim is the running bead
    writeFileSync(p.beadsFile, readFileSync(p.beadsFile, 'utf8').replace(`"claimed-pid":"${dead}"`, `"claimed-pid":"${process.pid}"`));
    const running = JSON.parse(p.helix(['status', '--json']).stdout) as Record<string, unknown>;
    expect(running.running_bead).toEqual({ id: 'hx-00000004', worker: 'helix', harness: 'unknown', claim_age_seconds: expect.any(Number), started_at: expect.any(String) });
    expect((running.running_bead as { claim_age_seconds: number }).claim_age_seconds).toBeGreaterThanOrEqual(3 * 3600 - 5);
  });

  it('counts every status: the lines add up to Total, DDx\'s proposed, blocked and cancelled included', () => {
    const p = new Project({
      beads: [
        bead({ id: 'hx-00000001' }), bead({ id: 'hx-00000002' }), bead({ id: 'hx-00000003', status: 'closed' }),
        bead({ id: 'hx-00000004', status: 'cancelled' }), bead({ id: 'hx-00000005', status: 'cancelled' }), bead({ id: 'hx-00000006', status: 'proposed' }),
        bead({ id: 'hx-00000007', status: 'blocked' }), bead({ id: 'hx-00000008', status: 'in_progress', owner: 'someone' }),
      ],
    });
    const text = p.helix(['status']).stdout;
    expect(text).toContain(['Tracker:', '  Total:   8', '  Open:    2', '  Closed:  1', '  Ready:   2', '  Blocked: 0', '  Other:   1 in progress, 1 proposed, 1 marked blocked, 2 cancelled', ''].join('\n'));
    const json = JSON.parse(p.helix(['status', '--json']).stdout) as { tracker: { total: number; by_status: Record<string, number> } };
    expect(json.tracker.by_status).toEqual({ open: 2, closed: 1, cancelled: 2, proposed: 1, blocked: 1, in_progress: 1 });
    expect(Object.values(json.tracker.by_status).reduce((a, b) => a + b, 0)).toBe(json.tracker.total);
  });

  it('a bead parked for several reasons is listed once: the skipped bead a run parked (label blocked, a retry time) is retry-parked', () => {
    const p = new Project({
      beads: [
        bead({ id: 'hx-00000001' }),
        bead({ id: 'hx-00000002', labels: ['helix', 'blocked'], 'work-retry-after': '2999-01-01T00:00:00Z' }),
        bead({ id: 'hx-00000003', labels: ['blocked'], dependencies: ['hx-00000001'] }),
      ],
    });
    const parked = (JSON.parse(p.helix(['status', '--json']).stdout) as { parked_beads: Array<{ id: string; reason: string }> }).parked_beads;
    expect(parked.map((b) => [b.id, b.reason]).sort()).toEqual([['hx-00000002', 'retry-parked'], ['hx-00000003', 'dep-blocked']]);
    expect(p.helix(['status']).stdout).toContain('Parked (until; `helix tracker unpark <id>` clears):\n  hx-00000002  2999-01-01T00:00:00Z\n');
  });

  it('after a run that stopped on a limit: Stop reason says which limit and when it resets', () => {
    const p = new Project({
      beads: [bead({ id: 'hx-000000aa' })],
      script: { executeBeadHelp: false, responses: [{ when: 'implementation', turnFailed: 'rate limit exceeded: Rate limit reached on tokens per min (TPM). Please try again in 1200s.', exit: 1 }] },
    });
    expect(p.helix(['run', '--summary', '--agent', 'codex', '--max-wait', '0']).status).toBe(20);
    const json = JSON.parse(p.helix(['status', '--json']).stdout) as { last_limit: { resets_at: string } };
    expect(json.last_limit).toMatchObject({ agent: 'codex', kind: 'rate', resets_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) });
    expect(Date.parse(json.last_limit.resets_at) - Date.now()).toBeGreaterThan(15 * 60_000);
    expect(p.helix(['status']).stdout).toContain(`  Stop reason: limit (codex rate limit, resets at ${json.last_limit.resets_at})\n`);
  });

  it('--json after a run carries the run state and stop reason', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001' })] });
    p.helix(['run', '--summary']);
    const json = JSON.parse(p.helix(['status', '--json']).stdout) as Record<string, any>;
    expect(json.last_stop_reason).toBe('completed');
    expect(json.current_cycle).toBe(1);
    expect(json.run).toMatchObject({ completed_cycles: 1, attempted_cycles: 1 });
  });
});

describe('helix next', () => {
  it('prints the first ready execution bead, passing over ineligible ones', () => {
    const p = new Project({
      beads: [bead({ id: 'hx-00000001', priority: 0, 'execution-eligible': false }), bead({ id: 'hx-00000002', priority: 3 }), bead({ id: 'hx-00000003', priority: 1 })],
    });
    const r = p.helix(['next']);
    expect(r).toMatchObject({ status: 0, stdout: 'hx-00000003\n' });
  });

  it('prints "no ready issues" when nothing is ready', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001', status: 'closed' })] });
    expect(p.helix(['next'])).toMatchObject({ status: 0, stdout: 'no ready issues\n' });
  });
});

describe('status and next on a damaged bead file', () => {
  it('warn once, name the bad lines and say the counts leave them out; the output is what the good lines say', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001' }), bead({ id: 'hx-00000002', status: 'closed' })] });
    writeFileSync(p.beadsFile, `${readFileSync(p.beadsFile, 'utf8')}{"id": "hx-00000003", "title": "cut off\n<<<<<<< HEAD\n`);
    const warning = `helix: warning: ${p.beadsFile}: malformed line(s) 3; conflict marker line(s) 4; counts and choices here leave out those lines; run 'helix tracker doctor --fix'\n`;
    for (const args of [['status'], ['status', '--json'], ['next']]) {
      const r = p.helix(args);
      expect(r.status, args.join(' ')).toBe(0);
      expect(r.stderr, args.join(' ')).toBe(warning);
    }
    expect(p.helix(['next']).stdout).toBe('hx-00000001\n');
    expect(JSON.parse(p.helix(['status', '--json']).stdout).tracker).toMatchObject({ total: 2, open: 1, closed: 1 });
  });
});

describe('helix build', () => {
  it('refuses a closed bead with the contract message, exit 1, and runs nothing', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001', status: 'closed' }), bead({ id: 'hx-00000002' })] });
    const r = p.helix(['build', 'hx-00000001']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('helix: no execution-ready bead matched the build selector');
    expect(p.buildCalls()).toEqual([]);
  });

  it('holds the run mutex: while a live run holds helix.pid it refuses with exit 2 and one line, writing nothing', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001' })] });
    // this test process stands for the live run
    writeFileSync(join(p.root, '.ddx', 'helix.pid'), `${process.pid} 2026-01-01T00:00:00Z\n`);
    const beadsBefore = readFileSync(p.beadsFile, 'utf8');
    const r = p.helix(['build', 'hx-00000001']);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toBe(`helix build: not started: helix run: already running (pid=${process.pid}, started=2026-01-01T00:00:00Z); wait for it, or end it with helix stop\n`);
    expect(p.buildCalls()).toEqual([]);
    expect(readFileSync(p.beadsFile, 'utf8')).toBe(beadsBefore);
    expect(existsSync(join(p.root, '.ddx', 'run-state.json'))).toBe(false);
    // and a build that ran gave the mutex back: the next one runs
    writeFileSync(join(p.root, '.ddx', 'helix.pid'), `${deadPid()} 2026-01-01T00:00:00Z\n`);
    expect(p.helix(['build', 'hx-00000001']).status).toBe(0);
    expect(existsSync(join(p.root, '.ddx', 'helix.pid'))).toBe(false);
  });

  it('refuses an execution-ineligible bead the same way', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001', 'execution-eligible': false })] });
    const r = p.helix(['implement', 'hx-00000001']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('helix: no execution-ready bead matched the build selector');
  });

  it('builds the selected bead once and closes it', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001' }), bead({ id: 'hx-00000002', title: 'The second one' })] });
    const r = p.helix(['build', 'second one']);
    expect(r.status).toBe(0);
    expect(p.buildCalls().map((c) => c.id)).toEqual(['hx-00000002']);
    expect(p.bead('hx-00000002').status).toBe('closed');
    expect(p.bead('hx-00000001').status).toBe('open');
  });

  it('a failed build exits 1 and leaves the bead open and unclaimed', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001' })], script: { responses: [{ when: 'execute-bead', result: { status: 'execution_failed', outcome: 'error', exit_code: 1 }, exit: 1 }] } });
    const r = p.helix(['build']);
    expect(r.status).toBe(1);
    expect(p.buildCalls()).toHaveLength(1);
    expect(p.bead('hx-00000001')).toMatchObject({ status: 'open' });
    expect(p.bead('hx-00000001')).not.toHaveProperty('claimed-pid');
  });
});

describe('helix triage (docs/contract/bash-interface.md §13)', () => {
  it('creates a bead and prints its id', () => {
    const p = new Project();
    const r = p.helix(['triage', 'Fix the flaky test', '--type', 'bug', '--priority', '1', '--labels', 'area:ci']);
    expect(r.status).toBe(0);
    const id = r.stdout.trim();
    expect(id).toMatch(/^[\w.-]+-[0-9a-f]{8}$/);
    expect(p.bead(id)).toMatchObject({ title: 'Fix the flaky test', issue_type: 'bug', priority: 1, labels: ['area:ci'], status: 'open' });
  });

  it('a triaged bead is execution-eligible only with phase:build, phase:deploy or phase:iterate (or when told)', () => {
    const p = new Project();
    const make = (...args: string[]) => p.helix(['triage', ...args]).stdout.trim();
    const plain = make('Just an idea');
    const review = make('Look into it', '--labels', 'helix,phase:review');
    const build = make('Build it', '--labels', 'helix,phase:build');
    const deploy = make('Ship it', '--labels', 'phase:deploy');
    const iterate = make('Tune it', '--labels', 'area:x,phase:iterate');
    const told = make('Told so', '--execution-eligible', 'true');
    const refused = make('Not this', '--labels', 'phase:build', '--execution-eligible', 'false');
    const eligible = (id: string) => p.bead(id)['execution-eligible'];
    expect([plain, review, build, deploy, iterate, told, refused].map(eligible)).toEqual([false, false, true, true, true, true, false]);
    // only the eligible ones are ready for a build
    expect(p.helix(['tracker', 'ready', '--execution', '--json']).stdout).not.toContain(plain);
    expect((JSON.parse(p.helix(['tracker', 'ready', '--execution', '--json']).stdout) as Array<{ id: string }>).map((b) => b.id).sort()).toEqual([build, deploy, iterate, told].sort());
  });

  it('takes the Bash flags --design, --superseded-by, --replaces and --silent; without a title it says so', () => {
    const p = new Project();
    const id = p.helix(['triage', 'With design', '--design', 'use a trie', '--replaces', 'hx-00000001', '--superseded-by', 'hx-00000002', '--silent']).stdout.trim();
    expect(p.bead(id)).toMatchObject({ design: 'use a trie', replaces: 'hx-00000001', 'superseded-by': 'hx-00000002' });
    const none = p.helix(['triage', '--labels', 'phase:build']);
    expect(none).toMatchObject({ status: 1, stderr: 'tracker: title required\n', stdout: '' });
    const bad = p.helix(['triage', 'x', '--execution-eligible', 'maybe']);
    expect(bad.status).toBe(7);
    expect(p.beads().map((b) => b.id)).toEqual([id]);
  });

  it('a triaged review finding is counted in run-state (§12.3)', () => {
    const p = new Project();
    p.helix(['triage', 'A finding', '--labels', 'helix,phase:build,review-finding']);
    p.helix(['triage', 'An acceptance failure', '--labels', 'acceptance-failure']);
    expect(p.runState().supervisory_injection_count).toEqual({ 'review-finding': 1, 'acceptance-failure': 1 });
  });
});

describe('helix build --dry-run (docs/contract/bash-interface.md §11)', () => {
  it('on an empty queue prints the build command with the <ready-bead> placeholder and exits 0', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001', status: 'closed' })] });
    const r = p.helix(['build', '--dry-run']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^HELIX_SELECTED_ISSUE=<ready-bead> ddx agent execute-bead <ready-bead> --harness \w+ --effort medium --json --prompt \S+\n$/);
    // nothing ran but the one question every session asks: which DDx is this
    expect(p.calls().map((c) => c.argv)).toEqual([['version', '--no-check']]);
    // a selector that matches nothing is still refused
    expect(p.helix(['build', 'nothing-like-this', '--dry-run'])).toMatchObject({ status: 1, stderr: 'helix: no execution-ready bead matched the build selector\n' });
  });

  it('resolves the selector as the Bash CLI did: id, parent, spec-id, label, or title words, first in ready order', () => {
    const p = new Project({
      beads: [bead({ id: 'hx-00000001', title: 'Alpha task' }), bead({ id: 'hx-00000002', parent: 'hx-000000e1' }), bead({ id: 'hx-00000003', 'spec-id': 'FEAT-9' }), bead({ id: 'hx-00000004', labels: ['area:cli'] })],
    });
    const target = (selector: string) => /execute-bead (\S+)/.exec(p.helix(['build', selector, '--dry-run']).stdout)?.[1];
    expect(['hx-00000001', 'hx-000000e1', 'FEAT-9', 'area:cli', 'Alpha'].map(target)).toEqual(['hx-00000001', 'hx-00000002', 'hx-00000003', 'hx-00000004', 'hx-00000001']);
  });
});

describe('no ddx and no agent installed', () => {
  for (const command of [['run'], ['build']]) {
    it(`helix ${command[0]} exits 11 naming what is missing and leaves the tracker untouched`, () => {
      const p = new Project({ beads: [bead({ id: 'hx-00000001' })] });
      const before = readFileSync(p.beadsFile);
      const r = p.helix(command, { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` });
      expect(r.status).toBe(11);
      expect(r.stderr).toContain('`ddx`');
      expect(r.stderr).toContain('`codex`');
      expect(r.stderr).toMatch(/install/i);
      expect(readFileSync(p.beadsFile).equals(before)).toBe(true);
      for (const file of ['run-state.json', 'helix.pid', 'beads.lock']) expect(existsSync(join(p.root, '.ddx', file))).toBe(false);
      expect(p.calls()).toEqual([]);
    });
  }
});
