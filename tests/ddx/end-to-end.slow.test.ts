// helix against the DDx stand-ins of v0.6.1 and current DDx, black-box: `helix run --summary`,
// `helix build` and every action, with a failing attempt, a preserved outcome and queue drift.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUN_COMPLETE } from '../run/stub-project.js';
import { bead } from '../helpers/bead.js';
import { type DdxVersion, VERSIONS, ddxProject, worked } from './standin.js';

const BUILD_KIND: Record<DdxVersion, string> = { '0.6.1': 'execute-bead', current: 'try' };
const RUN_ARGV: Record<DdxVersion, string[]> = { '0.6.1': ['agent', 'run'], current: ['run'] };

describe.each(VERSIONS)('DDx %s stand-in', (version) => {
  it('helix run --summary: success, a failing attempt, a preserved outcome and drift, then check → STOP', () => {
    const beads = [
      bead({ id: 'hx-00000001', title: 'lands first time' }),
      bead({ id: 'hx-00000002', title: 'fails once' }),
      bead({ id: 'hx-00000003', title: 'preserved once' }),
      bead({ id: 'hx-00000004', title: 'drifts' }),
    ];
    const kind = BUILD_KIND[version];
    const p = ddxProject(version, beads, {
      responses: [
        { when: 'hx-00000002', exit: 1, commit: false },
        { when: 'hx-00000003', landing: 'preserved', reason: version === 'current' ? 'needs review' : 'post-run checks failed' },
        { when: 'hx-00000004', run: [['helix', 'tracker', 'update', 'hx-00000004', '--set', 'spec-id=S-2']] },
      ],
    });
    const r = p.helix(['run', '--summary', '--no-auto-review']);
    expect(r.status, r.stderr).toBe(0);
    // ready order; a failed and a preserved attempt are tried again and land the second time —
    // except that current DDx parks a failed bead for 6 h (work-retry-after), and helix honours it
    const builds = p.calls().filter((c) => c.kind === kind);
    const parked = version === 'current';
    expect(builds.map((c) => c.id)).toEqual(['hx-00000001', 'hx-00000002', ...(parked ? [] : ['hx-00000002']), 'hx-00000003', 'hx-00000003', 'hx-00000004']);
    expect(builds.every((c) => c.argv[0] === (version === 'current' ? 'try' : 'agent'))).toBe(true);
    const stderr = r.stderr;
    expect(stderr).toMatch(/helix: \[\d\d:\d\d:\d\d\] cycle 2: FAILED/);
    expect(stderr).toMatch(/helix: hx-00000003 not landed: DDx preserved the work without merging it \(status (post_run_check_failed|preserved_needs_review)/);
    expect(stderr).toContain('helix: queue drift detected for hx-00000004; refusing stale completion');
    expect(p.statuses('hx-00000001', 'hx-00000002', 'hx-00000003')).toEqual(['closed', parked ? 'open' : 'closed', 'closed']);
    // the drifted bead is left open, skipped, never closed against its changed spec
    expect(p.bead('hx-00000004').status).toBe('open');
    expect(stderr).toMatch(/hx-00000004.*queue drift/);
    expect(stderr.match(RUN_COMPLETE)?.slice(1, 4)).toEqual(parked ? ['5', '2', '1'] : ['6', '3', '1']);
    // the preserved work exists only under DDx's preserve ref; landed work is on the branch
    const refs = spawnSync('git', ['for-each-ref', '--format=%(refname)', 'refs/ddx/iterations/'], { cwd: p.root, encoding: 'utf8' }).stdout;
    expect(refs).toContain('refs/ddx/iterations/hx-00000003/');
    for (const id of ['hx-00000001', ...(parked ? [] : ['hx-00000002']), 'hx-00000003']) {
      expect(spawnSync('git', ['cat-file', '-e', `HEAD:work/${id}.txt`], { cwd: p.root }).status).toBe(0);
    }
    // check ran through the version's own `run` command, its prompt on stdin
    const check = p.calls().find((c) => c.action === 'check');
    expect(check?.argv.slice(0, RUN_ARGV[version].length)).toEqual(RUN_ARGV[version]);
    expect(check?.argv).not.toContain('--text');
    expect(check?.stdin).toContain('check action');
    expect(stderr).toContain('helix: stopping after check returned STOP');
    expect(worked(p)).toEqual(builds.map((c) => c.id));
  });

  it('helix build: one bead, landed and closed; --dry-run prints the command that would really run', () => {
    const p = ddxProject(version, [bead({ id: 'hx-00000001' })]);
    const dry = p.helix(['build', '--dry-run']);
    expect(dry.status).toBe(0);
    expect(dry.stdout).toMatch(version === 'current' ? /^HELIX_SELECTED_ISSUE=hx-00000001 ddx try hx-00000001 --harness claude --effort medium --min-power 11 --max-power 12 --attempt-wall-clock 2700s\n$/ : /^HELIX_SELECTED_ISSUE=hx-00000001 ddx agent execute-bead hx-00000001 --harness claude --effort medium --json --prompt \S+\n$/);
    const r = p.helix(['build']);
    expect(r.status, r.stderr).toBe(0);
    expect(p.bead('hx-00000001')).toMatchObject({ status: 'closed', closing_commit_sha: expect.stringMatching(/^[0-9a-f]{40}$/) });
  });

  it('every action runs through this DDx and exits 0', () => {
    const p = ddxProject(version, [bead({ id: 'hx-00000001' })], {
      responses: [],
      defaults: { backfill: { stdout: 'BACKFILL_STATUS: COMPLETE\nBACKFILL_REPORT: report.md\nRESEARCH_EPIC: none\n' } },
    });
    writeFileSync(join(p.root, 'report.md'), 'report\n');
    spawnSync('git', ['add', 'report.md'], { cwd: p.root });
    spawnSync('git', ['commit', '-q', '-m', 'report'], { cwd: p.root });
    for (const action of ['check', 'align', 'design', 'polish', 'review', 'backfill', 'experiment']) {
      // experiment refuses a dirty tree: commit what the actions before it filed
      if (action === 'experiment') spawnSync('git', ['commit', '-qam', 'tracker'], { cwd: p.root });
      const r = p.helix([action]);
      expect(r.status, `${action}: ${r.stderr}`).toBe(0);
    }
    const prompts = p.calls().filter((c) => c.kind === (version === 'current' ? 'run' : 'agent-run'));
    expect(prompts.map((c) => c.action)).toEqual(['check', 'align', 'plan', 'polish', 'review', 'backfill', 'experiment']);
  });
});

describe('which DDx: versions helix does not drive, and the loop executor', () => {
  it('HELIX_EXECUTOR=execute-loop on current DDx runs `ddx try`: DDx claims and closes, helix verifies', () => {
    const p = ddxProject('current', [bead({ id: 'hx-00000001' })]);
    const r = p.helix(['run', '--summary', '--no-auto-review'], { HELIX_EXECUTOR: 'execute-loop', HELIX_VERIFY_CMD: 'test -f work/hx-00000001.txt' });
    expect(r.status, r.stderr).toBe(0);
    expect(p.calls().filter((c) => c.kind === 'try').map((c) => c.argv.slice(0, 2))).toEqual([['try', 'hx-00000001']]);
    expect(p.bead('hx-00000001').status).toBe('closed');
  });

  it('on `ddx try`, a failed verification keeps the attempt off the branch: helix\'s gate blocks it before DDx lands (issue 32)', () => {
    const p = ddxProject('current', [bead({ id: 'hx-00000001' })]);
    const r = p.helix(['build'], { HELIX_VERIFY_CMD: 'false' });
    expect(r.status).toBe(1);
    expect(p.bead('hx-00000001').status).toBe('open');
    expect(p.bead('hx-00000001').notes).toMatch(/ATTEMPT FAILED .*verification failed before landing: false exited 1; DDx kept it under refs\/ddx\/iterations\/hx-00000001\/.*, not landed/);
  });

  it('a DDx too old to drive: one clear line, then codex directly', () => {
    const p = ddxProject('0.6.1', [bead({ id: 'hx-00000001' })], { responses: [] });
    const fake = join(p.scratch, 'bin');
    spawnSync('mkdir', ['-p', fake]);
    writeFileSync(join(fake, 'ddx'), '#!/bin/sh\nif [ "$1" = version ]; then echo "DDx v0.5.3"; echo "Commit: old"; exit 0; fi\necho "old ddx" >&2; exit 1\n', { mode: 0o755 });
    const r = p.helix(['build'], { PATH: `${fake}:${p.env.PATH}` });
    expect(r.stderr.split('\n')[0]).toBe(
      `helix: ddx v0.5.3 at ${fake}/ddx is not a DDx helix supports (too old; supported: v0.6.0–v0.6.1 (ddx agent …) and v0.6.2-alpha50 or later (ddx try/run/work)); calling codex/claude directly`,
    );
    expect(r.status, r.stderr).toBe(0);
    // builds go to the alternate agent (claude, HELIX_ALT_AGENT=auto), called directly
    expect(p.calls().filter((c) => c.program === 'claude').map((c) => c.action)).toEqual(['implementation']);
  });
});
