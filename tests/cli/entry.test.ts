import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { helix, REPO_ROOT, tempDir } from '../helpers/cli.js';

const version = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).version as string;

describe('helix entry point', () => {
  const cwd = tempDir();

  it.each([['--version'], ['-V'], ['version']])('%s prints "helix <semver>"', (flag) => {
    const r = helix([flag], { cwd });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`helix ${version}\n`);
  });

  it.each([['help'], ['--help'], ['-h']])('%s prints usage naming the commands and --summary', (flag) => {
    const r = helix([flag], { cwd });
    expect(r.status).toBe(0);
    for (const command of ['run', 'tracker', 'memory', 'doctor']) expect(r.stdout).toContain(command);
    expect(r.stdout).toContain('--summary');
  });

  it('an unknown command prints "unknown command: X" and usage on stderr, exit 1', () => {
    const r = helix(['frobnicate'], { cwd });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^unknown command: frobnicate\n/);
    expect(r.stderr).toContain('\nUsage:\n  helix run ');
    expect(r.stdout).toBe('');
  });

  it('an unknown run flag prints "unknown option for run: X", exit 1', () => {
    const r = helix(['run', '--bogus'], { cwd });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('unknown option for run: --bogus');
  });

  it('the Bash shim scripts/helix execs the same CLI', () => {
    const r = spawnSync('bash', [join(REPO_ROOT, 'scripts/helix'), '--version'], { cwd, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`helix ${version}\n`);
  });
});

describe('the common flags (docs/contract/cli.md §3: accepted by every command)', () => {
  const COMMON = ['--agent', '--claude', '--codex', '--model', '--effort', '--dry-run', '--quiet', '--summary'];

  it('every command and sub-command of the program declares them', async () => {
    const { buildProgram } = await import('../../src/cli/main.js');
    type Node = { name(): string; commands: readonly Node[]; options: readonly { long?: string }[] };
    const missing: string[] = [];
    const walk = (command: Node, path: string[]) => {
      const longs = command.options.map((o) => o.long);
      if (path.length > 0) for (const flag of COMMON) if (!longs.includes(flag)) missing.push(`${path.join(' ')} ${flag}`);
      for (const sub of command.commands) walk(sub, [...path, sub.name()]);
    };
    walk((await buildProgram()) as unknown as Node, []);
    expect(missing).toEqual([]);
  });

  it('memory sub-commands take --quiet like the rest (the old harness passes it to all)', () => {
    const cwd = tempDir();
    const r = helix(['memory', 'recall', 'anything', '--quiet'], { cwd, env: { HELIX_EMBEDDER: 'lexical' } });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });
});

