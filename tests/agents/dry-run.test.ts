import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeInvocation, codexInvocation, executeBeadInvocation, formatDryRun, shellQuote } from '../../src/agents/index.js';
import { tempDir } from '../helpers/cli.js';

const hostile = "fix `rm -rf /` and $(touch pwned) for O'Brien\nsecond line";

/** Runs a dry-run line in real bash with a recording program on PATH; returns what it received. */
function runDryRunLine(line: string, program: string, cwd: string) {
  const bin = tempDir('helix-dry-bin-');
  const recorder = join(bin, program);
  writeFileSync(
    recorder,
    `#!/usr/bin/env node\nconst fs=require('fs');let input='';try{input=fs.readFileSync(0,'utf8')}catch{}\n` +
      `process.stdout.write(JSON.stringify({argv:process.argv.slice(2),cwd:process.cwd(),input,selected:process.env.HELIX_SELECTED_ISSUE??null}))\n`,
  );
  chmodSync(recorder, 0o755);
  const r = spawnSync('bash', ['-c', line], { cwd, encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as { argv: string[]; cwd: string; input: string; selected: string | null };
}

describe('formatDryRun', () => {
  it('prints execute-bead with its environment variable, on one line', () => {
    const line = formatDryRun(executeBeadInvocation({ root: '/r', beadId: 'hx-1', harness: 'codex' }));
    expect(line).toBe('HELIX_SELECTED_ISSUE=hx-1 ddx agent execute-bead hx-1 --harness codex --effort medium --json');
  });

  it('prints claude as "cd <root> && claude -p …" with the prompt as a here-string', () => {
    const line = formatDryRun(claudeInvocation({ root: '/my repo', prompt: 'hello world' }));
    expect(line).toBe(
      "cd '/my repo' && claude -p --permission-mode bypassPermissions --dangerously-skip-permissions --no-session-persistence --output-format stream-json --verbose <<< 'hello world'",
    );
  });

  it('quotes hostile prompts into a single line', () => {
    const line = formatDryRun(codexInvocation({ root: '/r', prompt: hostile }));
    expect(line.split('\n')).toHaveLength(1);
    expect(line.startsWith('codex --dangerously-bypass-approvals-and-sandbox exec -C /r --ephemeral --json - <<< ')).toBe(true);
  });

  it('a pasted codex dry-run line passes the hostile prompt verbatim on stdin and executes nothing', () => {
    const cwd = tempDir();
    const cmd = codexInvocation({ root: cwd, prompt: hostile });
    const seen = runDryRunLine(formatDryRun(cmd), 'codex', cwd);
    expect(seen.argv).toEqual(cmd.args);
    expect(seen.input).toBe(`${hostile}\n`); // a here-string adds one newline
    expect(existsSync(join(cwd, 'pwned'))).toBe(false);
  });

  it('a pasted claude dry-run line runs in the root and feeds the prompt on stdin', () => {
    const root = tempDir();
    const cmd = claudeInvocation({ root, prompt: hostile });
    const seen = runDryRunLine(formatDryRun(cmd), 'claude', tempDir());
    expect(seen.argv).toEqual(cmd.args);
    expect(seen.cwd).toBe(root);
    expect(seen.input).toBe(`${hostile}\n`); // a here-string adds one newline
    expect(existsSync(join(root, 'pwned'))).toBe(false);
  });

  it('a pasted execute-bead line sets HELIX_SELECTED_ISSUE', () => {
    const cwd = tempDir();
    const seen = runDryRunLine(formatDryRun(executeBeadInvocation({ root: cwd, beadId: 'hx-9' })), 'ddx', cwd);
    expect(seen.selected).toBe('hx-9');
  });

  it('shellQuote leaves plain words alone and quotes everything else', () => {
    expect(shellQuote('model_reasoning_effort=high')).toBe('model_reasoning_effort=high');
    expect(shellQuote('')).toBe("''");
    expect(shellQuote("it's")).toBe("'it'\\''s'");
    expect(shellQuote('a\nb')).toBe("$'a\\nb'");
  });
});
