// The live board as a person sees it (issue 37, docs/watching.md): `helix run` in a real terminal
// (tmux), its screen read back — one row per slot and a totals line, cut to the width and the
// height, redrawn while a build runs, following a resize, gone at the end with the lines above it
// kept — and plain lines wherever no one watches a terminal (CI, NO_COLOR, TERM=dumb, a pipe).
// The builds wait on files the test creates, so each screen is read while they are in flight.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HELIX_BIN, cleanEnv } from '../helpers/cli.js';
import { bead } from '../helpers/bead.js';
import { HAS_TMUX, type Terminal, openTerminal } from '../helpers/tmux.js';
import { standinTarget } from '../ddx/targets.js';
import { Project } from './stub-project.js';

const SLOT_ROW = /^ {0,1}\d+ (hx-|idle|backoff|waiting|done)/;
const TOTALS_ROW = /^\d+[hms].* closed, /;

let terminal: Terminal | undefined;
afterEach(() => {
  terminal?.close();
  terminal = undefined;
});

/**
 * What a person's terminal has: the project's environment without any CI variable or NO_COLOR
 * (this machine's CI sets CI, which turns the board off: here a person is watching), and a
 * terminal type that moves its cursor.
 */
function personEnv(project: { env: NodeJS.ProcessEnv }, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...cleanEnv(), ...project.env, TERM: 'xterm-256color' };
  for (const name of Object.keys(env)) if (name === 'CI' || name === 'CONTINUOUS_INTEGRATION' || name.startsWith('CI_') || name === 'NO_COLOR') delete env[name];
  return { ...env, ...extra };
}

/** A current-DDx project whose builds each wait for `<scratch>/go-<id>`; titles longer than a narrow terminal. */
function fleetProject(count: number, files: (i: number) => string, verify: (i: number) => string | undefined = () => undefined) {
  const beads = Array.from({ length: count }, (_, i) => {
    const check = verify(i);
    return bead({ id: `hx-000000${String(10 + i)}`, title: `write ${files(i)}: a title long enough that a narrow terminal has to cut it`, description: `Create ${files(i)}.`, acceptance: `${files(i)} exists`, ...(check ? { verify: check } : {}) });
  });
  const p = standinTarget('current').project(beads, { responses: [] });
  p.script({ responses: beads.map((b, i) => ({ when: b.id, waitFor: join(p.scratch, `go-${b.id}`), commit: { path: files(i), content: `${b.id}\n` } })) });
  // DDx's runtime files ignored, as `ddx init` leaves a project (--jobs refuses otherwise)
  writeFileSync(join(p.root, '.gitignore'), '.ddx/agent-logs/\n.ddx/executions/\n');
  spawnSync('git', ['add', '.gitignore'], { cwd: p.root });
  spawnSync('git', ['commit', '-qm', "DDx's runtime ignores"], { cwd: p.root });
  const go = (id: string) => writeFileSync(join(p.scratch, `go-${id}`), '');
  return { p, beads, go, goAll: () => beads.forEach((b) => go(b.id)) };
}

/** The board's rows on a screen: its slot rows and its totals line, the region at the bottom. */
const boardOf = (screen: string[]) => screen.filter((row) => SLOT_ROW.test(row) || TOTALS_ROW.test(row));
/** The board's region at the bottom of a screen: its totals line and the slot rows right above it. */
function regionOf(screen: string[]): string[] {
  const totals = screen.findLastIndex((row) => TOTALS_ROW.test(row));
  let first = totals;
  while (first > 0 && SLOT_ROW.test(screen[first - 1] ?? '')) first--;
  return screen.slice(first, totals + 1);
}
const slotRow = (screen: string[], slot: number) => screen.find((row) => row.startsWith(`${String(slot).padStart(2)} `));

