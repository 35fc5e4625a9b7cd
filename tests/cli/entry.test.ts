import { describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
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

  it('no command at all, -h and help print the general usage', () => {
    for (const args of [[], ['-h'], ['help']]) {
      const r = helix(args, { cwd: tempDir() });
      expect(r.status, args.join(' ')).toBe(0);
      expect(r.stdout).toBe(usage);
    }
  });

  it('the rotation section says what the flags do: reviews on the agent that did not build, or --review-agent', () => {
    const rotation = usage.slice(usage.indexOf('Adversarial rotation:'), usage.indexOf('Logs:'));
    expect(rotation).toContain('Reviews run on the agent that did not build (with one agent, on that one);\n  --review-agent or HELIX_REVIEW_AGENT names another.');
    expect(rotation).toMatch(/alternate agent[\s\S]*runs build, check and\s+polish/);
    expect(rotation).not.toMatch(/primary[^.]*review/i);
  });

  it('`<command> --help` prints that command\'s own help: its flags, not the general usage (docs/contract/cli.md §1)', () => {
    for (const args of [['run', '--help'], ['review', '-h'], ['status', '--help'], ['help', 'build'], ['tracker', 'create', '--help'], ['memory', 'edit', '--help']]) {
      const r = helix(args, { cwd: tempDir() });
      expect(r.status, args.join(' ')).toBe(0);
      expect(r.stdout).not.toBe(usage);
      const name = args[0] === 'help' ? args.slice(1) : args.filter((a) => !a.startsWith('-'));
      expect(r.stdout, args.join(' ')).toMatch(new RegExp(`\nUsage: helix ${name.join(' ')}[ |]`));
      expect(r.stdout.trimEnd().endsWith('Every command, the environment and the notes: helix help')).toBe(true);
    }
    // helix's own command groups begin with their description (docs/contract/cli.md §5.3)
    expect(helix(['tracker', '--help'], { cwd: tempDir() }).stdout.startsWith('Manage beads')).toBe(true);
  });

  it('a command that runs no agent lists no agent flags; one that does lists them all', () => {
    const AGENT_FLAGS = ['--agent', '--claude', '--codex', '--model', '--effort', '--dry-run', '--quiet', '--summary'];
    const flagsIn = (help: string) => AGENT_FLAGS.filter((flag) => new RegExp(`^ +(-\\w, )?${flag}\\b`, 'm').test(help));
    for (const args of [['tracker', 'create'], ['memory', 'edit'], ['tracker'], ['memory'], ['status'], ['next'], ['log'], ['report'], ['stop'], ['doctor'], ['triage'], ['hook']]) {
      expect([args.join(' '), flagsIn(helix([...args, '--help'], { cwd: tempDir() }).stdout)]).toEqual([args.join(' '), []]);
    }
    expect(flagsIn(helix(['install', '--help'], { cwd: tempDir() }).stdout)).toEqual(['--dry-run']);
    for (const command of ['run', 'build', 'check', 'align', 'design', 'polish', 'review', 'backfill', 'experiment', 'start']) {
      expect([command, flagsIn(helix([command, '--help'], { cwd: tempDir() }).stdout)]).toEqual([command, AGENT_FLAGS]);
    }
  });

  it('run --help: a quick start (create beads, run --summary, status, log -f) and examples, in a screen', () => {
    const help = helix(['run', '--help'], { cwd: tempDir() }).stdout;
    expect(help.startsWith('the bounded supervisor loop')).toBe(true);
    const quick = help.slice(help.indexOf('Quick start:\n'), help.indexOf('Examples:\n'));
    const steps = ['helix tracker create ', 'helix run --summary', 'helix status', 'helix log -f'].map((step) => quick.indexOf(`  ${step}`));
    expect(steps.every((at) => at > 0)).toBe(true);
    expect([...steps].sort((a, b) => a - b)).toEqual(steps);
    expect(help).toMatch(/\nExamples:\n {2}helix run --dry-run /);
    expect(help).not.toContain('Environment:');
    expect(help.split('\n').length).toBeLessThan(usage.split('\n').length * 0.6);
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

  it("reports the helix hooks in Claude Code's settings.json: none, the four install --with-hooks writes, an older install's two, a launcher that is gone", () => {
    const home = tempDir();
    // the stub agents on PATH: with the links and launcher installed, the hooks row decides the exit
    const env = { HOME: home, HELIX_LIBRARY_ROOT: join(REPO_ROOT, 'workflows'), PATH: `${join(REPO_ROOT, 'tests', 'stubs')}:${process.env.PATH ?? ''}`, IS_SANDBOX: '1' };
    const settings = join(home, '.claude', 'settings.json');
    const hooksRow = () => {
      const r = helix(['doctor'], { cwd: tempDir(), env });
      return { row: /\nClaude Code hooks:\n(.*)\n/.exec(r.stdout)?.[1], status: r.status };
    };
    expect(hooksRow().row).toBe(`  -  hooks        none in ${settings} (optional: \`helix install --with-hooks\` adds them; \`claude --plugin-dir\` brings its own)`);
    expect(helix(['install', '--with-hooks'], { cwd: tempDir(), env }).status).toBe(0);
    expect(hooksRow()).toEqual({ row: `  ✓  hooks        4 in ${settings}`, status: 0 });
    // an older install wrote SessionStart and PreToolUse only
    const full = JSON.parse(readFileSync(settings, 'utf8')) as { hooks: Record<string, unknown> };
    writeFileSync(settings, JSON.stringify({ hooks: { SessionStart: full.hooks.SessionStart, PreToolUse: full.hooks.PreToolUse } }));
    expect(hooksRow().row).toBe(`  -  hooks        ${settings} lacks Stop, SubagentStop (an older install): run \`helix install --with-hooks\``);
    // the checkout the hooks run was moved away: Claude Code would fail each one
    const gone = join(tempDir(), 'moved', 'bin', 'helix');
    writeFileSync(settings, JSON.stringify(full).replaceAll(join(REPO_ROOT, 'bin', 'helix'), gone));
    expect(hooksRow()).toEqual({ row: `  ✗  hooks        ${settings} runs ${gone}, which does not exist: run \`helix install --with-hooks\``, status: 1 });
  });

  it('a missing workflows folder is a failure; --fix says its mode, repairs, and reports what it fixed', () => {
    const cwd = tempDir();
    const home = tempDir();
    const missing = helix(['doctor'], { cwd, env: { HOME: home, HELIX_LIBRARY_ROOT: join(cwd, 'nowhere') } });
    expect(missing.stdout).toContain(`\nWorkflows:\n  ✗  workflows    NOT FOUND at ${join(cwd, 'nowhere')}\n`);
    const fixed = helix(['doctor', '--fix'], { cwd, env: { HOME: home, HELIX_LIBRARY_ROOT: join(REPO_ROOT, 'workflows') } });
    expect(fixed.stdout).toContain(`\nRoot:     ${REPO_ROOT}\nMode:     --fix (will auto-repair)\n\n`);
    expect(fixed.stdout).toMatch(/\n\nFixed: \d+ items? repaired\nResult: /);
    expect(fixed.stdout).not.toContain('Hint:');
  });
});
