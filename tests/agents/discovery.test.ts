import { beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { detectDdx, findOnPath, forgetDdxProbes, helpCommands, parseDdxVersion, surfaceOfVersion } from '../../src/agents/index.js';
import { tempDir } from '../helpers/cli.js';

const STUBS = resolve(import.meta.dirname, '../stubs');

function stubEnv(script: object) {
  const dir = tempDir('helix-probe-');
  writeFileSync(join(dir, 'script.json'), JSON.stringify(script));
  return {
    dir,
    env: { ...process.env, PATH: `${STUBS}:/usr/bin:/bin`, HELIX_STUB_SCRIPT: join(dir, 'script.json'), HELIX_STUB_LOG: join(dir, 'log.jsonl') },
  };
}

describe('findOnPath', () => {
  it('finds an executable file and skips non-executable files and folders', () => {
    const a = tempDir();
    const b = tempDir();
    writeFileSync(join(a, 'agent'), 'not executable');
    writeFileSync(join(b, 'agent'), '#!/bin/sh\n');
    chmodSync(join(b, 'agent'), 0o755);
    expect(findOnPath('agent', { PATH: `${a}:${b}` })).toBe(join(b, 'agent'));
    expect(findOnPath('agent', { PATH: a })).toBeUndefined();
    expect(findOnPath('codex', { PATH: '' })).toBeUndefined();
    expect(findOnPath('codex', { PATH: STUBS })).toBe(join(STUBS, 'codex'));
  });
});

describe('detectDdx (one probe per run: `ddx version --no-check`)', () => {
  beforeEach(() => forgetDdxProbes());

  it('names the version and the surface, and asks only once per process', async () => {
    const { dir, env } = stubEnv({ responses: [] });
    expect(await detectDdx(env, dir)).toEqual({ path: join(STUBS, 'ddx'), version: 'v0.6.1', surface: 'agent' });
    expect(await detectDdx(env, dir)).toMatchObject({ surface: 'agent' });
    const calls = readFileSync(join(dir, 'log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ argv: ['version', '--no-check'], env: { DDX_DISABLE_UPDATE_CHECK: '1' } });
  });

  it('an older DDx is found but not supported, with the reason', async () => {
    const { dir, env } = stubEnv({ executeBeadHelp: false, responses: [] });
    expect(await detectDdx(env, dir)).toEqual({ path: join(STUBS, 'ddx'), version: 'v0.5.3', surface: undefined, unsupported: 'too old' });
  });

  it('is undefined when there is no ddx on PATH', async () => {
    expect(await detectDdx({ PATH: '/usr/bin:/bin' }, tempDir())).toBeUndefined();
  });
});

describe('which surface a DDx version has (from DDx\'s tags: agent group removed in v0.6.2-alpha50)', () => {
  it.each([
    ['DDx v0.5.9', undefined],
    ['DDx v0.6.0', 'agent'],
    ['DDx v0.6.1', 'agent'],
    ['DDx v0.6.2-alpha1', 'agent'],
    ['DDx v0.6.2-alpha49', 'agent'],
    ['DDx v0.6.2-alpha50', 'current'],
    ['DDx v0.6.2-alpha164', 'current'],
    ['DDx v0.6.2', 'current'],
    ['DDx v0.7.0', 'current'],
    ['DDx v1.0.0', 'current'],
  ])('%s → %s', (line, surface) => {
    expect(surfaceOfVersion(parseDdxVersion(line)!)).toBe(surface);
  });

  it('reads the command list of a cobra help text (for development builds, v0.0.1-dev)', () => {
    const help = 'DDx …\n\nUsage:\n  ddx [command]\n\nAvailable Commands:\n  agent       Invoke AI agents\n  bead        Manage beads\n  work        Work the queue\n\nFlags:\n  -h, --help   help\n';
    expect([...helpCommands(help)]).toEqual(['agent', 'bead', 'work']);
  });
});
