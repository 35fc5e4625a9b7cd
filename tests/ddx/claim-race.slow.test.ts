// The cross-tool claim race (scripts/ddx-claim-race.mjs): helix's tracker claims against the DDx
// stand-ins' own worker loops on one bead file. `npm run race:ddx` runs 50 rounds per version; the
// suite runs a few, enough to fail when helix ignores DDx's claims or DDx can take helix's (helix
// before this change: 25 of 105 beads worked twice in 10 rounds, on both versions).
import { describe, expect, it } from 'vitest';
import { race } from '../../scripts/ddx-claim-race.mjs';
import { VERSIONS } from './standin.js';

describe.each(VERSIONS)('claim race with DDx %s', (version) => {
  it('helix and DDx drain one file together: every bead worked once, by one of them', async () => {
    const rounds = 2;
    const t = await race({ version, rounds, beads: 8 });
    expect(t.doubles).toBe(0);
    expect(t.worked).toBe(rounds * 8);
    // both sides really took part (a race one side sat out proves nothing)
    expect(t.byHelix).toBeGreaterThan(0);
    expect(t.byDdx).toBeGreaterThan(0);
  }, 120_000);
});
