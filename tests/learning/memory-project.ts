// A project for learning-loop tests: a real git repo with a real tracker and a real SQLite memory
// store, the stub `ddx` (tests/stubs) first on PATH, and `helix run` run as a child process.
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMemoryStore, resolveDbPath, type StoreInput } from '../../src/memory/index.js';
import { BeadStore, createBead, type Bead, type CreateInput } from '../../src/tracker/index.js';
import { HELIX_BIN, REPO_ROOT, cleanEnv, helix, tempGitRepo, type CliResult } from '../helpers/cli.js';

const STUBS = join(REPO_ROOT, 'tests', 'stubs');

/** Flags that keep a test run to the builds: no review, no alignment. */
export const RUN = ['run', '--summary', '--no-auto-review', '--no-auto-align'];

/**
 * A bead several memories look alike for, and three of those memories (learning and recovery
 * tests). The memories name the bead's file, so they pass the relevance gate, and the bead's text
 * names their situations, so feedback counts them as about it (src/memory/match.ts).
 */
export const WEBHOOK_BEAD = {
  title: 'Repair the payment webhook handler',
  description: 'The payment webhook handler in src/payments/webhook.ts is broken for some users: reports say it breaks on Windows paths, times out under heavy load, and charges retried customers twice.',
  acceptance: 'The payment webhook handler works again.',
};
export const WINDOWS = { trigger: 'Payment webhook handler (src/payments/webhook.ts) breaks on Windows paths', resolution: 'Normalise path separators before comparing them' };
export const LOAD = { trigger: 'Payment webhook handler in src/payments/webhook.ts times out under heavy load', resolution: 'Raise the worker pool size and the request timeout' };
export const TWICE = { trigger: 'Retried payment webhooks charge the customer twice (src/payments/webhook.ts)', resolution: 'Record each webhook event id and skip ids already processed' };

export interface StubResponse {
  when?: string | string[];
  run?: string[][];
  marker?: string;
  waitFor?: string;
  stdout?: string;
  result?: Record<string, unknown>;
  hang?: boolean;
  exit?: number;
}

export interface MemoryCounts {
  helped: number;
  failed: number;
  type: string;
  trigger: string;
}

export class Project {
  readonly root = tempGitRepo('helix-learning-');
  readonly scratch = join(this.root, '.scratch');
  readonly dbPath: string;
  readonly env: NodeJS.ProcessEnv;
  private prompts = 0;

  constructor(env: NodeJS.ProcessEnv = {}) {
    mkdirSync(this.scratch, { recursive: true });
    // the test's own files are not the user's work: DDx's build would refuse a tree they dirtied
    appendFileSync(join(this.root, '.git', 'info', 'exclude'), '.scratch/\n');
    mkdirSync(join(this.root, '.ddx'), { recursive: true });
    this.env = {
      PATH: `${STUBS}:${process.env.PATH}`,
      HELIX_BACKOFF_SLEEP: '0',
      // tests run as root here: like the real claude, the stub refuses its bypass flags as root without it
      IS_SANDBOX: '1',
      HELIX_ALT_AGENT: 'none',
      HELIX_AUTO_ALIGN: '0',
      HELIX_EMBEDDER: 'lexical',
      HELIX_STUB_HELIX: HELIX_BIN,
      HELIX_STUB_LOG: join(this.scratch, 'stub.log'),
      HELIX_STUB_SCRIPT: join(this.scratch, 'script.json'),
      ...env,
    };
    this.dbPath = resolveDbPath(this.root, this.env);
    this.script([]);
  }

  /** The stub's answers for the next run (the queue starts afresh). */
  script(responses: StubResponse[], defaults: Record<string, StubResponse> = {}): void {
    writeFileSync(join(this.scratch, 'script.json'), JSON.stringify({ responses, defaults }));
    const state = join(this.scratch, 'script.json.state');
    if (existsSync(state)) writeFileSync(state, '[]');
  }

  /** A response part that copies the prompt helix handed to execute-bead, for the test to read. */
  keepPrompt(): { run: string[][]; file: string } {
    const file = join(this.scratch, `prompt-${++this.prompts}.md`);
    return { run: [['cp', '.helix/prompts/{{id}}.md', file]], file };
  }

  bead(input: CreateInput & { fields?: Record<string, unknown> }): string {
    const store = new BeadStore(join(this.root, '.ddx'), this.env);
    return store.mutate((draft) => {
      const created = createBead(draft, input, 'hx');
      if (input.fields) draft.change(created.id, (b) => Object.assign(b, input.fields));
      return created.id;
    });
  }

  beads(): Map<string, Bead> {
    return new BeadStore(join(this.root, '.ddx'), this.env).read().byId;
  }

  async remember(...inputs: Array<StoreInput & { helped?: number; failed?: number }>): Promise<string[]> {
    const store = openMemoryStore({ dbPath: this.dbPath, env: this.env, warn: () => undefined });
    try {
      const names: string[] = [];
      for (const { helped, failed, ...input } of inputs) {
        const stored = await store.store({ type: 'pattern', ...input });
        if (stored.status !== 'added') throw new Error(`seeding: ${JSON.stringify(stored)}`);
        if (helped) store.feedback([stored.name], helped);
        if (failed) store.feedback([stored.name], -failed);
        names.push(stored.name);
      }
      return names;
    } finally {
      store.close();
    }
  }

  /** helped/failed of every memory, by name, read straight from the SQLite file. */
  counts(): Record<string, MemoryCounts> {
    const db = new Database(this.dbPath, { readonly: true });
    try {
      const rows = db.prepare('SELECT name, type, trigger, helped, failed FROM memories').all() as Array<MemoryCounts & { name: string }>;
      return Object.fromEntries(rows.map(({ name, ...rest }) => [name, rest]));
    } finally {
      db.close();
    }
  }

  /** A memory's session uses (the Stop hook's UTILIZED names), read straight from the SQLite file. */
  sessionUses(name: string): number {
    const db = new Database(this.dbPath, { readonly: true });
    try {
      return (db.prepare('SELECT session_uses AS n FROM memories WHERE name = ?').get(name) as { n: number }).n;
    } finally {
      db.close();
    }
  }

  helix(args: string[], env: NodeJS.ProcessEnv = {}): CliResult {
    return helix(args, { cwd: this.root, env: { ...this.env, ...env } });
  }

  /** `helix …` in the background, for tests that interrupt it. */
  spawnHelix(args: string[], env: NodeJS.ProcessEnv = {}) {
    const child = spawn(process.execPath, [HELIX_BIN, ...args], { cwd: this.root, env: { ...cleanEnv(), ...this.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    return { child, exited, stderr: () => stderr };
  }

  stubCalls(): Array<{ kind: string; id: string | null; argv: string[] }> {
    const log = join(this.scratch, 'stub.log');
    if (!existsSync(log)) return [];
    return readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  }
}

/** The names on a prompt's `INJECTED: [...]` line; undefined when it has none. */
export function injectedIn(prompt: string): string[] | undefined {
  const line = /^INJECTED: (\[.*\])$/m.exec(prompt);
  return line ? (JSON.parse(line[1]!) as string[]) : undefined;
}
