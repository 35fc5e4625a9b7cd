// The long claim race (npm run test:slow): 50 rounds of 16 processes on one bead; npm test runs a
// 3-round one (tests/tracker/concurrency.test.ts).
import { describe, it } from 'vitest';
import { claimRace } from './process-race.js';

describe('concurrency, long', () => {
  it('16 processes race to claim one bead, 50 rounds: exactly one winner each round', async () => {
    await claimRace(50);
  }, 600_000);
});
