import { describe, expect, it } from 'vitest';
import { isInvalidExecuteBeadResult, parseExecuteBeadResult, parseTryResult } from '../../src/agents/index.js';

const full = {
  bead_id: 'hx-1a2b3c4d',
  base_rev: 'abc123',
  result_rev: 'def456',
  outcome: 'merged',
  status: 'success',
  detail: 'landed',
  preserve_ref: null,
  session_id: 'sess-1',
  duration_ms: 1234,
  tokens: 999,
  cost_usd: 0.12,
  exit_code: 0,
};

describe('parseExecuteBeadResult (docs/contract/cli.md §8)', () => {
  it('ignores advisory lines before the JSON and keeps every contract field', () => {
    const output = `warning: ddx update available\n[ddx] preparing worktree\n${JSON.stringify(full, null, 2)}\n`;
    expect(parseExecuteBeadResult(output)).toEqual({
      bead_id: 'hx-1a2b3c4d', base_rev: 'abc123', result_rev: 'def456', outcome: 'merged', status: 'success',
      detail: 'landed', session_id: 'sess-1', duration_ms: 1234, tokens: 999, cost_usd: 0.12, exit_code: 0,
    });
  });

  it('drops unknown fields', () => {
    const result = parseExecuteBeadResult(JSON.stringify({ ...full, harness: 'codex', attempt_id: 'x' }));
    expect(result).not.toHaveProperty('harness');
    expect(result).not.toHaveProperty('attempt_id');
    expect(result).toHaveProperty('status', 'success');
  });

  it('is undefined when the output has no JSON at all', () => {
    expect(parseExecuteBeadResult('did some work\n[warn] no json mode here\n')).toBeUndefined();
    expect(parseExecuteBeadResult('')).toBeUndefined();
    expect(parseExecuteBeadResult('[1/3] preparing worktree\n[2] running agent\n')).toBeUndefined();
  });

  it('reports garbage JSON as an invalid result, not a crash', () => {
    const result = parseExecuteBeadResult('advisory\n{"bead_id": "hx-1", "status": \n');
    expect(isInvalidExecuteBeadResult(result)).toBe(true);
    expect(result).toMatchObject({ invalid: true, reason: expect.stringContaining('unparseable JSON') });
  });

  it.each([
    [{ ...full, status: 42 }, 'no status'],
    [{ ...full, outcome: '' }, 'no outcome'],
    [{ ...full, bead_id: undefined }, 'no bead_id'],
    [{ ...full, tokens: 'many' }, 'tokens is not a number'],
    [{ ...full, result_rev: 42 }, 'result_rev is not a string'],
  ])('reports a result with a bad field as invalid (%#: %s)', (value, reason) => {
    const result = parseExecuteBeadResult(JSON.stringify(value));
    expect(isInvalidExecuteBeadResult(result)).toBe(true);
    expect(result).toMatchObject({ reason: expect.stringContaining(reason) });
  });

  it('keeps a status or outcome helix does not know, as DDx wrote it (judged later, reported by name)', () => {
    expect(parseExecuteBeadResult(JSON.stringify({ ...full, status: 'push_conflict', outcome: 'landed-later' }))).toMatchObject({ status: 'push_conflict', outcome: 'landed-later' });
  });

  it('reads the result block of `ddx try` (current DDx has no --json): the last block for the bead', () => {
    const out = 'claim hx-1a2b3c4d\nrunning…\n\nbead: hx-1a2b3c4d\nstatus: preserved_needs_review\ndetail: large deletion\nresult_rev: abc\npreserve_ref: refs/ddx/iterations/hx-1a2b3c4d/1\nrouting intent: difficulty=x\n';
    expect(parseTryResult(out, 'hx-1a2b3c4d')).toEqual({
      bead_id: 'hx-1a2b3c4d', status: 'preserved_needs_review', detail: 'large deletion', result_rev: 'abc', preserve_ref: 'refs/ddx/iterations/hx-1a2b3c4d/1',
    });
    expect(parseTryResult(out, 'hx-other')).toBeUndefined();
    expect(parseTryResult('bead not found: hx-1\n')).toBeUndefined();
  });

  it('finds the result after a progress line that only looks like JSON', () => {
    expect(parseExecuteBeadResult(`[1/2] running\n${JSON.stringify(full)}\n`)).toMatchObject({ status: 'success' });
  });

  it('reports a JSON value that is not an object as invalid', () => {
    expect(isInvalidExecuteBeadResult(parseExecuteBeadResult('[1, 2]'))).toBe(true);
  });

  it('picks the result for the expected bead from a JSON array', () => {
    const other = { ...full, bead_id: 'hx-other', status: 'execution_failed', outcome: 'error' };
    const result = parseExecuteBeadResult(JSON.stringify([full, other]), 'hx-1a2b3c4d');
    expect(result).toMatchObject({ bead_id: 'hx-1a2b3c4d', status: 'success' });
  });

  it('ignores text after the JSON document', () => {
    expect(parseExecuteBeadResult(`${JSON.stringify(full)}\ntrailing log line {not json}\n`)).toMatchObject({ status: 'success' });
  });

  it('every status of the contract parses', () => {
    for (const status of ['success', 'no_changes', 'execution_failed', 'land_conflict', 'post_run_check_failed', 'structural_validation_failed']) {
      expect(parseExecuteBeadResult(JSON.stringify({ ...full, status }))).toMatchObject({ status });
    }
  });
});

// What ae663ca012 `ddx try` printed on stdout for a landed bead on a feature branch.
const LANDED = `
▶ hx-00000001: first bead
✓ hx-00000001 → merged (f1ee2a3d)

bead: hx-00000001
status: success
detail: success
result_rev: f1ee2a3df79e378f88b9ce4883fff7609f02fbda
landed_branch: feature
project_root: /tmp/p
landing_scope: branch-local
preserve_ref: refs/ddx/iterations/hx-00000001/x
routing intent: difficulty=medium minPower=7 source=readiness
`;

describe('the ddx try result', () => {
  it('reads every key of the block, past the ones helix does not know (landed_branch, project_root come before preserve_ref)', () => {
    expect(parseTryResult(LANDED, 'hx-00000001')).toEqual({ bead_id: 'hx-00000001', status: 'success', detail: 'success', result_rev: 'f1ee2a3df79e378f88b9ce4883fff7609f02fbda', preserve_ref: 'refs/ddx/iterations/hx-00000001/x' });
  });
});
