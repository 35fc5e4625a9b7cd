import { describe, expect, it } from 'vitest';
import { agentTimeoutSeconds } from '../../src/agents/index.js';

describe('HELIX_AGENT_TIMEOUT', () => {
  it('defaults to 2700 seconds', () => {
    expect(agentTimeoutSeconds({})).toBe(2700);
    expect(agentTimeoutSeconds({ HELIX_AGENT_TIMEOUT: '' })).toBe(2700);
  });

  it('reads whole seconds, with or without a trailing s', () => {
    expect(agentTimeoutSeconds({ HELIX_AGENT_TIMEOUT: '90' })).toBe(90);
    expect(agentTimeoutSeconds({ HELIX_AGENT_TIMEOUT: '90s' })).toBe(90);
  });

  it('rejects a value that is not a positive number of seconds (exit 7)', () => {
    for (const bad of ['0', '-5', '1.5', 'forever', '10m', '1e9']) {
      expect(() => agentTimeoutSeconds({ HELIX_AGENT_TIMEOUT: bad })).toThrow(/^helix: HELIX_AGENT_TIMEOUT must be a whole number of at least 1, got /);
    }
  });

  it('takes a value longer than a timer can hold (24.8 days) as no timeout, instead of firing at once', () => {
    expect(agentTimeoutSeconds({ HELIX_AGENT_TIMEOUT: '2147483' })).toBe(2147483);
    expect(agentTimeoutSeconds({ HELIX_AGENT_TIMEOUT: '2147484' })).toBe(Number.POSITIVE_INFINITY);
    expect(agentTimeoutSeconds({ HELIX_AGENT_TIMEOUT: '99999999999999999999s' })).toBe(Number.POSITIVE_INFINITY);
  });
});
