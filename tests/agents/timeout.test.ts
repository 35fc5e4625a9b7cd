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

  it('rejects a value that is not a positive number of seconds', () => {
    for (const bad of ['0', '-5', '1.5', 'forever', '10m']) {
      expect(() => agentTimeoutSeconds({ HELIX_AGENT_TIMEOUT: bad })).toThrow(/HELIX_AGENT_TIMEOUT must be a positive number of seconds/);
    }
  });
});