describe.skipIf(!HAS_TMUX)('the live board in a real terminal (tmux)', () => {
  it('80×24, --jobs 3: a row per slot and a totals line, titles cut to the width, redrawn during a long build; at the end it is gone and the lines above it stay', async () => {
    const { p, go, goAll } = fleetProject(4, (i) => ['work/a.txt', 'work/a.txt', 'work/c.txt', 'work/d.txt'][i]!, (i) => (i === 3 ? 'false' : undefined));
    terminal = openTerminal([process.execPath, HELIX_BIN, 'run', '--jobs', '3', '--no-auto-align'], { columns: 80, rows: 24, cwd: p.root, env: personEnv(p) });
    const screen = await terminal.waitFor((s) => [1, 2, 3].every((n) => slotRow(s, n)?.includes(' hx-')) && s.some((row) => TOTALS_ROW.test(row)), 30_000, 'three busy slots');
    // the bead its own verify command may refute goes first (docs/contract/cli.md §6.2); two beads on
    // one file are never in flight together: work/a.txt's second bead waits
    expect(boardOf(screen).map((row) => row.slice(0, 15))).toEqual([' 1 hx-00000013 ', ' 2 hx-00000010 ', ' 3 hx-00000012 ', expect.stringMatching(/^\d+s · 0 closed/)]);
    expect(screen.join('\n')).toMatch(/0 closed, 0 failed, 0 parked, 4 left · 3 in flight/);
    for (const row of boardOf(screen)) expect(row.length).toBeLessThan(80);
    expect(slotRow(screen, 2)).toMatch(/…$/);
    // a redraw while the build runs: the slot's elapsed time moves on
    const elapsedOf = (s: string[]) => /^ 2 hx-00000010\s+\S+\s+(\S+)/.exec(slotRow(s, 2) ?? '')?.[1];
    const first = elapsedOf(screen);
    await terminal.waitFor((s) => elapsedOf(s) !== undefined && elapsedOf(s) !== first, 10_000, 'slot 2 redrawn');
    go('hx-00000010');
    await terminal.waitFor((s) => s.some((row) => row.includes('hx-00000010 → COMPLETE')) && slotRow(s, 2)?.includes('hx-00000011') === true, 30_000, 'the next bead in slot 2');
    goAll();
    const end = await terminal.ended(60_000, 'the run to end');
    expect(boardOf(end)).toEqual([]);
    const everything = terminal.history().join('\n');
    expect(everything).toMatch(/run complete: \d+ attempted, 3 completed/);
    expect(everything).toMatch(/cycle \d+: FAILED \(hx-00000013 attempt 1\)/);
    for (const id of ['hx-00000010', 'hx-00000011', 'hx-00000012']) expect(everything).toContain(`${id} → COMPLETE`);
  });

  it('40×10, --jobs 10: never more rows than the terminal has, never a wrapped row', async () => {
    const { p, goAll } = fleetProject(10, (i) => `work/f${i}.txt`);
    terminal = openTerminal([process.execPath, HELIX_BIN, 'run', '--jobs', '10', '--no-auto-align'], { columns: 40, rows: 10, cwd: p.root, env: personEnv(p) });
    const screen = await terminal.waitFor((s) => s.some((row) => /more slots/.test(row)) && s.some((row) => TOTALS_ROW.test(row)), 30_000, 'the board cut to 10 rows');
    const region = screen.slice(screen.findIndex((row) => SLOT_ROW.test(row)));
    // rows 1…7, "… 3 more slots", the totals: nine rows, the cursor on the tenth
    expect(region.filter(Boolean)).toHaveLength(9);
    expect(region.filter(Boolean).at(-2)).toMatch(/^ {2}… 3 more slots$/);
    for (const row of screen) expect(row.length).toBeLessThan(40);
    goAll();
    await terminal.ended(60_000, 'the run to end');
  });

  it('follows a resize: from 80×24 to 40×10, every row cut to the new width', async () => {
    const { p, goAll } = fleetProject(2, (i) => `work/r${i}.txt`);
    terminal = openTerminal([process.execPath, HELIX_BIN, 'run', '--jobs', '2', '--no-auto-align'], { columns: 80, rows: 24, cwd: p.root, env: personEnv(p) });
    await terminal.waitFor((s) => slotRow(s, 2)?.includes('hx-') === true, 30_000, 'two busy slots');
    terminal.resize(40, 10);
    const narrow = await terminal.waitFor((s) => s.some((row) => TOTALS_ROW.test(row) && row.endsWith('…') && row.length <= 39), 10_000, 'the board redrawn at 40 columns');
    // the region as it is now — the totals line and the slot rows right above it — and no piece of
    // the old rows, which the terminal reflowed into two lines each, left above it
    const region = regionOf(narrow);
    expect(region.map((row) => row.slice(0, 4))).toEqual([' 1 h', ' 2 h', expect.stringMatching(/^\d+s /)]);
    for (const row of region) expect(row.length, narrow.join('\n')).toBeLessThan(40);
    goAll();
    await terminal.ended(60_000, 'the run to end');
  });
});

