import { describe, expect, it } from 'vitest';
import { ddxRunInvocation, executeBeadInvocation, tryInvocation } from '../../src/agents/index.js';

const root = '/repo/root';

describe('ddx invocation builders (docs/contract/cli.md §8)', () => {
  it('execute-bead: id, --effort defaults to medium, --json, selected issue in the environment', () => {
    expect(executeBeadInvocation({ root, beadId: 'hx-1a2b3c4d' })).toEqual({
      file: 'ddx',
      args: ['agent', 'execute-bead', 'hx-1a2b3c4d', '--effort', 'medium', '--json'],
      cwd: root,
      env: { HELIX_SELECTED_ISSUE: 'hx-1a2b3c4d' },
    });
  });

  it('execute-bead: harness, model, effort and prompt file in the contract order', () => {
    const cmd = executeBeadInvocation({ root, beadId: 'hx-1', harness: 'claude', model: 'opus', effort: 'high', promptFile: '/tmp/p.md' });
    expect(cmd.args).toEqual([
      'agent', 'execute-bead', 'hx-1', '--harness', 'claude', '--model', 'opus', '--effort', 'high', '--json', '--prompt', '/tmp/p.md',
    ]);
  });

  it('ddx try (current DDx) carries the bead, the routing flags it has (no --json, no --prompt), power bounds that stop DDx after one attempt, and HELIX_AGENT_TIMEOUT as its wall clock', () => {
    expect(tryInvocation({ root, beadId: 'hx-2', wallClockSeconds: 2700 })).toEqual({ file: 'ddx', args: ['try', 'hx-2', '--min-power', '11', '--max-power', '12', '--attempt-wall-clock', '2700s'], cwd: root, env: { HELIX_SELECTED_ISSUE: 'hx-2' } });
    expect(tryInvocation({ root, beadId: 'hx-2', harness: 'codex', model: 'm', effort: 'low', wallClockSeconds: 60 }).args).toEqual(['try', 'hx-2', '--harness', 'codex', '--model', 'm', '--effort', 'low', '--min-power', '11', '--max-power', '12', '--attempt-wall-clock', '60s']);
    // no timeout → DDx's 0 (disabled); a branch DDx would refuse, when the user allows it
    expect(tryInvocation({ root, beadId: 'hx-2', wallClockSeconds: Number.POSITIVE_INFINITY, allowNonDefaultBranch: true }).args).toEqual(['try', 'hx-2', '--min-power', '11', '--max-power', '12', '--attempt-wall-clock', '0', '--allow-non-default-branch']);
  });

  it.each([
    ['agent', ['agent', 'run']],
    ['current', ['run']],
  ] as const)('ddx run on the %s surface: unrestricted permissions, timeout in seconds, the prompt on stdin (never argv)', (surface, head) => {
    const big = 'x'.repeat(200 * 1024); // above Linux's 128 KiB single-argument limit
    const cmd = ddxRunInvocation(surface, { root, harness: 'codex', prompt: big, timeoutSeconds: 2700 });
    expect(cmd.args).toEqual([...head, '--harness', 'codex', '--permissions', 'unrestricted', '--timeout', '2700s']);
    expect(cmd.input).toBe(big);
    expect(ddxRunInvocation(surface, { root, harness: 'claude', prompt: 'p', timeoutSeconds: 60, model: 'sonnet', effort: 'max' }).args).toEqual([
      ...head, '--harness', 'claude', '--permissions', 'unrestricted', '--timeout', '60s', '--model', 'sonnet', '--effort', 'max',
    ]);
  });

  it.each(['agent', 'current'] as const)('%s: ddx run with no timeout (HELIX_AGENT_TIMEOUT over 24.8 days) asks DDx for its longest', (surface) => {
    expect(ddxRunInvocation(surface, { root, harness: 'codex', prompt: 'p', timeoutSeconds: Number.POSITIVE_INFINITY }).args).toContain('2562047h');
  });
});
