// A writer SIGKILLed between writing its temp file and renaming it over the bead file: the file is
// the previous version exactly, and the next writer breaks the dead writer's lock.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBeads } from '../../src/tracker/index.js';
import { HELIX_BIN, cleanEnv, helix, tempGitRepo } from '../helpers/cli.js';
import { bead, jsonl } from './builders.js';

/** Resolves once `file` exists, checking every 10 ms; rejects when the child exits first. */
function waitForFile(file: string, child: ReturnType<typeof spawn>): Promise<void> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`writer exited (${code}) before touching ${file}`));
    child.once('exit', onExit);
    const check = () => {
      if (existsSync(file)) {
        child.off('exit', onExit);
        resolve();
      } else setTimeout(check, 10);
    };
    check();
  });
}

describe('crash safety', () => {
  it('a writer killed after writing its temp file and before the rename leaves the previous file; the next write succeeds', async () => {
    const repo = tempGitRepo();
    const dir = join(repo, '.ddx');
    mkdirSync(dir);
    const file = join(dir, 'beads.jsonl');
    const previous = jsonl([bead({ id: 'a' }), bead({ id: 'b', 'x-foreign': 'kept' })]);
    writeFileSync(file, previous);

    const writer = spawn(process.execPath, [HELIX_BIN, 'tracker', 'update', 'a', '--notes', 'never lands'], {
      cwd: repo,
      env: { ...cleanEnv(), HELIX_TRACKER_TEST_HOLD_LOCK_SEC: '30' },
      stdio: 'ignore',
    });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => writer.once('exit', (_code, signal) => resolve(signal)));
    await waitForFile(join(dir, 'beads.test-hold'), writer);

    // The writer is inside the window: it holds the lock, its complete temp file is on disk.
    expect(readFileSync(join(dir, 'beads.lock', 'pid'), 'utf8')).toBe(`${writer.pid}\n`);
    const temps = readdirSync(dir).filter((f) => f.startsWith('beads.jsonl.tmp-'));
    expect(temps).toHaveLength(1);
    expect(readFileSync(join(dir, temps[0]!), 'utf8')).toContain('never lands');

    writer.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    expect(readFileSync(file, 'utf8')).toBe(previous);
    expect(parseBeads(readFileSync(file, 'utf8')).problems).toEqual([]);
    expect(existsSync(join(dir, 'beads.lock'))).toBe(true); // the dead writer's lock is still there

    const next = helix(['tracker', 'update', 'b', '--notes', 'after the crash'], { cwd: repo, env: { DDX_BEAD_LOCK_TIMEOUT: '5' } });
    expect(next.stderr).toBe('');
    expect(next.status).toBe(0);
    const after = parseBeads(readFileSync(file, 'utf8'));
    expect(after.problems).toEqual([]);
    expect(after.byId.get('a')).toEqual(bead({ id: 'a' }));
    expect(after.byId.get('b')).toMatchObject({ notes: 'after the crash', 'x-foreign': 'kept' });
    expect(existsSync(join(dir, 'beads.lock'))).toBe(false);
    // the dead writer's temp file is cleaned up by the next write
    expect(readdirSync(dir).filter((f) => f.startsWith('beads.jsonl.tmp-'))).toEqual([]);
  });
});
