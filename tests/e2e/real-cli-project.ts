// The world of one end-to-end test with the REAL codex and claude CLIs (tests/e2e/clis, pinned):
// a real temp git repository with a bead file, a temp HOME (and CODEX_HOME with a provider that
// points codex at the model stand-in), claude pointed at the stand-in with ANTHROPIC_BASE_URL, and
// the built bin/helix run as a child process — asynchronously, because the stand-in answers from
// this same process. Nothing here talks to any address but 127.0.0.1.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { Bead } from '../../src/tracker/index.js';
import { beadIn, beadsIn } from '../helpers/bead.js';
import { HELIX_BIN, cleanEnv, runCollected, tempDir, tempGitRepo } from '../helpers/cli.js';
import { type Api, ModelApi, type Usage } from './model-api.js';

/**
 * Where `npm run test:agents` installed the pinned CLIs (see scripts/test-agents.mjs), or
 * HELIX_E2E_CLIS: another folder holding `codex` and `claude`, to run the suite against other
 * versions (docs/agent-clis.md, "Other versions").
 */
export const CLIS_BIN = process.env.HELIX_E2E_CLIS ?? resolve(import.meta.dirname, 'clis', 'node_modules', '.bin');

export type Agent = 'codex' | 'claude';
export const API_OF: Record<Agent, Api> = { codex: 'openai', claude: 'anthropic' };
/** Model names the stand-in must see in the request body (helix passes --model through). */
export const MODEL_OF: Record<Agent, string> = { codex: 'gpt-e2e-standin', claude: 'claude-e2e-standin' };

export interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Throws one clear line when the CLIs are not installed (the suite is run by `npm run test:agents`). */
export function assertClisInstalled(): void {
  for (const program of ['codex', 'claude']) {
    if (!existsSync(join(CLIS_BIN, program))) {
      throw new Error(`the real ${program} CLI is not installed in ${CLIS_BIN}: run \`npm run test:agents\`, which installs it first`);
    }
  }
}

/**
 * One model stand-in for the whole test file: started before its first test (after checking the
 * CLIs are installed), handed to `use`, closed after its last.
 */
export function withModelApi(use: (api: ModelApi) => void): void {
  let started: ModelApi | undefined;
  beforeAll(async () => {
    assertClisInstalled();
    started = await ModelApi.start();
    use(started);
  });
  afterAll(async () => {
    await started?.close();
  });
}

export class E2EProject {
  readonly root: string;
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
  /**
   * `helix` for the agent's own shell, by absolute path: codex runs commands in a login shell
   * (`bash -lc`), whose profile resets PATH.
   */
  readonly helixShim: string;

  constructor(api: ModelApi, agent: Agent, options: { beads?: Bead[]; env?: NodeJS.ProcessEnv } = {}) {
    this.root = tempGitRepo(`helix-e2e-${agent}-`);
    this.home = tempDir('helix-e2e-home-');
    const codexHome = join(this.home, '.codex');
    mkdirSync(codexHome);
    // codex 0.169: a custom provider on the Responses API, its key from OPENAI_API_KEY.
    writeFileSync(
      join(codexHome, 'config.toml'),
      [
        'model_provider = "standin"',
        `model = "${MODEL_OF.codex}"`,
        '',
        '[model_providers.standin]',
        'name = "model API stand-in"',
        `base_url = "${api.origin}/v1"`,
        'wire_api = "responses"',
        'env_key = "OPENAI_API_KEY"',
        '',
        // without these codex 0.169 also syncs a plugin list from GitHub and exports metrics on
        // exit (measured: a 5 s wait per call in a namespace without network)
        '[analytics]',
        'enabled = false',
        '',
        '[features]',
        'plugins = false',
        '',
      ].join('\n'),
    );
    // `helix` on PATH for the agent's own shell (a direct agent closes its bead with helix tracker).
    const shims = join(this.home, 'bin');
    mkdirSync(shims);
    this.helixShim = join(shims, 'helix');
    writeFileSync(this.helixShim, `#!/bin/sh\nexec "${process.execPath}" "${HELIX_BIN}" "$@"\n`);
    chmodSync(this.helixShim, 0o755);
    mkdirSync(join(this.root, '.ddx'));
    writeFileSync(join(this.root, '.ddx', 'beads.jsonl'), (options.beads ?? []).map((b) => `${JSON.stringify(b)}\n`).join(''));
    this.git('add', '-A');
    this.git('commit', '-q', '-m', 'beads');
    this.env = {
      ...cleanEnv(),
      // no ddx on PATH: helix calls the agent CLIs directly
      PATH: [CLIS_BIN, shims, resolve(process.execPath, '..'), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
      HOME: this.home,
      CODEX_HOME: codexHome,
      OPENAI_API_KEY: 'sk-e2e-standin',
      ANTHROPIC_BASE_URL: api.origin,
      ANTHROPIC_API_KEY: 'sk-ant-e2e-standin',
      // claude's own traffic (telemetry, update checks, title requests) stays off
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      // the user's statement that this is a disposable sandbox (tests run as root here); the
      // root test removes it to see claude refuse
      IS_SANDBOX: '1',
      HELIX_AGENT: agent,
      HELIX_ALT_AGENT: 'none',
      HELIX_MODEL: MODEL_OF[agent],
      HELIX_BACKOFF_SLEEP: '0',
      HELIX_MEMORY: '0',
      HELIX_AGENT_TIMEOUT: '120',
      ...options.env,
    };
  }

  git(...args: string[]): string {
    const r = spawnSync('git', args, { cwd: this.root, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout;
  }

  /** Runs the built helix to completion without blocking this process (the stand-in lives here). */
  async helix(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Result> {
    const { code, stdout, stderr } = await runCollected(process.execPath, [HELIX_BIN, ...args], { cwd: this.root, env: { ...this.env, ...env } });
    return { status: code, stdout, stderr };
  }

  beads(): Bead[] {
    return beadsIn(this.root);
  }

  bead(id: string): Bead {
    return beadIn(this.root, id);
  }

  runState(): Record<string, unknown> {
    return JSON.parse(readFileSync(join(this.root, '.ddx', 'run-state.json'), 'utf8')) as Record<string, unknown>;
  }

  file(relative: string, text: string): void {
    const path = join(this.root, relative);
    mkdirSync(resolve(path, '..'), { recursive: true });
    writeFileSync(path, text);
  }
}


/**
 * The tokens helix must report for what the stand-in sent on one API: every input token (cache
 * reads and writes included) plus every output token. OpenAI's input_tokens already include the
 * cached part; Anthropic's input_tokens do not.
 */
export function tokensSent(api: Api, sent: Usage): number {
  return api === 'openai' ? sent.input + sent.output : sent.input + sent.cached + sent.cacheCreation + sent.output;
}
