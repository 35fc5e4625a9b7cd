// Every command writes through its context's output sink (src/cli/command-context.ts), never to the
// process's streams itself: run in-process with a buffer as the sink (runCliBuffered), a command
// line's output, error line and exit code all land in the buffer and nothing reaches process.stdout
// or process.stderr. The same command lines through bin/helix are checked elsewhere.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runCliBuffered } from '../../src/cli/main.js';
import { EXIT } from '../../src/errors.js';
import { cleanEnv, tempDir, tempGitRepo } from '../helpers/cli.js';

describe('the output sink', () => {
  const writes: string[] = [];
  beforeEach(() => {
    writes.length = 0;
    for (const stream of [process.stdout, process.stderr]) {
      vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        writes.push(String(chunk));
        return true;
      });
    }
  });
  afterEach(() => vi.restoreAllMocks());

  const repo = tempGitRepo();
  const env = { ...cleanEnv(), DDX_BEAD_PREFIX: 'hx', HOME: tempDir(), HELIX_EMBEDDER: 'lexical' };
  const run = (args: string[]) => runCliBuffered(args, { cwd: repo, env });

  it('tracker commands: output, warnings and exit codes go to the sink', async () => {
    expect(await run(['tracker', 'init'])).toMatchObject({ exitCode: 0, stdout: `Initialized bead tracker in ${join(repo, '.ddx')}\n`, stderr: '' });
    const created = await run(['tracker', 'create', 'First', '--labels', 'phase:build', '--json']);
    expect(created.exitCode).toBe(0);
    const id = (JSON.parse(created.stdout) as { id: string }).id;
    expect((await run(['tracker', 'ready'])).stdout).toBe(`${id}  [P2] [open] [task] First\n`);
    expect(await run(['tracker', 'show', 'hx-00000000'])).toEqual({ exitCode: EXIT.notFound, stdout: '', stderr: 'bead: not found: hx-00000000\n' });
    expect(await run(['tracker', 'create', 'x', '--priority', '7'])).toMatchObject({ exitCode: EXIT.validation, stdout: '' });
    writeFileSync(join(repo, '.ddx', 'beads.jsonl'), `${'{not json'}\n`, { flag: 'a' });
    const warned = await run(['tracker', 'list']);
    expect(warned.stderr).toContain('malformed line(s) 2');
    expect((await run(['tracker', 'doctor'])).exitCode).toBe(EXIT.malformedStore);
    expect(writes).toEqual([]);
  });

  it('status, next, doctor, memory, help and errors go to the sink too', async () => {
    const other = tempGitRepo();
    mkdirSync(join(other, '.ddx'));
    const at = (args: string[]) => runCliBuffered(args, { cwd: other, env });
    expect(JSON.parse((await at(['status', '--json'])).stdout)).toMatchObject({ current_cycle: 0, last_stop_reason: 'unknown' });
    expect(await at(['next'])).toEqual({ exitCode: 0, stdout: 'no ready issues\n', stderr: '' });
    expect((await at(['doctor', '--json'])).exitCode).toBe(EXIT.error); // no skill links in a fresh HOME
    const db = join(tempDir(), 'helix.db');
    expect(JSON.parse((await at(['memory', 'store', '--db', db, '--trigger', 'when the parser fails on flags', '--resolution', 'strict mode'])).stdout)).toMatchObject({ status: 'added' });
    expect(await at(['memory', 'get', 'nope', '--db', db])).toMatchObject({ exitCode: EXIT.notFound, stdout: '{\n  "error": "not found"\n}\n' });
    expect((await at(['help'])).stdout).toMatch(/^Usage:\n {2}helix run /);
    expect(await at(['frobnicate'])).toMatchObject({ exitCode: EXIT.error, stdout: '' });
    expect((await at(['run', '--bogus'])).stderr).toBe('unknown option for run: --bogus\n');
    expect(writes).toEqual([]);
  });
});
