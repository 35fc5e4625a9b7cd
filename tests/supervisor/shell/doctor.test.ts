// `helix doctor` decided without effects: from the facts about a machine, the report's rows, the
// counts of its `Result:` line and its exit code (docs/contract/bash-interface.md §18). The
// printed layout is checked end to end in tests/cli/entry.test.ts.
import { describe, expect, it } from 'vitest';
import { type DoctorFacts, countMarks, doctorExitCode, doctorJson, doctorRows, fixedCount } from '../../../src/supervisor/shell/doctor.js';
import { EXIT } from '../../../src/errors.js';

/** A healthy machine: bash, git and codex on PATH, the workflows there, a clean tracker, every link. */
function facts(over: Partial<DoctorFacts> = {}): DoctorFacts {
  return {
    fix: false,
    version: '9.9.9',
    helixRoot: '/opt/helix/',
    onPath: { bash: '/bin/bash', git: '/usr/bin/git', ddx: null, codex: '/usr/bin/codex', claude: null, tmux: null, asciinema: null, hugo: null, docker: null },
    toolVersions: { bash: 'GNU bash, version 5.2', git: 'git version 2.43.0', codex: 'codex-cli 0.1' },
    ddx: undefined,
    warnings: [],
    library: { path: '/opt/helix/workflows', present: true },
    trackerFile: '/p/.ddx/beads.jsonl',
    trackerPresent: true,
    tracker: { healthy: true, total: 3, problems: [], dangling: [], cycles: [], stale_claims: [], ddx_damage: [], future_claims: [], bom_lines: [] },
    link: null,
    fixed: undefined,
    skillLinks: [{ skill: 'helix-run', target: '/h/.claude/skills/helix-run', state: 'ok' }],
    launcher: { path: '/h/.local/bin/helix', state: 'ok' },
    repaired: [],
    hooks: { state: 'ok', settings: '/h/.claude/settings.json', count: 4 },
    ...over,
  };
}

const checks = (f: DoctorFacts) => doctorRows(f).filter((r) => r.kind === 'check');

describe('doctor rows', () => {
  it('a healthy machine: every required check passes, missing optional tools are warnings, exit 0', () => {
    const f = facts();
    const rows = doctorRows(f);
    expect(rows.filter((r) => r.kind === 'section').map((r) => (r.kind === 'section' ? r.title : ''))).toEqual([
      'Required:',
      'Agent CLIs (at least one required):',
      'Optional:',
      'Workflows:',
      'Tracker:',
      'Skill links:',
      'Claude Code hooks:',
    ]);
    expect(checks(f)).toContainEqual({ kind: 'check', mark: 'ok', name: 'git', detail: 'git version 2.43.0' });
    expect(checks(f)).toContainEqual({ kind: 'check', mark: 'warn', name: 'tmux', detail: 'not found (optional)' });
    expect(checks(f)).toContainEqual({ kind: 'check', mark: 'ok', name: '/p/.ddx/beads.jsonl', detail: '3 beads' });
    expect(countMarks(rows)).toEqual({ ok: 8, warn: 4, fail: 0 });
    expect(doctorExitCode(f, false)).toBe(EXIT.ok);
  });

  it('no agent CLI at all is one failure without a name column, and the text report exits 1', () => {
    const f = facts({ onPath: { ...facts().onPath, codex: null } });
    expect(checks(f)).toContainEqual({ kind: 'check', mark: 'fail', detail: 'No agent CLI found (need at least one from: ddx agent list)' });
    expect(doctorExitCode(f, false)).toBe(EXIT.error);
    // the JSON report judges only the tracker and the links
    expect(doctorExitCode(f, true)).toBe(EXIT.ok);
  });

  it('hooks: none is a warning (they are optional); a launcher that is gone is a failure in both forms', () => {
    const none = facts({ hooks: { state: 'none', settings: '/h/.claude/settings.json' } });
    expect(checks(none).find((r) => r.kind === 'check' && r.name === 'hooks')).toMatchObject({ mark: 'warn' });
    expect(doctorExitCode(none, false)).toBe(EXIT.ok);
    const broken = facts({ hooks: { state: 'broken', settings: '/h/.claude/settings.json', helix: '/gone/bin/helix' } });
    expect(checks(broken)).toContainEqual({ kind: 'check', mark: 'fail', name: 'hooks', detail: '/h/.claude/settings.json runs /gone/bin/helix, which does not exist: run `helix install --with-hooks`' });
    expect(doctorExitCode(broken, false)).toBe(EXIT.error);
    expect(doctorExitCode(broken, true)).toBe(EXIT.error);
    expect(doctorJson(broken).hooks).toEqual(broken.hooks);
  });

  it('a byte order mark and a linked bead file are named under the tracker, the link as a note', () => {
    const f = facts({
      tracker: { healthy: false, total: 2, problems: [], dangling: [], cycles: [], stale_claims: [], ddx_damage: [], future_claims: [], bom_lines: [1] },
      link: '/shared/beads.jsonl',
    });
    const details = doctorRows(f).filter((r) => r.kind === 'detail').map((r) => (r.kind === 'detail' ? r.text : ''));
    expect(details).toContain('       line 1: starts with a UTF-8 byte order mark, which DDx cannot read (--fix removes it)');
    expect(details.some((t) => t.includes('is a link to /shared/beads.jsonl: helix writes through it, but DDx replaces the link'))).toBe(true);
    expect(doctorJson(f).link).toBe('/shared/beads.jsonl');
  });

  it('damaged tracker lines: a failure, each line named, exit 6 in both forms', () => {
    const f = facts({
      tracker: { healthy: false, total: 2, problems: [{ line: 4, kind: 'malformed', detail: 'not JSON', raw: '{oops' }], dangling: [], cycles: [], stale_claims: [], ddx_damage: [], future_claims: [], bom_lines: [] },
    });
    expect(checks(f)).toContainEqual({ kind: 'check', mark: 'fail', name: '/p/.ddx/beads.jsonl', detail: '1 damaged line(s), 0 dangling dependency(ies), 0 cycle(s), 0 stale claim(s)' });
    expect(doctorRows(f)).toContainEqual({ kind: 'detail', text: '       line 4: malformed: not JSON' });
    expect(doctorExitCode(f, false)).toBe(EXIT.malformedStore);
    expect(doctorExitCode(f, true)).toBe(EXIT.malformedStore);
  });

  it('a broken skill link fails (JSON too); --fix counts each repaired link and the backed-up tracker', () => {
    const broken = facts({ skillLinks: [{ skill: 'helix-run', target: '/h/.claude/skills/helix-run', state: 'broken', pointsTo: '/gone' }] });
    expect(doctorRows(broken)).toContainEqual({ kind: 'detail', text: '       broken: /h/.claude/skills/helix-run -> /gone' });
    expect(doctorExitCode(broken, true)).toBe(EXIT.error);
    const fixed = facts({
      fix: true,
      repaired: [{ skill: 'helix-run', target: '/h/.claude/skills/helix-run', state: 'ok', action: 'linked' }],
      fixed: { backup: '/p/.ddx/beads.jsonl.bak', quarantined: 1, released: [], unsettled: [], repaired: [], choices: [] },
    });
    expect(fixedCount(fixed)).toBe(2);
    expect(doctorRows(fixed)).toContainEqual({ kind: 'detail', text: '       fixed: backup /p/.ddx/beads.jsonl.bak, 1 line(s) quarantined, 0 claim(s) released' });
  });
});
