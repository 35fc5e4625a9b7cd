// The world of one first-night scenario (`npm run test:first-night`): a user who configured nothing.
// The environment is exactly `PATH` and `HOME` — no HELIX_* or DDX_* variable, nothing of the test
// runner's — and PATH holds only the programs the scenario installs (the REAL codex and/or claude
// CLIs pinned in tests/e2e/clis, a real `ddx` when HELIX_TEST_DDX names one, `helix` itself) plus
// the system's /usr/bin and /bin. What a user's HOME holds makes the CLIs work: a git identity,
// claude's settings (its API endpoint — the model stand-in on 127.0.0.1 — and key, in
// ~/.claude/settings.json's `env`), codex's provider (~/.codex/config.toml). The network is
// isolated by the script around the suite (scripts/test-first-night.mjs), as test:ddx does.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, delimiter, join, resolve } from 'node:path';
import type { Bead } from '../../src/tracker/index.js';
import { beadIn, beadsIn } from '../helpers/bead.js';
import { HELIX_BIN, runCollected, tempDir, tempGitRepo } from '../helpers/cli.js';
import type { ModelApi } from '../e2e/model-api.js';
import { CLIS_BIN } from '../e2e/real-cli-project.js';

export type Install = 'claude' | 'codex' | 'both';
export const INSTALLS: Install[] = ['claude', 'codex', 'both'];

/** The codex model its config names (a user's ~/.codex/config.toml always names one). */
export const CODEX_CONFIG_MODEL = 'gpt-first-night';

/** The real ddx binaries HELIX_TEST_DDX names, by the surface `ddx version --no-check` reports. */
export function realDdx(): { '0.6.1'?: string; current?: string } {
  const found: { '0.6.1'?: string; current?: string } = {};
  for (const entry of (process.env.HELIX_TEST_DDX ?? '').split(delimiter).map((e) => e.trim()).filter(Boolean)) {
    const binary = existsSync(join(entry, 'ddx')) ? join(entry, 'ddx') : resolve(entry);
    const version = spawnSync(binary, ['version', '--no-check'], { encoding: 'utf8' }).stdout ?? '';
    found[/\bv0\.6\.[01]\b/.test(version) ? '0.6.1' : 'current'] = binary;
  }
  return found;
}

export interface Result {
  status: number | null;
  stdout: string;
  stderr: string;
}

export class Night {
  readonly root: string;
  readonly home: string;
  readonly bin: string;
  /** PATH and HOME: all a user's shell gives helix here. */
  readonly env: NodeJS.ProcessEnv;

  /** `login`: how claude is logged in — an API key, or a subscription's OAuth token (what `claude /login` stores). */
  constructor(api: ModelApi, options: { install: Install; ddx?: string; beads?: Bead[]; login?: 'api-key' | 'subscription' }) {
    this.root = tempGitRepo('helix-night-');
    this.home = realpathSync(tempDir('helix-night-home-'));
    this.bin = join(this.home, 'bin');
    mkdirSync(this.bin);
    const programs = options.install === 'both' ? ['codex', 'claude'] : [options.install];
    for (const program of programs) symlinkSync(join(CLIS_BIN, program), join(this.bin, program));
    if (options.ddx) symlinkSync(options.ddx, join(this.bin, 'ddx'));
    symlinkSync(process.execPath, join(this.bin, 'node')); // the CLIs' launchers are node scripts
    writeFileSync(join(this.bin, 'helix'), `#!/bin/sh\nexec "${process.execPath}" "${HELIX_BIN}" "$@"\n`);
    chmodSync(join(this.bin, 'helix'), 0o755);
    writeFileSync(join(this.home, '.gitconfig'), '[user]\n\tname = First Night\n\temail = night@helix.invalid\n');
    // codex runs its commands in a login shell, whose profile sets PATH: a user's puts their own bin on it
    writeFileSync(join(this.home, '.profile'), `export PATH="${this.bin}:$PATH"\n`);
    mkdirSync(join(this.home, '.claude'));
    writeFileSync(
      join(this.home, '.claude', 'settings.json'),
      JSON.stringify({
        env: {
          ANTHROPIC_BASE_URL: api.origin,
          ...(options.login === 'subscription' ? { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-first-night' } : { ANTHROPIC_API_KEY: 'sk-ant-first-night' }),
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          DISABLE_AUTOUPDATER: '1',
          // the user's statement that this machine is a disposable sandbox (the suite runs as root)
          IS_SANDBOX: '1',
        },
      }),
    );
    mkdirSync(join(this.home, '.codex'));
    writeFileSync(
      join(this.home, '.codex', 'config.toml'),
      [
        'model_provider = "standin"',
        `model = "${CODEX_CONFIG_MODEL}"`,
        '',
        '[model_providers.standin]',
        'name = "model API stand-in"',
        `base_url = "${api.origin}/v1"`,
        'wire_api = "responses"',
        'experimental_bearer_token = "sk-first-night"',
        '',
        '[analytics]',
        'enabled = false',
        '',
        '[features]',
        'plugins = false',
        '',
      ].join('\n'),
    );
    this.env = { PATH: `${this.bin}:/usr/bin:/bin`, HOME: this.home };
    mkdirSync(join(this.root, '.ddx'));
    writeFileSync(join(this.root, '.ddx', 'beads.jsonl'), (options.beads ?? []).map((b) => `${JSON.stringify(b)}\n`).join(''));
    this.git('add', '-A');
    this.git('commit', '-q', '-m', 'beads');
  }

  git(...args: string[]): string {
    const r = spawnSync('git', args, { cwd: this.root, encoding: 'utf8', env: this.env });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout;
  }

  /** `ddx init` as a user runs it, leaving what it leaves (v0.6.1: its skills uncommitted). */
  ddxInit(): void {
    const r = spawnSync('ddx', ['init', '--silent', '--skip-claude-injection'], { cwd: this.root, env: this.env, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`ddx init failed: ${r.stderr}`);
  }

  ddx(args: string[]): Result {
    const r = spawnSync('ddx', args, { cwd: this.root, env: this.env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  /** Runs helix to its end without blocking this process (the model stand-in answers from it). */
  async helix(args: string[]): Promise<Result> {
    const { code, stdout, stderr } = await runCollected('helix', args, { cwd: this.root, env: this.env });
    return { status: code, stdout, stderr };
  }

  beads(): Bead[] {
    return beadsIn(this.root);
  }

  bead(id: string): Bead {
    return beadIn(this.root, id);
  }

  /** Processes started from this world's HOME (codex's app-server daemon that DDx's harness leaves), stopped. */
  stopLeftovers(): void {
    for (const entry of spawnSync('pgrep', ['-f', this.home], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean)) {
      try {
        process.kill(Number(entry), 'SIGKILL');
      } catch {
        // gone already
      }
    }
  }

  toString(): string {
    return `night ${basename(this.root)}`;
  }
}
