// The demo's stand-in agent (examples/demo-agent) against a tiny fake `helix` that serves beads
// from a JSON file and records closes: it must honour the real ddx/codex calling contract.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  codexInvocation,
  ddxRunInvocation,
  executeBeadInvocation,
  parseExecuteBeadResult,
  parseNextAction,
  parseTrailers,
  runAgentInvocation,
} from '../../src/agents/index.js';
import { tempDir, tempGitRepo } from '../helpers/cli.js';

const DEMO_AGENT = resolve(import.meta.dirname, '../../examples/demo-agent');
/** A check that wants one line the bead never mentions, and says so when it is missing. */
const STRICT_CHECK = "grep -qx 'strict: true' src/args.txt 2>/dev/null || { echo \"src/args.txt: add the line 'strict: true'\"; exit 1; }";

function demoProject(beads: Record<string, { title: string; description?: string; verify?: string }>) {
  const repo = tempGitRepo('helix-demo-');
  const bin = tempDir('helix-demo-bin-');
  writeFileSync(join(bin, 'beads.json'), JSON.stringify(beads));
  writeFileSync(
    join(bin, 'helix'),
    `#!/usr/bin/env node
const fs = require('fs');
const [group, sub, id] = process.argv.slice(2);
const beads = JSON.parse(fs.readFileSync(${JSON.stringify(join(bin, 'beads.json'))}, 'utf8'));
if (group !== 'tracker' || !beads[id]) { process.stderr.write('bead: not found: ' + id + '\\n'); process.exit(3); }
if (sub === 'show') process.stdout.write(JSON.stringify({ id, status: 'in_progress', ...beads[id] }));
else if (sub === 'close') fs.appendFileSync(${JSON.stringify(join(bin, 'closed.txt'))}, id + '\\n');
else process.exit(1);
`,
  );
  chmodSync(join(bin, 'helix'), 0o755);
  const env = { ...process.env, PATH: `${DEMO_AGENT}:${bin}:${process.env.PATH}` };
  const closed = () => (existsSync(join(bin, 'closed.txt')) ? readFileSync(join(bin, 'closed.txt'), 'utf8') : '');
  const git = (...args: string[]) => spawnSync('git', args, { cwd: repo, encoding: 'utf8' }).stdout.trim();
  return { repo, env, closed, git };
}

