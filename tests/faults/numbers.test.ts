// Huge and negative numbers for every numeric flag and environment variable: exit 7 with one line
// naming the flag or variable and its range, before any effect — no bead written, no pid file,
// no log, no memory store created. (The parser itself is tested in tests/numbers.test.ts.)
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { HELIX_BIN, cleanEnv } from '../helpers/cli.js';
import { Project } from '../run/stub-project.js';
import { bead } from '../helpers/bead.js';
import { report } from './fault-checks.js';

const TARGET = 'hx-000000aa';
const HUGE = '99999999999999999999';

interface Case {
  name: string;
  args: (value: string) => string[];
  env?: (value: string) => NodeJS.ProcessEnv;
  /** The value that is out of range below (a signed value's "negative" is a huge negative). */
  negative?: string;
  /** Instead of a huge value, for a variable where huge is allowed. */
  huge?: string;
}

const flag = (name: string, args: (v: string) => string[], negative?: string): Case => ({ name, args, negative });
const variable = (name: string, args: string[] = ['run', '--summary']): Case => ({ name, args: () => args, env: (v) => ({ [name]: v }) });

const CASES: Case[] = [
  flag('run --max-cycles', (v) => ['run', '--max-cycles', v]),
  flag('run --review-every', (v) => ['run', '--review-every', v]),
  flag('run --review-threshold', (v) => ['run', '--review-threshold', v]),
  flag('start --max-cycles', (v) => ['start', '--max-cycles', v]),
  flag('design --rounds', (v) => ['design', '--rounds', v]),
  flag('polish --rounds', (v) => ['polish', '--rounds', v]),
  flag('tracker create --priority', (v) => ['tracker', 'create', 'x', '--priority', v]),
  flag('tracker update --priority', (v) => ['tracker', 'update', TARGET, '--priority', v]),
  flag('tracker update --claim --pid', (v) => ['tracker', 'update', TARGET, '--claim', '--pid', v]),
  flag('memory recall --limit', (v) => ['memory', 'recall', 'q', '--limit', v]),
  flag('memory recall --min-effectiveness', (v) => ['memory', 'recall', 'q', '--min-effectiveness', v]),
  flag('memory recall --min-relevance', (v) => ['memory', 'recall', 'q', '--min-relevance', v]),
  flag('memory suggest-edges --limit', (v) => ['memory', 'suggest-edges', 'n', '--limit', v]),
  flag('memory inject --limit', (v) => ['memory', 'inject', '--objective', 'o', '--limit', v]),
  flag('memory batch-inject --limit', (v) => ['memory', 'batch-inject', '--tasks', '["a"]', '--limit', v]),
  flag('memory strategic-recall --limit', (v) => ['memory', 'strategic-recall', 'o', '--limit', v]),
  flag('memory connected --hops', (v) => ['memory', 'connected', 'n', '--hops', v]),
  flag('memory edge --weight', (v) => ['memory', 'edge', '--from', 'a', '--to', 'b', '--rel', 'similar', '--weight', v], `-${HUGE}`),
  flag('memory feedback --delta', (v) => ['memory', 'feedback', '--names', '["a"]', '--delta', v], `-${HUGE}`),
  flag('memory decay --days', (v) => ['memory', 'decay', '--days', v]),
  flag('memory decay --min-uses', (v) => ['memory', 'decay', '--min-uses', v]),
  flag('memory prune --threshold', (v) => ['memory', 'prune', '--threshold', v]),
  flag('memory prune --min-uses', (v) => ['memory', 'prune', '--min-uses', v]),
  flag('memory consolidate --threshold', (v) => ['memory', 'consolidate', '--threshold', v]),
  flag('memory similar-recent --threshold', (v) => ['memory', 'similar-recent', 't', '--threshold', v]),
  flag('memory similar-recent --days', (v) => ['memory', 'similar-recent', 't', '--days', v]),
  flag('memory decay-edges --days', (v) => ['memory', 'decay-edges', '--days', v]),
  variable('HELIX_BACKOFF_SLEEP'),
  variable('HELIX_ORPHAN_THRESHOLD'),
  variable('HELIX_SYSTEMIC_THRESHOLD'),
  variable('HELIX_VELOCITY_STOP_FACTOR'),
  variable('HELIX_VELOCITY_STOP_SECONDS'),
  // DDX_BEAD_LOCK_TIMEOUT: negative means one try, as in DDx; a value DDx cannot read is refused
  { ...variable('DDX_BEAD_LOCK_TIMEOUT'), negative: '5 s' },
  { ...variable('DDX_BEAD_LOCK_TIMEOUT', ['tracker', 'create', 'x']), name: 'DDX_BEAD_LOCK_TIMEOUT (tracker create)', negative: '5 s' },
  { ...variable('HELIX_ORPHAN_THRESHOLD', ['tracker', 'doctor', '--fix']), name: 'HELIX_ORPHAN_THRESHOLD (tracker doctor --fix)' },
  // HELIX_AGENT_TIMEOUT: negative is refused; huge means no timeout (tested below)
  { ...variable('HELIX_AGENT_TIMEOUT'), name: 'HELIX_AGENT_TIMEOUT (negative, a fraction)', huge: '1.5' },
];

