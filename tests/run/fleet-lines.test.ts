// With several slots every line of an attempt names its bead (issue 37 item 1, docs/contract/cli.md
// §6.10): a piped run at --jobs 2, read line by line — the agent's, the verify command's and the
// `verifying:` lines each carry `[<id>]`; with one slot the same lines are the Bash CLI's, untouched.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bead } from '../helpers/bead.js';
import { standinTarget } from '../ddx/targets.js';

function twoBeads() {
  const beads = ['a', 'b'].map((x, i) => bead({ id: `hx-0000000${i + 1}`, title: `write work/${x}.txt`, description: `Create work/${x}.txt.`, verify: 'true' }));
  const p = standinTarget('current').project(beads);
  p.script({ responses: beads.map((b, i) => ({ when: b.id, delayMs: 300, commit: { path: `work/${'ab'[i]}.txt`, content: 'x\n' } })) });
  writeFileSync(join(p.root, '.gitignore'), '.ddx/agent-logs/\n.ddx/executions/\n');
  spawnSync('git', ['add', '.gitignore'], { cwd: p.root });
  spawnSync('git', ['commit', '-qm', "DDx's runtime ignores"], { cwd: p.root });
  return p;
}

/** The lines of a build the Bash CLI printed without its bead: the agent's completion, verify's, `verifying:`. */
const attemptLines = (stderr: string) => stderr.split('\n').filter((line) => / complete \(rc=| verifying: /.test(line));

describe('lines with several slots', () => {
  it('--jobs 2: every agent, verify and verifying line names its bead, and the check its action', () => {
    const p = twoBeads();
    const r = p.helix(['run', '--jobs', '2', '--no-auto-align']);
    expect(r.status, r.stderr).toBe(0);
    const lines = attemptLines(r.stderr);
    // two builds, two verify commands, two `verifying:` lines, the check
    expect(lines.length).toBeGreaterThanOrEqual(7);
    for (const line of lines) expect(line).toMatch(/\[(hx-0000000[12]|check)\]/);
    expect(r.stderr).toMatch(/^helix: \[hx-0000000[12]\] verifying: true$/m);
    expect(r.stderr).toMatch(/^helix: \[\d\d:\d\d:\d\d\] \[check\] claude complete \(rc=0/m);
  });

  it('one slot: the same lines as the Bash CLI printed them, no bead tag', () => {
    const p = twoBeads();
    const r = p.helix(['run', '--no-auto-align']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^helix: verifying: true$/m);
    for (const line of attemptLines(r.stderr)) expect(line).not.toMatch(/\[hx-/);
  });
});
