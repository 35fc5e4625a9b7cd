// Board or plain lines (core/progress-mode.ts, docs/contract/cli.md §3 --progress).
import { describe, expect, it } from 'vitest';
import { inCi, liveBoardWanted } from '../../../src/supervisor/core/progress-mode.js';

describe('the live board is wanted', () => {
  it.each([
    ['a terminal, nothing set', 'auto', true, {}, true],
    ['--progress plain', 'plain', true, {}, false],
    ['stderr piped or redirected', 'auto', false, {}, false],
    ['CI=true', 'auto', true, { CI: 'true' }, false],
    ['CI=1', 'auto', true, { CI: '1' }, false],
    ['CI=false is not CI', 'auto', true, { CI: 'false' }, true],
    ['CONTINUOUS_INTEGRATION=yes', 'auto', true, { CONTINUOUS_INTEGRATION: 'yes' }, false],
    ['a CI_ variable (GitLab)', 'auto', true, { CI_JOB_ID: '12' }, false],
    ['NO_COLOR=1', 'auto', true, { NO_COLOR: '1' }, false],
    ['NO_COLOR empty is unset (no-color.org)', 'auto', true, { NO_COLOR: '' }, true],
    ['TERM=dumb', 'auto', true, { TERM: 'dumb' }, false],
  ] as const)('%s → %s', (_name, flag, tty, env, wanted) => {
    expect(liveBoardWanted(flag, tty, env)).toBe(wanted);
  });

  it('reads CI from the variables CI services set', () => {
    expect(inCi({ GITHUB_ACTIONS: 'true', CI: 'true' })).toBe(true);
    expect(inCi({ PATH: '/bin' })).toBe(false);
  });
});
