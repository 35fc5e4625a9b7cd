// Many real processes writing one bead file at once: the lock and the claim compare-and-swap.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { parseBeads } from '../../src/tracker/index.js';
import { HELIX_BIN, cleanEnv, tempGitRepo } from '../helpers/cli.js';
import { bead, jsonl, parsedLines } from './builders.js';

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...cleanEnv(), ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('concurrency', () => {
  it('16 processes race to claim one bead, 50 rounds: exactly one winner each round', async () => {
    const repo = tempGitRepo();
    mkdirSync(join(repo, '.ddx'));
    const file = join(repo, '.ddx', 'beads.jsonl');
    const env = { DDX_BEAD_LOCK_TIMEOUT: '60' };
    const started = Date.now();
    for (let round = 0; round < 50; round++) {
      writeFileSync(file, jsonl([bead({ id: 'prize' }), bead({ id: 'other' })]));
      const racers = Array.from({ length: 16 }, (_, i) =>
        run(process.execPath, [HELIX_BIN, 'tracker', 'update', 'prize', '--claim', '--pid', String(1000 * (round + 1) + i)], repo, env),
      );
      const exits = await Promise.all(racers);
      const winners = exits.flatMap((e, i) => (e.code === 0 ? [i] : []));
      expect(winners, `round ${round}: ${JSON.stringify(exits.filter((e) => e.code !== EXIT.conflict))}`).toHaveLength(1);
      const winner = 1000 * (round + 1) + winners[0]!;
      for (const [i, e] of exits.entries()) {
        if (i === winners[0]) {
          expect(e.stdout).toBe('Claimed prize\n');
          continue;
        }
        expect(e.code).toBe(EXIT.conflict);
        expect(e.stderr).toBe(`bead: cannot claim prize from status in_progress (held by helix, pid ${winner})\n`);
      }
      const after = parsedLines(readFileSync(file, 'utf8'));
      expect(after.map((b) => b.id)).toEqual(['other', 'prize']);
      expect(after[1]).toMatchObject({ status: 'in_progress', 'claimed-pid': String(winner) });
      expect(after[0]).toEqual(bead({ id: 'other' }));
    }
    console.log(`16-way claim race, 50 rounds: ${Date.now() - started} ms`);
  }, 300_000);

  it('8 processes × 100 updates to different beads: all 800 present and the file parses', async () => {
    const repo = tempGitRepo();
    const dir = join(repo, '.ddx');
    mkdirSync(dir);
    const ids = Array.from({ length: 8 }, (_, w) => `w-${w}`);
    writeFileSync(join(dir, 'beads.jsonl'), jsonl([...ids.map((id) => bead({ id })), bead({ id: 'bystander', 'x-foreign': [1, { k: 'v' }] })]));
    const worker = join(import.meta.dirname, 'workers', 'updater.mjs');
    const started = Date.now();
    const exits = await Promise.all(ids.map((id) => run(process.execPath, [worker, dir, id, '100'], repo)));
    const elapsed = Date.now() - started;
    for (const e of exits) expect(e).toEqual({ code: 0, stdout: '', stderr: '' });
    const text = readFileSync(join(dir, 'beads.jsonl'), 'utf8');
    const snapshot = parseBeads(text);
    expect(snapshot.problems).toEqual([]);
    expect(snapshot.beads.map((b) => b.id)).toEqual([...ids.map((id) => id), 'bystander'].sort());
    for (const id of ids) {
      const steps = Object.keys(snapshot.byId.get(id)!).filter((k) => k.startsWith('step-'));
      expect(steps, id).toHaveLength(100);
    }
    expect(snapshot.byId.get('bystander')).toEqual(bead({ id: 'bystander', 'x-foreign': [1, { k: 'v' }] }));
    console.log(`8 processes × 100 updates: ${elapsed} ms`);
  }, 300_000);
});
