// The learning simulation (scripts/sim-learning.mjs) through the real `helix run`, small enough for
// the suite: 3 seeds, 3 families, 8 rounds. It judges the same claims as `npm run sim:learning`
// (6 seeds, 6 families, 12 rounds; numbers in docs/learning.md) and can fail the same ways, and it
// shows one claim failing when its mechanism is switched off.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, cleanEnv } from '../helpers/cli.js';

const SCRIPT = join(REPO_ROOT, 'scripts', 'sim-learning.mjs');
const SMALL = ['--seed-list', '1,2,3', '--families', '3', '--rounds', '8', '--change-at', '5', '--change-share', '0.34', '--no-svg'];

interface Claim {
  key: string;
  mechanism: string;
  holds: boolean;
  value: string;
}
interface Metrics {
  success: number;
  misleadingEffectiveness: number;
  staleCount: number;
  staleFollowedAtChange: number;
  staleFollowedLate: number;
}
interface SimOutput {
  ok: boolean;
  claims: Claim[];
  seeds: Array<{ seed: number; arms: Record<string, Metrics>; rounds: Record<string, Array<{ attempted: number; completed: number }>> }>;
}

function simulate(args: string[]): { status: number | null; out: SimOutput } {
  const run = spawnSync(process.execPath, [SCRIPT, '--json', ...args], { env: cleanEnv(), encoding: 'utf8' });
  if (run.status !== 0 && run.status !== 1) throw new Error(`sim-learning exited ${run.status}: ${run.stderr}`);
  return { status: run.status, out: JSON.parse(run.stdout) as SimOutput };
}

const claim = (out: SimOutput, key: string) => out.claims.find((c) => c.key === key)!;

describe('the learning simulation', () => {
  it('memory beats memory off, misleading notes sink, and stale facts stop being followed (3 seeds)', () => {
    const { status, out } = simulate([...SMALL, '--arms', 'off,honest']);
    for (const s of out.seeds) {
      // Every seed: the honest agent was misled at first and the store learned it.
      expect(s.arms.honest!.misleadingEffectiveness).toBeLessThan(0.25);
      expect(s.arms.honest!.staleCount).toBeGreaterThan(0);
      expect(s.arms.honest!.staleFollowedAtChange).toBeGreaterThan(0.5);
    }
    expect(claim(out, 'gain')).toMatchObject({ holds: true });
    expect(claim(out, 'stale')).toMatchObject({ holds: true });
    expect(status).toBe(out.ok ? 0 : 1);
  });

  it('with decay switched off (failed never grows) stale facts keep being followed and the stale claim fails', () => {
    const { status, out } = simulate([...SMALL, '--arms', 'honest', '--ablate', 'decay']);
    expect(claim(out, 'stale')).toMatchObject({ holds: false });
    for (const s of out.seeds) expect(s.arms.honest!.staleFollowedLate).toBeGreaterThan(0.5);
    // The exit status says the ablated mechanism's claim failed, as it should.
    expect(status).toBe(0);
  });

  it('replays exactly: the same seed gives the same rounds and the same memory counts', () => {
    const args = ['--seed-list', '5', '--families', '2', '--rounds', '3', '--change-at', '2', '--arms', 'honest', '--no-svg'];
    const first = simulate(args).out.seeds[0]!;
    const second = simulate(args).out.seeds[0]!;
    expect(second.rounds).toEqual(first.rounds);
    expect(second.arms).toEqual(first.arms);
  });
});
