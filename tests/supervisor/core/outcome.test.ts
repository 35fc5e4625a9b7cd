// What an attempt's change and an agent call's spending become for the machine: the review scope
// and size (docs/contract/bash-interface.md §2.8), and the tokens and cost the run adds up.
import { describe, expect, it } from 'vitest';
import type { AgentRunResult } from '../../../src/agents/index.js';
import { UNMEASURED, changeFactsOf, spentOn } from '../../../src/supervisor/core/outcome.js';

describe('changeFactsOf', () => {
  it('scopes the review to the closing commit when it exists here, else to the last commit, naming the missing one', () => {
    expect(changeFactsOf('abc', true, { lines: 12, files: 2 })).toEqual({ scope: 'commit:abc', lines: 12, files: 2 });
    expect(changeFactsOf('abc', false, { lines: 12, files: 2 })).toEqual({ scope: 'last-commit', lines: 12, files: 2, unavailableSha: 'abc' });
    expect(changeFactsOf(undefined, false, { lines: 12, files: 2 })).toEqual({ scope: 'last-commit', lines: 12, files: 2 });
  });

  it('a change git could not measure counts as UNMEASURED: the post-implementation review fails safe', () => {
    expect(changeFactsOf(undefined, false, undefined)).toEqual({ scope: 'last-commit', lines: UNMEASURED, files: UNMEASURED });
  });
});

describe('spentOn', () => {
  const call = (over: Partial<AgentRunResult>): AgentRunResult => ({ exitCode: 0, output: '', stdout: '', stderr: '', answer: '', durationMs: 0, timedOut: false, aborted: false, tokens: 0, ...over });
  it('carries a cost only when the agent reported one', () => {
    expect(spentOn(call({ tokens: 40 }))).toEqual({ tokens: 40 });
    expect(spentOn(call({ tokens: 40, usage: { input: 30, cachedInput: 0, cacheCreation: 0, output: 10, reasoning: 0, costUsd: 0.01 } }))).toEqual({ tokens: 40, costUsd: 0.01 });
  });
});
