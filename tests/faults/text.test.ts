// Hostile text: escape sequences in every field helix prints (bead ids, titles, notes, labels,
// other keys, a damaged line, agent output, an unknown flag), and a 1 MB bead. Each asserts that no
// control character reaches stdout, stderr, the session log or the blocker report — the text is
// shown as visible \uXXXX instead — and that nothing is lost or wedged.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Project, RUN_COMPLETE } from '../run/stub-project.js';
import { bead } from '../helpers/bead.js';
import { beadState, generic, lineMatching, report } from './fault-checks.js';

// OSC 52 (write the clipboard), OSC 0 (retitle), CSI 2J (clear), C1 CSI / OSC / ST, a carriage
// return hiding what follows, a bidi override
const ESC = '\u001b]52;c;cHduZWQ=\u0007\u001b]0;owned\u0007\u001b[2J\u009b31m\u009d0;x\u009c\rHIDDEN\u202e';
// What may not reach a terminal (a CR only as part of CRLF)
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;

const HOSTILE_ID = `hx-esc${ESC}`;
const A = 'hx-000000aa';

function hostileBeads() {
  return [
    bead({ id: A, title: `Title ${ESC}`, description: `Description ${ESC}`, notes: `Notes ${ESC}`, acceptance: `Acceptance ${ESC}`, labels: [`label${ESC}`], 'spec-id': `SPEC${ESC}`, 'x-other': `Other ${ESC}`, owner: `owner${ESC}`, dependencies: [{ issue_id: A, depends_on_id: HOSTILE_ID, type: 'blocks' }] }),
    bead({ id: HOSTILE_ID, title: `Hostile id ${ESC}` }),
  ];
}

function expectPrintable(where: string, text: string): void {
  const hit = CONTROL.exec(text);
  expect(hit, `${where}: control character U+${hit?.[0].charCodeAt(0).toString(16).padStart(4, '0')} near ${JSON.stringify(text.slice(Math.max(0, (hit?.index ?? 0) - 30), (hit?.index ?? 0) + 10))}`).toBeNull();
}

