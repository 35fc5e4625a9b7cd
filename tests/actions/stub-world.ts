// A scripted world for black-box tests of the HELIX actions: a temp git repository, the stub
// agents of tests/stubs on PATH (only the ones a test asks for), a `helix` launcher for the stubs'
// `run` commands, a response script and the stubs' call log.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Bead, BeadStore, type CreateInput, createBead } from '../../src/tracker/index.js';
import { type CliResult, HELIX_BIN, cleanEnv, helix, tempGitRepo } from '../helpers/cli.js';
import type { StubCall, StubResponse } from '../helpers/stub-call.js';

export type { StubCall, StubResponse } from '../helpers/stub-call.js';

const STUBS = resolve(import.meta.dirname, '../stubs');

export type StubProgram = 'codex' | 'claude' | 'ddx';



export interface WorldOptions {
  /** Stub programs on PATH (default: codex only, so every action goes to codex directly). */
  programs?: StubProgram[];
  responses?: StubResponse[];
  defaults?: Record<string, StubResponse>;
  executeBeadHelp?: boolean;
  env?: NodeJS.ProcessEnv;
}

export class World {
  readonly repo: string;
  readonly bin: string;
  readonly log: string;
  readonly scriptPath: string;
  readonly env: NodeJS.ProcessEnv;
  readonly store: BeadStore;

  constructor(options: WorldOptions = {}) {
    this.repo = tempGitRepo('helix-actions-');
    // The harness lives outside the repository so the worktree stays clean for `experiment`.
    const outside = `${this.repo}-harness`;
    this.bin = join(outside, 'bin');
    mkdirSync(this.bin, { recursive: true });
    for (const program of options.programs ?? ['codex']) symlinkSync(join(STUBS, program), join(this.bin, program));
    const launcher = join(this.bin, 'helix');
    writeFileSync(launcher, `#!/bin/sh\nexec "${process.execPath}" "${HELIX_BIN}" "$@"\n`);
    chmodSync(launcher, 0o755);
    this.log = join(outside, 'calls.jsonl');
    this.scriptPath = join(outside, 'script.json');
    writeFileSync(
      this.scriptPath,
      JSON.stringify({ executeBeadHelp: options.executeBeadHelp ?? true, responses: options.responses ?? [], defaults: options.defaults ?? {} }),
    );
    // node itself must stay reachable (the stubs are `#!/usr/bin/env node`), nothing else helix could call
    const nodeDir = resolve(process.execPath, '..');
    this.env = {
      PATH: `${this.bin}:${nodeDir}:/usr/bin:/bin`,
      HELIX_STUB_LOG: this.log,
      HELIX_STUB_SCRIPT: this.scriptPath,
      HELIX_BACKOFF_SLEEP: '0',
      // tests run as root here: like the real claude, the stub refuses its bypass flags as root without it
      IS_SANDBOX: '1',
      HELIX_LIBRARY_ROOT: join(resolve(import.meta.dirname, '../..'), 'workflows'),
      ...options.env,
    };
    this.store = new BeadStore(join(this.repo, '.ddx'), { ...cleanEnv(), ...this.env });
  }

  helix(args: string[], env: NodeJS.ProcessEnv = {}): CliResult {
    return helix(args, { cwd: this.repo, env: { ...this.env, ...env } });
  }

  /** Every stub call so far, in order (the `--help` probe of ddx included). */
  calls(): StubCall[] {
    if (!existsSync(this.log)) return [];
    return readFileSync(this.log, 'utf8')
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as StubCall);
  }

  /** The actions of the prompt calls, in order (`check`, `align`, `implementation`, …). */
  actions(): string[] {
    return this.calls().filter((c) => c.kind !== 'execute-bead-help').map((c) => (c.kind === 'execute-bead' ? 'execute-bead' : c.action ?? c.kind));
  }

  /** The prompt a call received: stdin (ddx agent run / ddx run, codex `exec -`, claude -p). */
  static promptOf(call: StubCall): string {
    return call.stdin; // every agent helix runs reads its prompt on stdin (ddx run, codex exec -, claude -p)
  }

  bead(input: CreateInput & { set?: string[] }): Bead {
    return this.store.mutate((draft) => createBead(draft, input, 'hx'));
  }

  beads(): Bead[] {
    return this.store.read().beads;
  }

  git(...args: string[]): string {
    const r = spawnSync('git', args, { cwd: this.repo, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout;
  }

  file(relative: string, text: string): string {
    const path = join(this.repo, relative);
    mkdirSync(resolve(path, '..'), { recursive: true });
    writeFileSync(path, text);
    return path;
  }
}

/** A stub `run` step that writes `count` files in the repository and commits them. */
export function commitFiles(count: number, linesEach = 1): string[] {
  const names = Array.from({ length: count }, (_, i) => `change-${i}.txt`);
  const body = Array.from({ length: linesEach }, (_, i) => `line ${i}`).join('\\n');
  const script = `${names.map((n) => `printf '${body}\\n' > ${n}`).join('; ')}; git add ${names.join(' ')}; git commit -q -m change`;
  return ['sh', '-c', script];
}
