// Issue 8's proof: the learning simulation (scripts/sim-learning.mjs) through the real `helix run`,
// on a fixed seed and a configuration small enough for the suite. The full run and the check on
// other seeds are `npm run sim:learning [-- --seeds 1,2,3,4,5]` (numbers in docs/readme/learning.md).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, cleanEnv, tempDir } from '../helpers/cli.js';

const SCRIPT = join(REPO_ROOT, 'scripts', 'sim-learning.mjs');

interface Round {
  attempted: number;
  completed: number;
}
interface ArmResult {
  rounds: Round[];
  lookalikes: { atLeast: number; total: number; usefulRanks: number[] };
  stats: {
    useful: { mean: number; rated: number; count: number };
    distractors: { mean: number };
    often: { count: number; below: number; max: number };
  };
}
interface SimOutput {
  ok: boolean;
  main: { arms: Record<'off' | 'honest' | 'dishonest', ArmResult>; claims: Array<{ claim: string; holds: boolean; value: string }> };
}

function simulate(args: string[]): SimOutput {
  const run = spawnSync(process.execPath, [SCRIPT, '--json', ...args], { env: cleanEnv(), encoding: 'utf8' });
  if (run.status !== 0 && run.status !== 1) throw new Error(`sim-learning exited ${run.status}: ${run.stderr}`);
  return JSON.parse(run.stdout) as SimOutput;
}

const rate = (rounds: Round[]) => rounds.reduce((a, r) => a + r.completed, 0) / rounds.reduce((a, r) => a + r.attempted, 0);

describe('the learning simulation', () => {
  it('on seed 7 memory with honest feedback beats memory off, and verification separates useful from distractors', () => {
    const svg = join(tempDir('helix-sim-'), 'curves.svg');
    // Since #13's ranking the useful memory displaces failing look-alikes within a few prompts, so in
    // this short run no distractor is injected 10 times (the full run's default): count those
    // injected 5 times or more.
    const out = simulate(['--seed', '7', '--families', '4', '--rounds', '9', '--min-injections', '5', '--svg', svg]);
    const { off, honest, dishonest } = out.main.arms;

    // The premise: every distractor looks at least as relevant as the useful memory, which ranks last.
    expect(honest.lookalikes.atLeast).toBe(honest.lookalikes.total);
    expect(honest.lookalikes.usefulRanks).toEqual([8, 8, 8, 8]);
    const lastThird = (arm: ArmResult) => arm.rounds.slice(-3);
    expect(rate(lastThird(honest))).toBeGreaterThanOrEqual(1.5 * rate(lastThird(off)));
    expect(honest.stats.often.count).toBeGreaterThan(0);
    expect(honest.stats.often.below).toBe(honest.stats.often.count);
    expect(honest.stats.often.max).toBeLessThan(0.25);
    expect(honest.stats.useful.rated).toBe(honest.stats.useful.count);
    expect(honest.stats.useful.mean).toBeGreaterThan(0.7);
    // The dishonest agent credits every injected memory; verification alone still ranks the useful
    // ones above the distractors, by less than the honest claim does.
    expect(dishonest.stats.useful.mean).toBeGreaterThan(dishonest.stats.distractors.mean);
    expect(dishonest.stats.useful.mean - dishonest.stats.distractors.mean).toBeLessThan(honest.stats.useful.mean - honest.stats.distractors.mean);
    expect(out.main.claims.every((c) => c.holds)).toBe(true);
    expect(out.ok).toBe(true);

    const plot = readFileSync(svg, 'utf8');
    expect(plot.startsWith('<svg')).toBe(true);
    expect(plot.match(/<polyline /g)).toHaveLength(3);
  });

  it('is reproducible: the same seed gives the same rounds in every arm', () => {
    const args = ['--seed', '3', '--families', '2', '--rounds', '2', '--no-svg'];
    const first = simulate(args);
    const second = simulate(args);
    for (const arm of ['off', 'honest', 'dishonest'] as const) {
      expect(second.main.arms[arm].rounds).toEqual(first.main.arms[arm].rounds);
      expect(second.main.arms[arm].stats).toEqual(first.main.arms[arm].stats);
    }
  });
});
