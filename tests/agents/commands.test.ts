import { describe, expect, it } from 'vitest';
import {
  claudeCommand,
  codexCommand,
  ddxAgentRunCommand,
  directAgentCommand,
  executeBeadCommand,
  executeLoopCommand,
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

  it('execute-loop --once carries the selected issue and optional flags', () => {
    expect(executeLoopCommand({ root, beadId: 'hx-2' })).toEqual({
      file: 'ddx', args: ['agent', 'execute-loop', '--once'], cwd: root, env: { HELIX_SELECTED_ISSUE: 'hx-2' },
    });
    expect(executeLoopCommand({ root, beadId: 'hx-2', harness: 'codex', model: 'm', effort: 'low' }).args).toEqual([
      'agent', 'execute-loop', '--once', '--harness', 'codex', '--model', 'm', '--effort', 'low',
    ]);
  });

  it('ddx agent run: unrestricted permissions, timeout in seconds, prompt last after --text', () => {
    expect(ddxAgentRunCommand({ root, harness: 'codex', prompt: 'do the check action', timeoutSeconds: 2700 }).args).toEqual([
      'agent', 'run', '--harness', 'codex', '--permissions', 'unrestricted', '--timeout', '2700s', '--text', 'do the check action',
    ]);
    expect(ddxAgentRunCommand({ root, harness: 'claude', prompt: 'p', timeoutSeconds: 60, model: 'sonnet', effort: 'max' }).args).toEqual([
      'agent', 'run', '--harness', 'claude', '--permissions', 'unrestricted', '--timeout', '60s', '--model', 'sonnet', '--effort', 'max', '--text', 'p',
    ]);
  });
});

describe('direct agent command builders (contract §8)', () => {
  it('codex: bypass flag before exec, -C root, model, model_reasoning_effort, --ephemeral --json, prompt on stdin (`-`)', () => {
    expect(codexCommand({ root, prompt: 'the prompt' })).toEqual({
      file: 'codex',
      args: ['--dangerously-bypass-approvals-and-sandbox', 'exec', '-C', root, '--ephemeral', '--json', '-'],
      cwd: root,
      env: {},
      input: 'the prompt',
      format: 'codex-json',
    });
    expect(codexCommand({ root, prompt: 'p', model: 'gpt-5', effort: 'xhigh' }).args).toEqual([
      '--dangerously-bypass-approvals-and-sandbox', 'exec', '-C', root, '-m', 'gpt-5', '-c', 'model_reasoning_effort=xhigh', '--ephemeral', '--json', '-',
    ]);
  });

  it('claude: -p with bypassed permissions, stream-json (with --verbose), model and --effort, prompt on stdin, cwd = root', () => {
    expect(claudeCommand({ root, prompt: 'the prompt' })).toEqual({
      file: 'claude',
      args: ['-p', '--permission-mode', 'bypassPermissions', '--dangerously-skip-permissions', '--no-session-persistence', '--output-format', 'stream-json', '--verbose'],
      cwd: root,
      env: {},
      input: 'the prompt',
      showCwd: true,
      format: 'claude-stream-json',
    });
    expect(claudeCommand({ root, prompt: 'p', model: 'opus', effort: 'max' }).args.slice(-4)).toEqual(['--model', 'opus', '--effort', 'max']);
  });

  it('directAgentCommand picks the builder by agent name', () => {
    expect(directAgentCommand('codex', { root, prompt: 'p' }).file).toBe('codex');
    expect(directAgentCommand('claude', { root, prompt: 'p' }).input).toBe('p');
  });
});