describe('demo stand-in agent', () => {
  it('execute-bead makes a real commit writing the named file and prints a real result; it closes nothing', async () => {
    const p = demoProject({ 'demo-1': { title: 'Add greeting', description: 'demo: write src/greeting.txt' } });
    const base = p.git('rev-parse', 'HEAD');
    const run = await runAgentInvocation(executeBeadInvocation({ root: p.repo, beadId: 'demo-1', harness: 'codex' }), { env: p.env });
    expect(run.exitCode).toBe(0);
    const head = p.git('rev-parse', 'HEAD');
    expect(head).not.toBe(base);
    expect(parseExecuteBeadResult(run.stdout, 'demo-1')).toMatchObject({
      bead_id: 'demo-1', base_rev: base, result_rev: head, outcome: 'merged', status: 'success', exit_code: 0,
    });
    expect(readFileSync(join(p.repo, 'src/greeting.txt'), 'utf8')).toContain('# Add greeting');
    expect(p.git('log', '-1', '--format=%s')).toBe('demo-1: Add greeting');
    expect(p.git('status', '--porcelain')).toBe('');
    expect(run.output).toContain('stand-in');
    expect(p.closed()).toBe('');
  });

  it('a bead whose check fails: it undoes its edit, commits nothing, and reports the check\'s message as LEARNED', async () => {
    const p = demoProject({ 'demo-2': { title: 'Parser', description: 'demo: write src/args.txt', verify: STRICT_CHECK } });
    const base = p.git('rev-parse', 'HEAD');
    const run = await runAgentInvocation(executeBeadInvocation({ root: p.repo, beadId: 'demo-2' }), { env: p.env });
    expect(run.exitCode).toBe(1);
    expect(parseExecuteBeadResult(run.stdout)).toMatchObject({ status: 'execution_failed', outcome: 'error', exit_code: 1 });
    expect(parseTrailers(run.stdout)).toMatchObject({ learned: ["src/args.txt: add the line 'strict: true'"], utilized: undefined });
    expect(p.git('rev-parse', 'HEAD')).toBe(base);
    expect(existsSync(join(p.repo, 'src/args.txt'))).toBe(false);
  });

  it('adds a line an injected memory says its file needs, names that memory in UTILIZED, and passes the check', async () => {
    const p = demoProject({ 'demo-2': { title: 'Parser', description: 'demo: write src/args.txt', verify: STRICT_CHECK } });
    const prompt = join(p.repo, '..', 'prompt.md');
    writeFileSync(
      prompt,
      [
        'Memories from earlier tasks (list the ones that helped as UTILIZED: [name, ...]):',
        "[unproven] Parser: execution_failed: check failed (files: src/args.txt) -> src/args.txt: add the line 'strict: true' (memory: parser-check)",
        "[unproven] Help: execution_failed (files: src/help.txt) -> src/help.txt: add the line 'verbose: true' (memory: help-check)",
        'INJECTED: ["parser-check","help-check"]',
      ].join('\n'),
    );
    const run = await runAgentInvocation(executeBeadInvocation({ root: p.repo, beadId: 'demo-2', promptFile: prompt }), { env: p.env });
    expect(run.exitCode).toBe(0);
    expect(parseExecuteBeadResult(run.stdout)).toMatchObject({ status: 'success' });
    expect(parseTrailers(run.stdout).utilized).toEqual(['parser-check']);
    expect(run.stdout).toContain("memory parser-check says to add the line 'strict: true' to src/args.txt; added it");
    const written = readFileSync(join(p.repo, 'src/args.txt'), 'utf8');
    expect(written.split('\n')).toContain('strict: true');
    expect(written).not.toContain('verbose: true');
  });

  it('names no memory when none it was given applies to its file', async () => {
    const p = demoProject({ 'demo-3': { title: 'Help', description: 'demo: write src/help.txt' } });
    const prompt = join(p.repo, '..', 'prompt-help.md');
    writeFileSync(prompt, "[unproven] Parser -> src/args.txt: add the line 'strict: true' (memory: parser-check)\nINJECTED: [\"parser-check\"]\n");
    const run = await runAgentInvocation(executeBeadInvocation({ root: p.repo, beadId: 'demo-3', promptFile: prompt }), { env: p.env });
    expect(run.exitCode).toBe(0);
    expect(parseTrailers(run.stdout).utilized).toEqual([]);
    expect(readFileSync(join(p.repo, 'src/help.txt'), 'utf8')).not.toContain('strict: true');
  });

  it('answers the check action with NEXT_ACTION: STOP through ddx agent run', async () => {
    const p = demoProject({});
    const run = await runAgentInvocation(ddxRunInvocation('agent', { root: p.repo, harness: 'codex', prompt: 'Perform the check action.', timeoutSeconds: 60 }), { env: p.env });
    expect(run.exitCode).toBe(0);
    expect(parseNextAction(run.output)).toBe('STOP');
    expect(run.stdout.split('\n')[0]).toBe('NEXT_ACTION: STOP');
  });

  it('as direct codex, implements the target, closes it itself and reports tokens', async () => {
    const p = demoProject({ 'demo-3': { title: 'Direct', description: 'Create `notes/direct.md`' } });
    const run = await runAgentInvocation(codexInvocation({ root: p.repo, prompt: 'Do the implementation action.\nImplementation target: demo-3' }), { env: p.env });
    expect(run.exitCode).toBe(0);
    expect(existsSync(join(p.repo, 'notes/direct.md'))).toBe(true);
    expect(p.closed()).toBe('demo-3\n');
    expect(run.tokens).toBeGreaterThan(0);
  });

  it('a hostile bead title is committed as text, never executed', async () => {
    const p = demoProject({ 'demo-4': { title: 'Fix `touch tick-pwned` $(touch pwned)', description: 'demo: write safe.txt' } });
    const run = await runAgentInvocation(executeBeadInvocation({ root: p.repo, beadId: 'demo-4' }), { env: p.env });
    expect(run.exitCode).toBe(0);
    expect(p.git('log', '-1', '--format=%s')).toBe('demo-4: Fix `touch tick-pwned` $(touch pwned)');
    expect(existsSync(join(p.repo, 'pwned'))).toBe(false);
    expect(existsSync(join(p.repo, 'tick-pwned'))).toBe(false);
  });

  it('never writes outside the repository', async () => {
    const p = demoProject({ 'demo-5': { title: 'Escape', description: 'demo: write ../outside.txt' } });
    const run = await runAgentInvocation(executeBeadInvocation({ root: p.repo, beadId: 'demo-5' }), { env: p.env });
    expect(run.exitCode).toBe(0);
    expect(existsSync(join(p.repo, 'demo/demo-5.md'))).toBe(true);
    expect(existsSync(join(p.repo, '../outside.txt'))).toBe(false);
  });
});
