import { describe, expect, it } from 'vitest';
import { extractTokens } from '../../src/agents/index.js';

describe('extractTokens (docs/contract/cli.md §8)', () => {
  it('reads the number on the line after "tokens used", commas allowed', () => {
    expect(extractTokens('working…\ntokens used\n12,345\n')).toBe(12345);
  });

  it('takes the last footer when there are several', () => {
    expect(extractTokens('tokens used\n10\nmore\ntokens used\n2,000\n')).toBe(2000);
  });

  it('accepts the count on the same line', () => {
    expect(extractTokens('[ts] tokens used: 1,024')).toBe(1024);
  });

  it('is 0 when there is no footer or no number after it', () => {
    expect(extractTokens('done\n')).toBe(0);
    expect(extractTokens('tokens used\nnot a number\n')).toBe(0);
  });

  it("falls back to execute-bead's JSON tokens", () => {
    expect(extractTokens('note: advisory\n{"bead_id":"hx-1","outcome":"merged","status":"success","tokens":777}\n')).toBe(777);
  });
});
