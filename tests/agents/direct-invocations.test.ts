import { describe, expect, it } from 'vitest';
import { claudeInvocation, codexInvocation, directAgentInvocation } from '../../src/agents/index.js';

const root = '/repo/root';

describe('direct agent invocation builders (docs/contract/cli.md §8)', () => {
  it('codex: bypass flag before exec, -C root, model, model_reasoning_effort, --ephemeral --json, prompt on stdin (`-`)', () => {
    expect(codexInvocation({ root, prompt: 'the prompt' })).toEqual({
      file: 'codex',
      args: ['--dangerously-bypass-approvals-and-sandbox', 'exec', '-C', root, '--ephemeral', '--json', '-'],
      cwd: root,
      env: {},
      input: 'the prompt',
      format: 'codex-json',
    });
    expect(codexInvocation({ root, prompt: 'p', model: 'gpt-5', effort: 'xhigh' }).args).toEqual([
      '--dangerously-bypass-approvals-and-sandbox', 'exec', '-C', root, '-m', 'gpt-5', '-c', 'model_reasoning_effort=xhigh', '--ephemeral', '--json', '-',
    ]);
  });

  it('claude: -p with bypassed permissions, stream-json (with --verbose), model and --effort, prompt on stdin, cwd = root', () => {
    expect(claudeInvocation({ root, prompt: 'the prompt' })).toEqual({
      file: 'claude',
      args: ['-p', '--permission-mode', 'bypassPermissions', '--dangerously-skip-permissions', '--no-session-persistence', '--output-format', 'stream-json', '--verbose'],
      cwd: root,
      env: {},
      input: 'the prompt',
      showCwd: true,
      format: 'claude-stream-json',
    });
    expect(claudeInvocation({ root, prompt: 'p', model: 'opus', effort: 'max' }).args.slice(-4)).toEqual(['--model', 'opus', '--effort', 'max']);
  });

  it('directAgentInvocation picks the builder by agent name', () => {
    expect(directAgentInvocation('codex', { root, prompt: 'p' }).file).toBe('codex');
    expect(directAgentInvocation('claude', { root, prompt: 'p' }).input).toBe('p');
  });
});
