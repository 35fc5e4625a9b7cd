// Broken stdout and stderr pipes: the reader of helix's output goes away (`| head -1`) while helix
// holds a claim. helix prints a build's answer after the call (docs/contract/bash-interface.md §2.5), so while an
// agent runs it writes nothing to the terminal and learns that its reader left at its next line. The real shell pipeline, its exit status from PIPESTATUS. Each
// asserts: claim released, run-state recorded, no process left, exit 141 (like SIGPIPE), and the
// one line — in the session log, since the terminal is gone.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { HELIX_BIN, cleanEnv } from '../helpers/cli.js';
import { Project } from '../run/stub-project.js';
import { bead } from '../helpers/bead.js';
import { beadState, generic, lineMatching, markerPids, processesLeft, report } from './fault-checks.js';

const TARGET = 'hx-000000aa';
// More than a pipe holds (64 KB), so helix is still writing when the reader leaves.
const FLOOD = `${'agent output line\n'.repeat(8000)}`;

/** Runs `helix <args> <redirect> | <reader>` in bash; helix's own exit status from PIPESTATUS. */
function pipeline(p: Project, args: string[], redirect: string, reader = 'head -1'): { status: number; head: string } {
  const statusFile = p.path('helix.status');
  const script = `"${process.execPath}" "${HELIX_BIN}" ${args.join(' ')} ${redirect} | ${reader}; echo "\${PIPESTATUS[0]}" > "${statusFile}"`;
  const r = spawnSync('bash', ['-c', script], { cwd: p.root, env: { ...cleanEnv(), ...p.env }, encoding: 'utf8', timeout: 60_000 });
  return { status: Number(readFileSync(statusFile, 'utf8').trim()), head: r.stdout };
}

const logOf = (p: Project) => {
  const log = String(p.runState().log);
  return readFileSync(isAbsolute(log) ? log : join(p.root, log), 'utf8');
};

describe('a reader that goes away', () => {
  // `head -1` leaves after helix's first line, wherever helix then is (before or after its claim).
  // A reader that leaves while the agent runs is noticed only at helix's next line, after the call
  // (bead helix-1012598d), so that case has no scenario of its own here.
  const cases = [
    { scenario: 'helix run 2>&1 | head -1', args: ['run'], redirect: '2>&1', reader: 'head -1', stream: 'stderr' },
    { scenario: 'helix run 2>&1 >/dev/null | head -1 (stderr only)', args: ['run'], redirect: '2>&1 >/dev/null', reader: 'head -1', stream: 'stderr' },
  ];
  for (const c of cases) {
    it(c.scenario, async () => {
      const p = new Project({ beads: [bead({ id: TARGET, title: 'Target' })] });
      const marker = p.path('agent.json');
      p.script({ responses: [{ when: 'execute-bead', marker, spawnChild: true, stdout: FLOOD, hang: true }] });
      const { status, head } = pipeline(p, c.args, c.redirect, c.reader);
      const pids = markerPids(marker);
      const left = await processesLeft(pids);

      expect(head.split('\n').filter(Boolean)).toHaveLength(1);
      expect(status).toBe(EXIT.brokenPipe);
      expect(status).toBe(141);
      expect(left.atExit).toBe(0);
      const after = p.bead(TARGET);
      expect(after.status).toBe('open');
      for (const key of ['claimed-pid', 'claim-token', 'owner']) expect(after).not.toHaveProperty(key);
      expect(existsSync(join(p.root, '.ddx', 'helix.pid'))).toBe(false);
      const log = logOf(p);
      const line = lineMatching(log, /^helix: interrupted by /);
      const released = `; claim on ${TARGET} released`;
      const expected = `helix: interrupted by a closed ${c.stream} (EPIPE: its reader went away)`;
      if (c.reader === 'head -1') expect([expected, `${expected}${released}`]).toContain(line);
      else expect(line).toBe(`${expected}${released}`);
      if (c.args[0] === 'run') {
        expect(p.runState()).toMatchObject({ stop_reason: 'stopped', interrupted_by: c.stream, current_issue: null });
        // an attempt cut short counts as attempted; before the claim there was none
        const attempted = line.endsWith(released) ? 1 : 0;
        expect(log).toContain(`helix: ═══ run complete: ${attempted} attempted, 0 completed, 0 skipped, 0 tokens ═══\n`);
      }
      expect(log).not.toMatch(/EPIPE.*\n\s+at /); // no stack trace anywhere
      report({ group: 'pipes', scenario: c.scenario, exit: String(status), bead: beadState(after), processes: left.text, recovery: '—', line: generic(`${line} (in the session log)`) });
    });
  }

  it('helix tracker list | head -1, and helix check | head -1: the output stops, nothing else does', () => {
    const p = new Project({ beads: Array.from({ length: 3000 }, (_, i) => bead({ id: `hx-${i.toString(16).padStart(8, '0')}`, title: `bead number ${i}` })) });
    const before = readFileSync(p.beadsFile, 'utf8');
    p.script({ responses: [{ when: 'check', stdout: `NEXT_ACTION: STOP\n${FLOOD}` }] });
    for (const args of [['tracker', 'list'], ['check']]) {
      const errFile = p.path('stderr.txt');
      const { status, head } = pipeline(p, args, `2>"${errFile}"`);
      expect(status, args.join(' ')).toBe(0);
      expect(head.split('\n').filter(Boolean)).toHaveLength(1);
      expect(readFileSync(errFile, 'utf8')).not.toMatch(/EPIPE|Error|\n\s+at /);
      report({ group: 'pipes', scenario: `helix ${args.join(' ')} | head -1 (stdout)`, exit: String(status), bead: 'unchanged', processes: '0', recovery: '—', line: '(none: a read that lost its reader just stops)' });
    }
    expect(readFileSync(p.beadsFile, 'utf8')).toBe(before);
    writeFileSync(p.path('done'), '');
  });
});
