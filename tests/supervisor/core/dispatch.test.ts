// Dispatch as pure data: the command line for a build or an action comes from plain inputs (the
// agent plan, the build path, the DDx surface, the repository), with no supervisor and no files.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolveAgentPlan } from '../../../src/agents/index.js';
import { type DispatchSetup, actionInvocation, buildInvocation, ownershipOf, promptFileFor, rotationLine } from '../../../src/supervisor/core/dispatch.js';

const root = '/repo';
const plan = (agent = 'codex', alternate?: string) => resolveAgentPlan({ env: alternate ? { HELIX_ALT_AGENT: alternate } : {}, explicitAgent: agent, isOnPath: (p) => p === agent || p === alternate });
const setup = (over: Partial<DispatchSetup> = {}): DispatchSetup => ({ root, env: {}, plan: plan(), buildPath: 'direct', actionsViaDdx: false, ...over });

describe('buildInvocation', () => {
  it('execute-bead names the prompt file helix writes, without writing it', () => {
    const invocation = buildInvocation(setup({ buildPath: 'execute-bead' }), 'hx-1', 'the prompt');
    expect(invocation.file).toBe('ddx');
    expect(invocation.args.slice(0, 3)).toEqual(['agent', 'execute-bead', 'hx-1']);
    expect(invocation.args.at(-1)).toBe('/repo/.helix/prompts/hx-1.md');
    expect(existsSync('/repo/.helix/prompts/hx-1.md')).toBe(false);
  });

  it('a bead id from the tracker names a file under .helix/prompts, never a path', () => {
    expect(promptFileFor(root, '../../etc/passwd')).toBe('/repo/.helix/prompts/.._.._etc_passwd.md');
  });

  it('ddx try gets the bead id, the harness and HELIX_AGENT_TIMEOUT as DDx\'s wall clock; DDx claims and closes', () => {
    expect(buildInvocation(setup({ buildPath: 'try' }), 'hx-1', 'unused')).toMatchObject({ file: 'ddx', args: ['try', 'hx-1', '--harness', 'codex', '--effort', 'medium', '--min-power', '11', '--max-power', '12', '--attempt-wall-clock', '2700s'] });
    expect(ownershipOf('try')).toBe('ddx-owns');
    expect(ownershipOf('execute-bead')).toBe('helix-closes');
    expect(ownershipOf('direct')).toBe('agent-closes');
  });

  it('direct prompting calls the agent itself; an agent that exists only as a ddx harness is refused', () => {
    expect(buildInvocation(setup(), 'hx-1', 'p').file).toBe('codex');
    expect(() => buildInvocation(setup({ plan: plan('gemini') }), 'hx-1', 'p')).toThrow('helix: agent gemini can only run through ddx, which is not installed');
  });
});

describe('actionInvocation', () => {
  it('runs through the DDx surface found: `ddx agent run` on v0.6.x, `ddx run` on current DDx', () => {
    const v06 = actionInvocation(setup({ actionsViaDdx: true, ddx: { surface: 'agent' } }), 'check', 'p');
    expect(v06.invocation.args.slice(0, 2)).toEqual(['agent', 'run']);
    const current = actionInvocation(setup({ actionsViaDdx: true, ddx: { surface: 'current' } }), 'check', 'p');
    expect(current.invocation.args[0]).toBe('run');
    expect(current.call).toMatchObject({ label: 'codex', requested: 'codex', purpose: 'action', prompt: 'p' });
  });

  it('without DDx the action calls the agent directly', () => {
    expect(actionInvocation(setup(), 'align', 'p').invocation.file).toBe('codex');
  });
});

describe('rotationLine', () => {
  it('names the alternate agent when an action rotates to it, and nothing when it does not', () => {
    expect(rotationLine(plan('codex', 'claude'), 'polish')).toMatchObject({ text: 'helix: adversarial polish: switching to claude' });
    expect(rotationLine(plan('codex'), 'polish')).toBeUndefined();
  });
});
