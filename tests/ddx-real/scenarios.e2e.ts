// The DDx scenario table (tests/ddx/scenarios.ts) against each real `ddx` binary in HELIX_TEST_DDX,
// whose version helix detects itself. DDx runs tests/ddx/agent/claude, a stand-in agent (never a
// model). The same table runs against the stand-ins in `npm test`.
import { describe, it } from 'vitest';
import { SCENARIOS } from '../ddx/scenarios.js';
import { realBinaries, realTarget } from '../ddx/targets.js';

const binaries = realBinaries();
const targets = await Promise.all(binaries.map((binary) => realTarget(binary)));

describe.each(targets.map((t) => [t.label, t] as const))('%s: the scenario table', (_label, target) => {
  for (const scenario of SCENARIOS.filter((s) => s.versions.includes(target.version))) {
    if (scenario.standinOnly) it.skip(`${scenario.name} (stand-in only: ${scenario.standinOnly})`, () => undefined);
    else it(scenario.name, () => scenario.run(target));
  }
});