describe('escape sequences in every printed field', () => {
  it('reads: list, show, ready, blocked, dep tree, status, export, doctor, next, a damaged line, an unknown flag', () => {
    const p = new Project({ beads: hostileBeads() });
    // a damaged line whose parse error quotes the raw text
    writeFileSync(p.beadsFile, `${readFileSync(p.beadsFile, 'utf8')}{"id": "hx-broken", "title": "${ESC}\n`);
    // each command, and whether its output carries the hostile text (counts-only ones do not)
    const commands: Array<[string[], boolean]> = [
      [['tracker', 'list'], true], [['tracker', 'list', '--json'], true], [['tracker', 'show', A], true], [['tracker', 'show', A, '--json'], true],
      [['tracker', 'show', HOSTILE_ID], true], [['tracker', 'ready'], true], [['tracker', 'ready', '--json'], true], [['tracker', 'blocked'], true],
      [['tracker', 'blocked', '--json'], true], [['tracker', 'dep', 'tree'], true], [['tracker', 'dep', 'tree', '--json'], true],
      [['tracker', 'status'], false], [['tracker', 'export', '--stdout'], true], [['tracker', 'doctor'], false], [['doctor'], false],
      [['status'], false], [['status', '--json'], false], [['next'], true], [['tracker', 'list', `--${ESC}`], true], [['tracker', 'show', `hx-missing${ESC}`], true],
    ];
    for (const [args, shows] of commands) {
      const r = p.helix(args);
      expectPrintable(`helix ${args.join(' ')} stdout`, r.stdout);
      expectPrintable(`helix ${args.join(' ')} stderr`, r.stderr);
      // the fields were printed — shown as \u001b…, not dropped
      expect(`${r.stdout}${r.stderr}`.includes('\\u001b]52'), `helix ${args.join(' ')} shows the text`).toBe(shows);
      // JSON stays JSON
      if (args.includes('--json') && r.status === 0) expect(() => JSON.parse(r.stdout)).not.toThrow();
    }
    expect(JSON.parse(p.helix(['tracker', 'show', A, '--json']).stdout).title).toBe(`Title ${ESC}`);
    report({ group: 'text', scenario: `escape sequences in every field of ${commands.length} read commands (and a damaged line, an unknown flag)`, exit: '0 (6 for doctor, 1 for the unknown flag, 3 for the missing id)', bead: 'unchanged', processes: '0', recovery: '—', line: generic(lineMatching(p.helix(['tracker', 'list']).stdout, /Title/)) });
  });

  it('a run: cycle lines, agent output, blocker lines and report, check output, the session log', () => {
    const failing = { when: 'execute-bead', stdout: `agent says ${ESC}\n`, result: { status: 'execution_failed', outcome: 'error', exit_code: 1, detail: `boom ${ESC}` }, exit: 1 };
    const p = new Project({
      beads: [bead({ id: A, title: `Title ${ESC}` }), bead({ id: HOSTILE_ID, title: `Hostile id ${ESC}` })],
      script: { responses: [failing, failing, failing, failing], defaults: { check: { stdout: `NEXT_ACTION: STOP\ncheck says ${ESC}\n` } } },
    });
    const normal = p.helix(['run']);
    expect(normal.status, normal.stderr).toBe(0);
    const check = p.helix(['check']);
    for (const [where, text] of [['run stderr', normal.stderr], ['run stdout', normal.stdout], ['check stdout', check.stdout], ['check stderr', check.stderr]] as const) expectPrintable(where, text);
    const logs = readdirSync(join(p.root, '.helix-logs')).map((f) => join(p.root, '.helix-logs', f));
    expect(logs.some((f) => f.includes('blockers-'))).toBe(true);
    for (const file of logs) expectPrintable(file, readFileSync(file, 'utf8'));
    // a build's answer is on stdout in normal mode (docs/contract/bash-interface.md §2.5); blocker lines on stderr
    expect(normal.stdout).toContain('agent says \\u001b]52');
    expect(normal.stderr).toContain(`helix:   ${A} — intractable after 4 attempts with exponential backoff\nhelix:     Title \\u001b]52`);
    expect(check.stdout).toContain('check says \\u001b]52');
    // the hostile id was built too (its prompt file got a safe name), and nothing else changed
    expect(p.bead(HOSTILE_ID).status).toBe('closed');
    expect(readdirSync(join(p.root, '.helix', 'prompts')).every((f) => !CONTROL.test(f) && !f.includes('/'))).toBe(true);
    report({ group: 'text', scenario: 'escape sequences in bead fields and agent output during helix run and helix check', exit: `${normal.status} / ${check.status}`, bead: beadState(p.bead(A)), processes: '0', recovery: '—', line: generic(lineMatching(normal.stderr, /intractable/)) });
  });
});

describe('a 1 MB bead', () => {
  const BIG = `${'A very long description line that repeats. '.repeat(24_000)}`; // about 1 MB
  for (const path of ['execute-bead', 'direct codex'] as const) {
    it(`is built or fails in one short line, never wedging the queue (${path})`, () => {
      const p = new Project({ beads: [bead({ id: A, title: 'Huge bead', priority: 0, description: BIG }), bead({ id: 'hx-000000bb', title: 'Small bead' })] });
      if (path === 'direct codex') p.script({ executeBeadHelp: false, responses: [] });
      const r = p.helix(path === 'direct codex' ? ['run', '--agent', 'codex', '--summary'] : ['run', '--summary']);
      expect(r.status, r.stderr.slice(0, 2000)).toBe(0);
      expect(r.stderr).toMatch(RUN_COMPLETE);
      for (const line of r.stderr.split('\n')) expect(line.length, line.slice(0, 200)).toBeLessThan(400);
      expect(p.bead('hx-000000bb').status).toBe('closed'); // the queue went on
      const big = p.bead(A);
      expect(big.description).toBe(BIG); // nothing lost
      expect(['closed', 'open']).toContain(big.status);
      if (big.status === 'open') expect(r.stderr).toContain(`helix:   ${A}: intractable after 4 attempts with exponential backoff — Huge bead`);
      for (const key of ['claimed-pid', 'claim-token']) expect(big).not.toHaveProperty(key);
      expect(p.helix(['tracker', 'show', A]).status).toBe(0);
      const line = lineMatching(r.stderr, new RegExp(`could not start|${A} → COMPLETE|BLOCKED ${A}`));
      report({ group: 'text', scenario: `a 1 MB bead (${path})`, exit: String(r.status), bead: beadState(big), processes: '0', recovery: '—', line: generic(line) });
    });
  }
});