function helixAsync(p: Project, args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [HELIX_BIN, ...args], { cwd: p.root, env: { ...cleanEnv(), ...p.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ status: code ?? -1, stdout, stderr }));
  });
}

/** Every file in the project but .git, with its size: what "no effect" is checked against. */
function tree(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === '.git') continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(`${relative(root, path)} ${statSync(path).size}`);
    }
  };
  walk(root);
  return out.sort();
}

describe('huge and negative numbers for every numeric flag and variable', () => {
  it('each is refused with exit 7 and one line, before anything happens', async () => {
    const p = new Project({ beads: [bead({ id: TARGET, title: 'Target' })] });
    const before = tree(p.root);
    const beadsText = readFileSync(p.beadsFile, 'utf8');
    const runs = CASES.flatMap((c) => [c.huge ?? HUGE, c.negative ?? '-1'].map((value) => ({ c, value })));
    // two at a time: the machine has two cores
    const results: Array<{ c: Case; value: string; r: { status: number; stdout: string; stderr: string } }> = [];
    for (let i = 0; i < runs.length; i += 2) {
      const batch = runs.slice(i, i + 2);
      results.push(...(await Promise.all(batch.map(async ({ c, value }) => ({ c, value, r: await helixAsync(p, c.args(value), c.env?.(value) ?? {}) })))));
    }
    for (const { c, value, r } of results) {
      const what = `${c.name} = ${value}: ${r.stderr}`;
      expect(r.status, what).toBe(EXIT.validation);
      expect(r.status, what).toBe(7);
      expect(r.stdout, what).toBe('');
      expect(r.stderr.split('\n').filter(Boolean), what).toHaveLength(1);
      // priority keeps the tracker's own wording (`bead: invalid priority "…": must be an integer 0-4`)
      expect(r.stderr, what).toMatch(/must be a (whole )?number .*got "|must be an integer 0-4/);
    }
    expect(tree(p.root)).toEqual(before);
    expect(readFileSync(p.beadsFile, 'utf8')).toBe(beadsText);
    expect(existsSync(join(p.root, '.helix', 'helix.db'))).toBe(false);
    for (const c of CASES) {
      const [huge, negative] = results.filter((x) => x.c === c);
      report({
        group: 'numbers',
        scenario: `${c.name}: ${huge?.value} / ${negative?.value}`,
        exit: `${huge?.r.status} / ${negative?.r.status}`,
        bead: 'unchanged (no file written)',
        processes: '0',
        recovery: '—',
        line: (huge?.r.stderr ?? '').trim(),
      });
    }
  });

  it('HELIX_AGENT_TIMEOUT beyond 24.8 days means no timeout: the agent is not killed after 1 ms', () => {
    const p = new Project({ beads: [bead({ id: TARGET, title: 'Target' })] });
    const r = p.helix(['run', '--summary'], { HELIX_AGENT_TIMEOUT: HUGE });
    expect(r.status, r.stderr).toBe(0);
    expect(p.bead(TARGET).status).toBe('closed');
    expect(r.stderr).not.toMatch(/rc=124/);
    const check = p.calls().find((c) => c.kind === 'agent-run');
    expect(check?.argv).toContain('2562047h'); // ddx agent run gets DDx's longest timeout
    report({ group: 'numbers', scenario: `HELIX_AGENT_TIMEOUT: ${HUGE} (means no timeout)`, exit: String(r.status), bead: 'closed: the agent ran to its end', processes: '0', recovery: '—', line: '(none: accepted)' });
  });
});
