// tests/ddx/agent/claude is the agent the REAL ddx binaries run in `npm run test:ddx`, which CI
// cannot run (it needs DDx built from source). So `npm test` runs it here as DDx does — a probe and
// one execution — and a rename or a broken import in it fails `npm test`, not a lane no one sees.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, tempDir, tempGitRepo } from '../../helpers/cli.js';
import { AGENT_DIR } from '../targets.js';

const CLAUDE = join(AGENT_DIR, 'claude');

/** Runs the stand-in with the argv DDx's claude harness builds (the prompt as the last argument). */
function asDdxRunsIt(cwd: string, prompt: string, script: object = { responses: [] }) {
  const scratch = tempDir('helix-agent-standin-');
  writeFileSync(join(scratch, 'script.json'), JSON.stringify(script));
  const env = { ...cleanEnv(), HELIX_STUB_SCRIPT: join(scratch, 'script.json'), HELIX_STUB_LOG: join(scratch, 'calls.jsonl') };
  return spawnSync(CLAUDE, ['--print', '-p', '--verbose', '--output-format', 'stream-json', '--model', 'sonnet', prompt], { cwd, env, encoding: 'utf8' });
}

const events = (stdout: string) => stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);

describe('the stand-in agent the real DDx runs (tests/ddx/agent/claude)', () => {
  it('answers the version probe DDx makes', () => {
    const probe = spawnSync(CLAUDE, ['--version'], { encoding: 'utf8', env: cleanEnv() });
    expect(probe.stderr).toBe('');
    expect(probe.status).toBe(0);
    expect(probe.stdout).toMatch(/^\d+\.\d+\.\d+ \(Claude Code\)$/m);
  });

  it('executes a bead as DDx asks for one: commits the work and ends on a result event with usage', () => {
    const repo = tempGitRepo();
    const run = asDdxRunsIt(repo, '<execute-bead>\n<bead id="b-1" title="write a file">\n</bead>\n</execute-bead>');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const result = events(run.stdout).find((e) => e.type === 'result');
    expect(result).toMatchObject({ is_error: false, total_cost_usd: 0.001, usage: { input_tokens: 100 } });
    expect(existsSync(join(repo, 'work', 'b-1.txt'))).toBe(true);
    expect(spawnSync('git', ['log', '-1', '--format=%s'], { cwd: repo, encoding: 'utf8' }).stdout.trim()).toBe('stand-in work [b-1]');
  });

  it("answers DDx's intake with the JSON DDx parses", () => {
    const run = asDdxRunsIt(tempDir(), 'MODE: intake\nbead b-1');
    expect(run.status).toBe(0);
    const result = events(run.stdout).find((e) => e.type === 'result');
    expect(JSON.parse(String(result?.result))).toMatchObject({ classification: 'ready' });
  });
});
