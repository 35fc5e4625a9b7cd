import { describe, expect, it } from 'vitest';
import {
  claudeCommand,
  codexCommand,
  ddxRunCommand,
  directAgentCommand,
  executeBeadCommand,
  tryCommand,
} from '../../src/agents/index.js';

const root = '/repo/root';

describe('ddx command builders (contract §8)', () => {
  it('execute-bead: id, --effort defaults to medium, --json, selected issue in the environment', () => {
    expect(executeBeadCommand({ root, beadId: 'hx-1a2b3c4d' })).toEqual({
      file: 'ddx',
      args: ['agent', 'execute-bead', 'hx-1a2b3c4d', '--effort', 'medium', '--json'],
      cwd: root,
      env: { HELIX_SELECTED_ISSUE: 'hx-1a2b3c4d' },
    });
  });

  it('execute-bead: harness, model, effort and prompt file in the contract order', () => {
    const cmd = executeBeadCommand({ root, beadId: 'hx-1', harness: 'claude', model: 'opus', effort: 'high', promptFile: '/tmp/p.md' });
    expect(cmd.args).toEqual([
      'agent', 'execute-bead', 'hx-1', '--harness', 'claude', '--model', 'opus', '--effort', 'high', '--json', '--prompt', '/tmp/p.md',
    ]);
  });

  it('ddx try (current DDx) carries the bead and the routing flags it has (no --json, no --prompt)', () => {
    expect(tryCommand({ root, beadId: 'hx-2' })).toEqual({ file: 'ddx', args: ['try', 'hx-2'], cwd: root, env: { HELIX_SELECTED_ISSUE: 'hx-2' } });
    expect(tryCommand({ root, beadId: 'hx-2', harness: 'codex', model: 'm', effort: 'low' }).args).toEqual(['try', 'hx-2', '--harness', 'codex', '--model', 'm', '--effort', 'low']);
  });

  it.each([
    ['agent', ['agent', 'run']],
    ['current', ['run']],
  ] as const)('ddx run on the %s surface: unrestricted permissions, timeout in seconds, the prompt on stdin (never argv)', (surface, head) => {
    const big = 'x'.repeat(200 * 1024); // above Linux's 128 KiB single-argument limit
    const cmd = ddxRunCommand(surface, { root, harness: 'codex', prompt: big, timeoutSeconds: 2700 });
    expect(cmd.args).toEqual([...head, '--harness', 'codex', '--permissions', 'unrestricted', '--timeout', '2700s']);
    expect(cmd.input).toBe(big);
    expect(ddxRunCommand(surface, { root, harness: 'claude', prompt: 'p', timeoutSeconds: 60, model: 'sonnet', effort: 'max' }).args).toEqual([
      ...head, '--harness', 'claude', '--permissions', 'unrestricted', '--timeout', '60s', '--model', 'sonnet', '--effort', 'max',
    ]);
  });
});

describe('direct agent command builders (contract §8)', () => {
  it('codex: bypass flag before exec, -C root, model and effort, --ephemeral then the prompt', () => {
    expect(codexCommand({ root, prompt: 'the prompt' })).toEqual({
      file: 'codex',
      args: ['--dangerously-bypass-approvals-and-sandbox', 'exec', '-C', root, '--ephemeral', 'the prompt'],
      cwd: root,
      env: {},
    });
    expect(codexCommand({ root, prompt: 'p', model: 'gpt-5', effort: 'high' }).args).toEqual([
      '--dangerously-bypass-approvals-and-sandbox', 'exec', '-C', root, '-m', 'gpt-5', '-c', 'reasoning.effort=high', '--ephemeral', 'p',
    ]);
  });

  it('claude: -p with bypassed permissions, prompt on stdin, cwd = root, never an effort flag', () => {
    expect(claudeCommand({ root, prompt: 'the prompt', effort: 'high' })).toEqual({
      file: 'claude',
      args: ['-p', '--permission-mode', 'bypassPermissions', '--dangerously-skip-permissions', '--no-session-persistence'],
      cwd: root,
      env: {},
      input: 'the prompt',
      showCwd: true,
    });
    expect(claudeCommand({ root, prompt: 'p', model: 'opus' }).args.slice(-2)).toEqual(['--model', 'opus']);
  });

  it('directAgentCommand picks the builder by agent name', () => {
    expect(directAgentCommand('codex', { root, prompt: 'p' }).file).toBe('codex');
    expect(directAgentCommand('claude', { root, prompt: 'p' }).input).toBe('p');
  });
});