describe('the usage (docs/contract/bash-interface.md §0.7)', () => {
  const usage = helix(['help'], { cwd: tempDir() }).stdout;

  it('has the Bash parts in order, the synopsis of every command, --summary, and no stage-model overrides', () => {
    const parts = ['Usage:', 'Commands:', 'Options:', 'Environment:', 'Adversarial rotation:', 'Logs:', 'Notes:'];
    const at = parts.map((p) => usage.indexOf(`${p}\n`));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    for (const synopsis of [
      'helix run [--agent <harness>] [--review-every N] [--max-cycles N] [--no-auto-align] [--no-auto-review] [--summary] [--dry-run]',
      'helix build [--agent <harness>] [selector]',
      'helix design [--agent <harness>] [--rounds N] [scope]',
      'helix triage "Title" [--type task|epic|bug|chore] [ddx bead create options...]',
    ]) {
      expect(usage).toContain(`\n  ${synopsis}\n`);
    }
    for (const command of ['run', 'build', 'check', 'align', 'backfill', 'design', 'polish', 'doctor', 'start', 'stop', 'status', 'next', 'review', 'experiment', 'triage', 'tracker', 'memory', 'version', 'help']) {
      expect(usage, command).toMatch(new RegExp(`^ {2}${command} +\\S`, 'm'));
    }
    expect(usage).toContain('  --quiet, -q       Suppress progress output (command echo, prompt sizes)\n');
    expect(usage).toContain('  --summary, -s     Concise output with log-file line pointers (implies --quiet)\n');
    expect(usage).toContain('  HELIX_AGENT_TIMEOUT  Agent timeout in seconds (default: 2700)\n');
    expect(usage).toContain('  Session logs are written to .helix-logs/helix-YYYYMMDD-HHMMSS.log\n');
    expect(usage).toContain('  `helix run` remains a compatibility wrapper for supervisory routing');
    expect(usage).toContain('  `helix build` remains a compatibility wrapper for one bounded pass');
    expect(usage).toContain('`codex --dangerously-bypass-approvals-and-sandbox exec`');
    // cli.md: run's build cycles go to execute-bead; execute-loop only by opt-in
    expect(usage).toMatch(/build cycles delegate to `ddx agent execute-bead`[\s\S]*HELIX_EXECUTOR=execute-loop/);
    expect(usage).not.toMatch(/--smart-model|HELIX_SMART_MODEL|HELIX_CHEAP_MODEL/);
  });

  it('`--help` after a Bash command prints the same general usage; no command at all prints it too', () => {
    for (const args of [['run', '--help'], ['review', '-h'], ['status', '--help'], []]) {
      const r = helix(args, { cwd: tempDir() });
      expect(r.status, args.join(' ')).toBe(0);
      expect(r.stdout).toBe(usage);
    }
    // helix's own command groups keep their own help
    expect(helix(['tracker', '--help'], { cwd: tempDir() }).stdout.startsWith('Manage beads')).toBe(true);
  });

  it('run takes no positionals: one is refused like an unknown option', () => {
    const r = helix(['run', 'now'], { cwd: tempDir() });
    expect(r).toMatchObject({ status: 1, stderr: 'unknown option for run: now\n' });
  });
});

describe('helix doctor (docs/contract/bash-interface.md §18)', () => {
  const version = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).version as string;

  it('opens with the Bash header, checks the workflows, and ends with the Result line', () => {
    const cwd = tempDir();
    const r = helix(['doctor'], { cwd, env: { HOME: tempDir(), HELIX_LIBRARY_ROOT: join(REPO_ROOT, 'workflows') } });
    expect(r.stdout.startsWith(`HELIX Doctor\n============\n\nVersion:  helix ${version}\nRoot:     ${REPO_ROOT}\n\nRequired:\n  ✓  bash         `)).toBe(true);
    expect(r.stdout).toContain(`\nWorkflows:\n  ✓  workflows    ${join(REPO_ROOT, 'workflows')}\n`);
    expect(r.stdout).toMatch(/\n {2}- {2}tmux {9}not found \(optional\)\n|\n {2}✓ {2}tmux /);
    expect(r.stdout).toContain(`\nTracker:\n  -  ${join(cwd, '.ddx', 'beads.jsonl')} no tracker in this directory\n`);
    // no skill links in a fresh HOME: failures, so the Result line counts them and hints at --fix
    expect(r.stdout).toMatch(/\n\nResult: \d+ ok, \d+ warnings, \d+ FAILURES\nHint: run "helix doctor --fix" to auto-repair\n$/);
    expect(r.status).toBe(1);
  });

  it('a missing workflows folder is a failure; --fix says its mode, repairs, and reports what it fixed', () => {
    const cwd = tempDir();
    const home = tempDir();
    const missing = helix(['doctor'], { cwd, env: { HOME: home, HELIX_LIBRARY_ROOT: join(cwd, 'nowhere') } });
    expect(missing.stdout).toContain(`\nWorkflows:\n  ✗  workflows    NOT FOUND at ${join(cwd, 'nowhere')}\n`);
    const fixed = helix(['doctor', '--fix'], { cwd, env: { HOME: home, HELIX_LIBRARY_ROOT: join(REPO_ROOT, 'workflows') } });
    expect(fixed.stdout).toContain(`\nRoot:     ${REPO_ROOT}\nMode:     --fix (will auto-repair)\n\n`);
    expect(fixed.stdout).toMatch(/\n\nFixed: \d+ items repaired\nResult: /);
    expect(fixed.stdout).not.toContain('Hint:');
  });
});
