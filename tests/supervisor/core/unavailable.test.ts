// A call that failed on setup or infrastructure (core/unavailable.ts): never the bead's attempt.
import { describe, expect, it } from 'vitest';
import type { AgentProblem } from '../../../src/agents/index.js';
import { initialState, step } from '../../../src/supervisor/core/machine.js';
import { MAX_INFRASTRUCTURE_IN_A_ROW } from '../../../src/supervisor/core/unavailable.js';
import { bead } from '../../helpers/bead.js';
import { settings } from './scripted-run.js';

const b = bead({ id: 'hx-0000000a', title: 'Add a greeting file' });
const setup: AgentProblem = { kind: 'setup', what: 'authentication failed', detail: 'Invalid API key · Fix external API key' };
const infra: AgentProblem = { kind: 'infrastructure', what: "DDx's review could not run", detail: 'review_malfunction: reviewer returned no verdict' };

describe('a setup error', () => {
  it('stops the run at once with exit 22 and one line saying what to fix; no attempt, no failure, no park, no sleep', () => {
    const s = step(initialState(), { type: 'unavailable', bead: b, problem: setup, tokens: 10 }, settings());
    expect(s.state).toMatchObject({ stop: { exitCode: 22, reason: 'setup' }, attempted: 0, failures: {}, skipped: [], tokens: 10 });
    expect(s.effects.map((e) => e.type)).toEqual(['record', 'stop']);
    expect(s.effects.at(-1)).toMatchObject({ message: 'helix: stopping: SETUP: authentication failed on hx-0000000a (Invalid API key · Fix external API key); fix it, then run again — nothing was counted against any bead' });
  });

  it('says what to do when the problem names it', () => {
    const s = step(initialState(), { type: 'unavailable', bead: b, problem: { ...setup, fix: 'log the agent CLI in' } }, settings());
    expect(s.effects.at(-1)).toMatchObject({ message: expect.stringContaining('(Invalid API key · Fix external API key); log the agent CLI in, then run again') });
  });

  it('on the check: the stop names the check', () => {
    const s = step(initialState(), { type: 'unavailable', problem: setup }, settings());
    expect(s.effects.at(-1)).toMatchObject({ message: expect.stringContaining('authentication failed on the check') });
  });
});

describe('an infrastructure failure', () => {
  it('waits with the backoff and tries the same call again; not counted against the bead', () => {
    const s = step(initialState(), { type: 'unavailable', bead: b, problem: infra }, settings({ backoffOverride: undefined }));
    expect(s.effects.map((e) => e.type)).toEqual(['say', 'record', 'sleep', 'readQueue']);
    expect(s.effects).toContainEqual({ type: 'sleep', seconds: 5 });
    expect(s.state).toMatchObject({ attempted: 0, failures: {}, infraStreak: 1 });
    const again = { type: 'runAction' as const, action: 'align' as const, purpose: 'drain' as const };
    expect(step(initialState(), { type: 'unavailable', problem: infra, again }, settings()).effects.at(-1)).toEqual(again);
  });

  it(`the ${MAX_INFRASTRUCTURE_IN_A_ROW}rd in a row stops the run as a setup error — never an endless loop`, () => {
    let state = initialState();
    for (let i = 1; i < MAX_INFRASTRUCTURE_IN_A_ROW; i++) state = step(state, { type: 'unavailable', bead: b, problem: infra }, settings()).state;
    expect(state.stop).toBeUndefined();
    const last = step(state, { type: 'unavailable', bead: b, problem: infra }, settings());
    expect(last.state.stop).toEqual({ exitCode: 22, reason: 'setup' });
  });

  it('a call that gets through ends the streak', () => {
    const once = step(initialState(), { type: 'unavailable', bead: b, problem: infra }, settings()).state;
    const through = step(once, { type: 'checked', nextAction: 'BUILD', ok: true }, settings()).state;
    expect(through.infraStreak).toBe(0);
  });
});
