// Real processes racing on one bead file, shared by tests/tracker/concurrency.test.ts (npm test)
// and concurrency.slow.test.ts (npm run test:slow).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { HELIX_BIN, runProcess, tempGitRepo } from '../helpers/cli.js';
import { jsonl, parsedLines } from './builders.js';
import { bead } from '../helpers/bead.js';

/**
 * 16 processes race to claim one bead, `rounds` times: exactly one wins each round, the others get
 * the conflict line and exit 4, and the file holds both beads intact. npm test runs 3 rounds;
 * tests/tracker/concurrency.slow.test.ts (npm run test:slow) runs 50.
 */
export async function claimRace(rounds: number): Promise<void> {
  const repo = tempGitRepo();
  mkdirSync(join(repo, '.ddx'));
  const file = join(repo, '.ddx', 'beads.jsonl');
  const env = { DDX_BEAD_LOCK_TIMEOUT: '60' };
  const started = Date.now();
  for (let round = 0; round < rounds; round++) {
    const other = bead({ id: 'other' });
    writeFileSync(file, jsonl([bead({ id: 'prize' }), other]));
    const racers = Array.from({ length: 16 }, (_, i) =>
      runProcess(process.execPath, [HELIX_BIN, 'tracker', 'update', 'prize', '--claim', '--pid', String(1000 * (round + 1) + i)], repo, env),
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
    expect(after[0]).toEqual(other);
  }
  console.log(`16-way claim race, ${rounds} rounds: ${Date.now() - started} ms`);
}
