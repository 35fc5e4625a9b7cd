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

describe('the common flags (contract §3: accepted by every command)', () => {
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
    walk(buildProgram() as unknown as Node, []);
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
