// A writer SIGKILLed between writing its temp file and renaming it over the bead file: the file is
// the previous version exactly, and the next writer breaks the dead writer's lock. The dying writer
// is tests/helpers/lock-holder.mjs: it takes the real lock (the tracker's own code) in its own
// process and leaves a complete temp file, as a writer does just before its rename.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBeads } from '../../src/tracker/index.js';
import { REPO_ROOT, cleanEnv, helix, tempGitRepo } from '../helpers/cli.js';
import { jsonl } from './builders.js';
import { bead } from '../helpers/bead.js';

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
    const a = bead({ id: 'a' });
    const previous = jsonl([a, bead({ id: 'b', 'x-foreign': 'kept' })]);
    writeFileSync(file, previous);

    const marker = join(repo, 'holding');
    const holder = join(REPO_ROOT, 'tests', 'helpers', 'lock-holder.mjs');
    const updated = jsonl([bead({ id: 'a', notes: 'never lands' }), bead({ id: 'b', 'x-foreign': 'kept' })]);
    const writer = spawn(process.execPath, [holder, dir, marker, updated], { env: cleanEnv(), stdio: ['pipe', 'ignore', 'ignore'] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => writer.once('exit', (_code, signal) => resolve(signal)));
    await waitForFile(marker, writer);

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
    expect(after.byId.get('a')).toEqual(a);
    expect(after.byId.get('b')).toMatchObject({ notes: 'after the crash', 'x-foreign': 'kept' });
    expect(existsSync(join(dir, 'beads.lock'))).toBe(false);
    // the dead writer's temp file is cleaned up by the next write
    expect(readdirSync(dir).filter((f) => f.startsWith('beads.jsonl.tmp-'))).toEqual([]);
  });
});

describe('a live lock holder', () => {
  it('makes a writer wait, and the write lands once the holder lets go', async () => {
    const repo = tempGitRepo();
    const dir = join(repo, '.ddx');
    mkdirSync(dir);
    writeFileSync(join(dir, 'beads.jsonl'), jsonl([bead({ id: 'a' })]));
    const marker = join(repo, 'holding');
    const holder = spawn(process.execPath, [join(REPO_ROOT, 'tests', 'helpers', 'lock-holder.mjs'), dir, marker], { env: cleanEnv(), stdio: ['pipe', 'ignore', 'ignore'] });
    const released = new Promise<number | null>((resolve) => holder.once('exit', (code) => resolve(code)));
    await waitForFile(marker, holder);

    const blocked = helix(['tracker', 'update', 'a', '--notes', 'too soon'], { cwd: repo, env: { DDX_BEAD_LOCK_TIMEOUT: '0.2' } });
    expect(blocked.status).toBe(5);
    expect(blocked.stderr).toBe(`bead: lock timeout after 0.2s: ${join(dir, 'beads.lock')} held by pid ${holder.pid} since ${new Date(readFileSync(join(dir, 'beads.lock', 'acquired_at'), 'utf8').trim()).toISOString()}\n`);

    holder.stdin!.end();
    expect(await released).toBe(0);
    const after = helix(['tracker', 'update', 'a', '--notes', 'in time'], { cwd: repo, env: {} });
    expect(after.status).toBe(0);
    expect(parseBeads(readFileSync(join(dir, 'beads.jsonl'), 'utf8')).byId.get('a')).toMatchObject({ notes: 'in time' });
  });
});
