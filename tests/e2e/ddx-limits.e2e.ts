// What the REAL DDx binaries record when the real agent CLI they run hits a usage or rate limit:
// DDx (v0.6.1 `ddx agent execute-bead --json`, current `ddx try`) runs claude or codex, which talk
// to the model stand-in answering with the APIs' limit responses (model-api.ts LIMITS). Measured:
// nothing of the limit survives into DDx's result — `execution_failed`, `exit status 1`,
// `failure_mode: unknown`, no reset — so helix cannot tell a limit from a failed attempt through
// DDx (docs/agent-clis.md, "Usage and rate limits"). Runs only with HELIX_TEST_DDX naming the
// binaries (`HELIX_TEST_DDX=/work/ddx-build/v0.6.1/ddx:/work/ddx-build/ae663ca012/ddx npm run
// test:agents -- tests/e2e/ddx-limits.e2e.ts`), as the DDx suite does.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ddxUsageLimit } from '../../src/agents/index.js';
import { API_OF, type Agent, E2EProject, MODEL_OF, withModelApi } from './real-cli-project.js';
import { bead } from '../helpers/bead.js';
import { LIMITS, type LimitResponse, type ModelApi } from './model-api.js';

let api: ModelApi;
withModelApi((started) => {
  api = started;
});

const binaries = (process.env.HELIX_TEST_DDX ?? '').split(delimiter).filter(Boolean);
const ID = 'hx-e2e000d1';
const hour = () => new Date(Date.now() + 3_600_000);

const cases: Array<{ agent: Agent; name: string; limit: () => LimitResponse; env?: NodeJS.ProcessEnv }> = [
  { agent: 'claude', name: 'an API key over its rate limit (retry-after 1 h)', limit: () => LIMITS.anthropicRateLimit(3600) },
  { agent: 'claude', name: 'a spent subscription window', limit: () => LIMITS.anthropicSubscriptionLimit(hour()), env: { ANTHROPIC_API_KEY: undefined, CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-e2e-standin' } },
  { agent: 'codex', name: 'a ChatGPT usage limit', limit: () => LIMITS.openaiUsageLimit(hour()) },
];

if (binaries.length === 0) it.skip('real DDx on a limit: HELIX_TEST_DDX names no DDx binary', () => undefined);

/** Processes whose program lives under `dir` (read from /proc). */
function processesUnder(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').startsWith(`${dir}/`)) pids.push(Number(entry));
    } catch {
      // gone already
    }
  }
  return pids;
}

/** Runs a program to its end without blocking this process (the stand-in lives here). */
function run(file: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ status: number | null; stdout: string }> {
  const child = spawn(file, args, { cwd, env, stdio: ['ignore', 'pipe', 'ignore'] });
  let stdout = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  return new Promise((done) => child.on('close', (status) => done({ status, stdout })));
}

describe.each(binaries)('real DDx %s running the real CLIs on a limit', (binary) => {
  const version = spawnSync(binary, ['version', '--no-check'], { encoding: 'utf8' }).stdout;
  const current = !/v0\.6\.1\b/.test(version);

  it.each(cases)('$agent, $name: DDx records a failed attempt, not a limit, and no reset', async ({ agent, limit, env = {} }) => {
    const p = new E2EProject(api, agent, { beads: [bead({ id: ID, title: 'Say hello', description: 'Create hello.txt.' })] });
    // only what a user's shell would hold for these CLIs: not the test runner's own variables
    const keep = ['PATH', 'HOME', 'CODEX_HOME', 'OPENAI_API_KEY', 'ANTHROPIC_BASE_URL', 'ANTHROPIC_API_KEY', 'CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC', 'DISABLE_AUTOUPDATER', 'IS_SANDBOX'];
    const ddxEnv = { ...Object.fromEntries(keep.map((k) => [k, p.env[k]])), DDX_DISABLE_UPDATE_CHECK: '1', ...env };
    const setup = (args: string[]) => spawnSync(binary, args, { cwd: p.root, env: ddxEnv, encoding: 'utf8' });
    // DDx's own project files, committed as a user would (as the DDx suite sets projects up)
    setup(['init', '--silent', '--skip-claude-injection', '--no-git']);
    setup(['bead', 'list']);
    p.git('add', '-A');
    p.git('commit', '-q', '-m', 'DDx project');
    api.script(API_OF[agent], [{ limit: limit(), times: Infinity }]);
    const model = agent === 'claude' ? 'sonnet' : MODEL_OF.codex;
    // asynchronously: the stand-in answers from this process
    const r = await run(binary, current ? ['try', ID, '--harness', agent, '--model', model] : ['agent', 'execute-bead', ID, '--harness', agent, '--effort', 'medium', '--json'], p.root, ddxEnv);
    expect(api.mainRequests(API_OF[agent]).filter((q) => q.limited).length).toBeGreaterThan(0); // the CLI met the limit
    const executions = join(p.root, '.ddx', 'executions');
    const attempt = readdirSync(executions).filter((d) => existsSync(join(executions, d, 'result.json'))).pop();
    const result = JSON.parse(readFileSync(join(executions, attempt ?? 'none', 'result.json'), 'utf8')) as Record<string, unknown>;
    expect(result).toMatchObject({ status: 'execution_failed', detail: 'exit status 1', failure_mode: 'unknown' });
    expect(JSON.stringify(result)).not.toMatch(/429|limit|reset|retry/i);
    if (current) expect(r.stdout).toContain(`bead: ${ID}\nstatus: execution_failed\ndetail: exit status 1\n`);
    expect(ddxUsageLimit(result)).toBeUndefined();
    // current DDx (this build: fizeau v0.14.32 + shim) starts codex 0.171 — for the claude harness
    // too — and codex leaves its `codex app-server` daemon (CODEX_HOME/packages/app-server-daemon)
    // running; stop whatever runs from this test's HOME
    const left = processesUnder(p.home);
    if (left.length > 0) process.stdout.write(`${binary} ${agent}: stopping ${left.length} process(es) left running from ${p.home}\n`);
    for (const pid of left) process.kill(pid, 'SIGKILL');
  }, 360_000);
});
