// A temp git project for black-box tests of `helix run` and friends: a small bead file, the stub
// ddx/codex/claude first on PATH (tests/stubs), a per-test stub script and call log, and helpers
// to run the real CLI (blocking, or in the background to signal it) and read what it left behind.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { Bead } from '../../src/tracker/index.js';
import { type CliResult, HELIX_BIN, cleanEnv, helix, tempGitRepo } from '../helpers/cli.js';
import type { StubCall } from '../helpers/stub-call.js';
import { isRunning } from '../agents/process-helpers.js';

export type { StubCall } from '../helpers/stub-call.js';

export const STUBS = resolve(import.meta.dirname, '../stubs');

export interface ProjectOptions {
  beads?: Bead[];
  /** The stub script (responses, defaults, executeBeadHelp). */
  script?: object;
  env?: NodeJS.ProcessEnv;
}

export interface Background {
  child: ChildProcess;
  /** Resolves when the process exits. */
  done: Promise<CliResult>;
  /** stderr received so far (to wait for a progress line). */
  stderrSoFar: () => string;
}

export class Project {
  readonly root: string;
  readonly stubLog: string;
  readonly scriptPath: string;
  readonly env: NodeJS.ProcessEnv;
  /** A folder outside the repo for markers and scratch files. */
  readonly scratch: string;

  constructor(options: ProjectOptions = {}) {
    this.root = tempGitRepo('helix-run-');
    this.scratch = join(this.root, '..', `${this.root.split('/').pop()}-scratch`);
    mkdirSync(this.scratch);
    this.stubLog = join(this.scratch, 'calls.jsonl');
    this.scriptPath = join(this.scratch, 'script.json');
    writeFileSync(this.scriptPath, JSON.stringify(options.script ?? { responses: [] }));
    mkdirSync(join(this.root, '.ddx'));
    this.writeBeads(options.beads ?? []);
    this.env = {
      PATH: `${STUBS}:${process.env.PATH ?? ''}`,
      HELIX_STUB_LOG: this.stubLog,
      HELIX_STUB_SCRIPT: this.scriptPath,
      HELIX_STUB_HELIX: HELIX_BIN,
      HELIX_BACKOFF_SLEEP: '0',
      // tests run as root here: like the real claude, the stub refuses its bypass flags as root without it
      IS_SANDBOX: '1',
      // the learning loop has its own tests; keep runs here independent of model files
      HELIX_MEMORY: '0',
      ...options.env,
    };
  }

  get beadsFile(): string {
    return join(this.root, '.ddx', 'beads.jsonl');
  }

  writeBeads(beads: Bead[]): void {
    writeFileSync(this.beadsFile, beads.map((b) => `${JSON.stringify(b)}\n`).join(''));
  }

  script(script: object): void {
    writeFileSync(this.scriptPath, JSON.stringify(script));
  }

  /** Runs helix to completion. */
  helix(args: string[], env: NodeJS.ProcessEnv = {}): CliResult {
    return helix(args, { cwd: this.root, env: { ...this.env, ...env } });
  }

  /** Starts helix in the background (to signal it, or to race a second run against it). */
  helixInBackground(args: string[], env: NodeJS.ProcessEnv = {}): Background {
    const child = spawn(process.execPath, [HELIX_BIN, ...args], { cwd: this.root, env: { ...cleanEnv(), ...this.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const done = new Promise<CliResult>((resolveDone) => {
      child.on('close', (code, signal) => resolveDone({ status: code ?? (signal ? 128 : -1), stdout, stderr }));
    });
    return { child, done, stderrSoFar: () => stderr };
  }

  beads(): Bead[] {
    if (!existsSync(this.beadsFile)) return [];
    return readFileSync(this.beadsFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Bead);
  }

  /** Status of each of these beads (the run may add beads of its own, e.g. a planning bead). */
  statuses(...ids: string[]): string[] {
    return ids.map((id) => this.bead(id).status);
  }

  bead(id: string): Bead {
    const found = this.beads().find((b) => b.id === id);
    if (!found) throw new Error(`no bead ${id} in ${this.beadsFile}`);
    return found;
  }

  calls(): StubCall[] {
    if (!existsSync(this.stubLog)) return [];
    return readFileSync(this.stubLog, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as StubCall);
  }

  /** Build attempts the stubs saw (execute-bead, execute-loop, or direct implementation prompts). */
  buildCalls(): StubCall[] {
    return this.calls().filter((c) => c.kind === 'execute-bead' || c.kind === 'execute-loop' || c.action === 'implementation');
  }

  checkCalls(): StubCall[] {
    return this.calls().filter((c) => c.action === 'check');
  }

  runState(): Record<string, unknown> {
    return JSON.parse(readFileSync(join(this.root, '.ddx', 'run-state.json'), 'utf8')) as Record<string, unknown>;
  }

  /** Files in .helix-logs matching a prefix, oldest first. */
  logFiles(prefix: string): string[] {
    const dir = join(this.root, '.helix-logs');
    if (!existsSync(dir)) return [];
    return readdirSync(dir).filter((f) => f.startsWith(prefix)).sort().map((f) => join(dir, f));
  }

  /** A path in the scratch folder (markers the stubs write, files the test creates). */
  path(name: string): string {
    return join(this.scratch, name);
  }
}

/** Polls until `condition` holds, failing after `timeoutMs` (synchronisation, not a fixed sleep). */
export async function waitUntil(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await delay(20);
  }
}

/** A pid runs: kill(pid, 0) succeeds and it is no zombie (init may reap a finished run late). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return isRunning(pid);
}

/** stderr lines that start with `helix:`. */
export const helixLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('helix:'));

/** The run-complete line; a cost (`, $0.0123`) follows the tokens when an agent reported one. */
export const RUN_COMPLETE = /^helix: ═══ run complete: (\d+) attempted, (\d+) completed, (\d+) skipped, (\d+) tokens(?:, \$\d+\.\d{4})? ═══$/m;

/**
 * A HELIX_NOTIFY program (argv, no shell) that appends each event it is given to a file in the
 * project; `events()` reads them back (none yet: an empty list).
 */
export function recordingNotifier(p: Project): { env: NodeJS.ProcessEnv; events: () => Array<Record<string, unknown>> } {
  const script = p.path('notify.mjs');
  const out = p.path('notified.jsonl');
  writeFileSync(script, "import { appendFileSync } from 'node:fs';\nlet s = '';\nprocess.stdin.on('data', (d) => (s += d));\nprocess.stdin.on('end', () => appendFileSync(process.argv[2], s));\n");
  return {
    env: { HELIX_NOTIFY: JSON.stringify([process.execPath, script, out]) },
    events: () => (existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : []),
  };
}
