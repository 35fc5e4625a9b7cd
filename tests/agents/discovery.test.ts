import { beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ddxExecuteBeadAvailable, findOnPath, forgetDdxProbes } from '../../src/agents/index.js';
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

describe('ddxExecuteBeadAvailable', () => {
  beforeEach(() => forgetDdxProbes());

  it('is true when `ddx agent execute-bead --help` exits 0, and asks only once per process', async () => {
    const { dir, env } = stubEnv({ responses: [] });
    expect(await ddxExecuteBeadAvailable(env, dir)).toBe(true);
    expect(await ddxExecuteBeadAvailable(env, dir)).toBe(true);
    const calls = readFileSync(join(dir, 'log.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ argv: ['agent', 'execute-bead', '--help'] });
  });

  it('is false for an older ddx whose --help fails', async () => {
    const { dir, env } = stubEnv({ executeBeadHelp: false, responses: [] });
    expect(await ddxExecuteBeadAvailable(env, dir)).toBe(false);
  });

  it('is false when there is no ddx on PATH', async () => {
    expect(await ddxExecuteBeadAvailable({ PATH: '/usr/bin:/bin' }, tempDir())).toBe(false);
  });
});
