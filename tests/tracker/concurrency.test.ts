// Many real processes writing one bead file at once: the lock and the claim compare-and-swap.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBeads } from '../../src/tracker/index.js';
import { runProcess, tempGitRepo } from '../helpers/cli.js';
import { jsonl } from './builders.js';
import { bead } from '../helpers/bead.js';
import { claimRace } from './process-race.js';

describe('concurrency', () => {
  // a short race: the 50-round one is in npm run test:slow (concurrency.slow.test.ts)
  it('16 processes race to claim one bead, 3 rounds: exactly one winner each round', async () => {
    await claimRace(3);
  }, 300_000);

  it('8 processes × 100 updates to different beads: all 800 present and the file parses', async () => {
    const repo = tempGitRepo();
    const dir = join(repo, '.ddx');
    mkdirSync(dir);
    const ids = Array.from({ length: 8 }, (_, w) => `w-${w}`);
    const bystander = bead({ id: 'bystander', 'x-foreign': [1, { k: 'v' }] });
    writeFileSync(join(dir, 'beads.jsonl'), jsonl([...ids.map((id) => bead({ id })), bystander]));
    const worker = join(import.meta.dirname, 'workers', 'updater.mjs');
    const started = Date.now();
    const exits = await Promise.all(ids.map((id) => runProcess(process.execPath, [worker, dir, id, '100'], repo)));
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
    expect(snapshot.byId.get('bystander')).toEqual(bystander);
    console.log(`8 processes × 100 updates: ${elapsed} ms`);
  }, 300_000);
});
