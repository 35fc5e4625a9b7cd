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
    expect(r.stderr).toContain('Usage: helix');
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