describe.skipIf(!HAS_TMUX)('one slot, and where the board stays off (tmux)', () => {
  /** A direct-path project (stub claude) whose one build waits for `<scratch>/go`. */
  function oneBead(): { p: Project; go: () => void } {
    const p = new Project({ beads: [bead({ id: 'hx-00000001', title: 'the only bead' })], env: { HELIX_AGENT: 'claude', HELIX_ALT_AGENT: 'none' } });
    p.script({ responses: [{ when: 'execute-bead', waitFor: join(p.scratch, 'go'), run: [['helix', 'tracker', 'close', '{{id}}']], result: {} }] });
    return { p, go: () => writeFileSync(join(p.scratch, 'go'), '') };
  }

  it('N = 1 gets one slot: the bead, its phase and the totals', async () => {
    const { p, go } = oneBead();
    terminal = openTerminal([process.execPath, HELIX_BIN, 'run', '--no-auto-align'], { columns: 80, rows: 24, cwd: p.root, env: personEnv(p) });
    // its build runs until the test lets it go: the slot is in its build phase then, not still claiming
    const screen = await terminal.waitFor((s) => /^ 1 hx-00000001\s+build /.test(slotRow(s, 1) ?? ''), 30_000, 'slot 1 building');
    expect(boardOf(screen)).toEqual([expect.stringMatching(/^ 1 hx-00000001\s+build\s+\d+s\s+0\s+the only bead$/), expect.stringMatching(/0 closed, 0 failed, 0 parked, 1 left · 1 in flight/)]);
    go();
    await terminal.ended(30_000, 'the run to end');
  });

  it.each([
    ['CI=true', { CI: 'true' }],
    ['CONTINUOUS_INTEGRATION=1', { CONTINUOUS_INTEGRATION: '1' }],
    ['CI_JOB_ID=7', { CI_JOB_ID: '7' }],
    ['NO_COLOR=1', { NO_COLOR: '1' }],
    ['TERM=dumb', { TERM: 'dumb' }],
    ['--progress plain', {}],
  ])('%s: plain lines, no board', async (name, extra) => {
    const { p, go } = oneBead();
    const flags = name === '--progress plain' ? ['--progress', 'plain'] : [];
    // tmux sets TERM in its panes: a dumb terminal is asked for by `env`, as a person's shell would have it
    const term = 'TERM' in extra ? ['env', `TERM=${extra.TERM}`] : [];
    terminal = openTerminal([...term, process.execPath, HELIX_BIN, 'run', '--no-auto-align', ...flags], { columns: 80, rows: 24, cwd: p.root, env: personEnv(p, extra) });
    await terminal.waitFor((s) => s.some((row) => row.includes('cycle=1, issue=hx-00000001')), 30_000, 'the cycle line');
    go();
    const end = await terminal.ended(30_000, 'the run to end');
    expect(terminal.history().join('\n')).toMatch(/claude complete \(rc=0/);
    expect(terminal.history().filter((row) => SLOT_ROW.test(row) || TOTALS_ROW.test(row))).toEqual([]);
    expect(end.join('\n')).toMatch(/run complete/);
  });

  it('CI=false is not CI: the board is on', async () => {
    const { p, go } = oneBead();
    terminal = openTerminal([process.execPath, HELIX_BIN, 'run', '--no-auto-align'], { columns: 80, rows: 24, cwd: p.root, env: personEnv(p, { CI: 'false' }) });
    await terminal.waitFor((s) => slotRow(s, 1)?.includes('hx-00000001') === true, 30_000, 'slot 1');
    go();
    await terminal.ended(30_000, 'the run to end');
  });
});

describe('piped: no terminal, no board', () => {
  it("stderr to a pipe gets today's plain lines and no cursor movement, with --progress auto", () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001', title: 'the only bead' })], env: { HELIX_AGENT: 'claude', HELIX_ALT_AGENT: 'none' } });
    const r = p.helix(['run', '--no-auto-align', '--progress', 'auto']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).not.toContain('\u001b');
    expect(r.stderr).toMatch(/helix: \[\d\d:\d\d:\d\d\] ready=1, cycle=1, issue=hx-00000001/);
    expect(r.stderr).toMatch(/claude complete \(rc=0/);
  });
});
