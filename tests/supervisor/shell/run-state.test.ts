// `.ddx/run-state.json` is merged into, never replaced: other tools' keys survive.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countInRunState, countSupervisoryInjection, readRunState, runStatePath, unfinishedAttempt, writeRunState } from '../../../src/supervisor/shell/run-state.js';

const COUNTERS = { ddx_delegation_success_count: 0, ddx_delegation_failure_count: {}, parallel_run_denied_count: 0, supervisory_injection_count: {} };
import { tempDir } from '../../helpers/cli.js';

describe('run-state', () => {
  it('merges updates into the existing object and keeps foreign keys', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'run-state.json'), JSON.stringify({ ddx_owned: 'keep me', completed_cycles: 7 }));
    writeRunState(dir, { completed_cycles: 1, stop_reason: null });
    writeRunState(dir, { attempted_cycles: 2 });
    expect(readRunState(dir)).toEqual({ ddx_owned: 'keep me', completed_cycles: 1, stop_reason: null, attempted_cycles: 2, ...COUNTERS });
    expect(readFileSync(runStatePath(dir), 'utf8').endsWith('\n')).toBe(true);
  });

  it('reads a missing or malformed file as nothing', () => {
    const dir = tempDir();
    expect(readRunState(dir)).toBeUndefined();
    writeFileSync(join(dir, 'run-state.json'), '[1,2]');
    expect(readRunState(dir)).toBeUndefined();
    writeFileSync(join(dir, 'run-state.json'), '{oops');
    expect(readRunState(dir)).toBeUndefined();
    writeRunState(dir, { total_tokens: 3 });
    expect(readRunState(dir)).toEqual({ total_tokens: 3, ...COUNTERS });
  });

  it('always carries the four migration counters; counting adds to them and keeps other keys (docs/contract/bash-interface.md §12.3)', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'run-state.json'), JSON.stringify({ parallel_run_denied_count: 4, other: 1 }));
    countInRunState(dir, 'parallel_run_denied_count');
    countSupervisoryInjection(dir, ['helix', 'review-finding']);
    countSupervisoryInjection(dir, ['review-finding']);
    countSupervisoryInjection(dir, ['area:ui']);
    countInRunState(dir, 'ddx_delegation_failure_count', 'timeout');
    expect(readRunState(dir)).toEqual({
      other: 1,
      parallel_run_denied_count: 5,
      ddx_delegation_success_count: 0,
      ddx_delegation_failure_count: { timeout: 1 },
      supervisory_injection_count: { 'review-finding': 2 },
    });
  });
});

describe('unfinishedAttempt', () => {
  const died = { current_issue: 'hx-1', stop_reason: null, cycle_end: null, cycle_start: '2026-01-01T00:00:00.000Z', run_pid: 4242 };
  const dead = () => false;
  it('names the attempt a run died in the middle of', () => {
    expect(unfinishedAttempt(died, dead)).toEqual({ id: 'hx-1', since: Date.parse('2026-01-01T00:00:00.000Z'), pid: 4242 });
  });
  it.each([
    ['no run-state', undefined],
    ['no current issue', { ...died, current_issue: null }],
    ['a run that stopped', { ...died, stop_reason: 'error' }],
    ['an attempt that ended', { ...died, cycle_end: '2026-01-01T00:01:00.000Z' }],
    ['no pid recorded (an older helix)', { ...died, run_pid: undefined }],
    ['no start time', { ...died, cycle_start: null }],
  ])('none for %s', (_name, state) => {
    expect(unfinishedAttempt(state as Record<string, unknown> | undefined, dead)).toBeUndefined();
  });
  it('none while the run (or a helix build) is still alive', () => {
    expect(unfinishedAttempt(died, (pid) => pid === 4242)).toBeUndefined();
  });
});
