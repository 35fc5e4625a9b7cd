// The DDx scenario table (scenarios.ts) against the stand-ins of DDx v0.6.1 and current DDx. The
// same table runs against the real binaries in `npm run test:ddx` (tests/ddx-real): a stand-in
// that passes here and a real binary that passes there behave alike where helix can see.
import { describe, it } from 'vitest';
import { SCENARIOS } from './scenarios.js';
import { VERSIONS } from './standin.js';
import { standinTarget } from './targets.js';

describe.each(VERSIONS)('DDx %s stand-in: the scenario table', (version) => {
  const target = standinTarget(version);
  for (const scenario of SCENARIOS.filter((s) => s.versions.includes(version))) {
    if (scenario.realOnly) it.skip(`${scenario.name} (real binary only: ${scenario.realOnly})`, () => undefined);
    else it(scenario.name, () => scenario.run(target), 120_000);
  }
});
