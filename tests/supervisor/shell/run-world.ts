// A run's context (shell/run-context.ts RunContext) over a stub project, for the tests beside the
// effect families that take one (queue.ts, drain.ts, recovery.ts, run-end.ts, agent-call.ts): the
// session prepared as `helix run` prepares it, real agent programs (the stubs of tests/stubs, with a
// per-test script) started as child processes, and the real SessionOutput writing its session log
// with its stderr and stdout recorded instead of printed.
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { type SupervisorSettings, defaultSettings } from '../../../src/supervisor/core/policy.js';
import type { MemoryPort } from '../../../src/supervisor/shell/memory-port.js';
import { type OutputMode, SessionOutput } from '../../../src/supervisor/shell/output.js';
import { RunContext } from '../../../src/supervisor/shell/run-context.js';
import { RunRecord } from '../../../src/supervisor/shell/run-record.js';
import { prepareSession } from '../../../src/supervisor/shell/agent-setup.js';
import type { Bead } from '../../../src/tracker/index.js';
import { Project, STUBS } from '../../run/stub-project.js';

export interface RunWorldOptions {
  beads?: Bead[];
  /** The stubs' script (tests/stubs/README.md). */
  script?: object;
  /** The agent programs on PATH (default: codex alone, so every call goes to codex directly). */
  programs?: Array<'codex' | 'claude'>;
  settings?: Partial<SupervisorSettings>;
  mode?: OutputMode;
  memory?: MemoryPort;
  now?: () => Date;
  /** Write the run's events to `<log>.events.ndjson` beside the session log. */
  events?: boolean;
}

export interface RunWorld {
  project: Project;
  run: RunContext;
  output: SessionOutput;
  /** What went to stderr and stdout, line by line. */
  stderr: string[];
  stdout: string[];
}

/** The stub project with only these agent programs on PATH (no DDx): every call goes to them directly. */
export function agentProject(options: Pick<RunWorldOptions, 'beads' | 'script' | 'programs'> = {}): Project {
  const project = new Project({ beads: options.beads ?? [], script: options.script ?? { responses: [] } });
  const bin = join(project.scratch, 'bin');
  mkdirSync(bin);
  for (const program of options.programs ?? ['codex']) symlinkSync(join(STUBS, program), join(bin, program));
  project.env.PATH = `${bin}:/usr/bin:/bin`;
  return project;
}

export async function runWorld(options: RunWorldOptions = {}): Promise<RunWorld> {
  const project = agentProject(options);
  const session = await prepareSession(project.root, project.env, {});
  const stderr: string[] = [];
  const stdout: string[] = [];
  const lines = (into: string[]) => (text: string) => void into.push(...text.replace(/\n$/, '').split('\n'));
  const output = new SessionOutput(project.root, options.mode ?? 'normal', new Date(), lines(stderr), lines(stdout));
  const now = options.now ?? (() => new Date());
  const record = options.events ? new RunRecord(output.logName.replace(/\.log$/, '.events.ndjson'), 'helix-test', project.env, project.root, now, () => undefined) : undefined;
  const run = new RunContext({
    ...session,
    env: project.env,
    settings: { ...defaultSettings(project.env), ...options.settings },
    output,
    now,
    ...(options.memory ? { memory: options.memory } : {}),
    ...(record ? { record } : {}),
  });
  return { project, run, output, stderr, stdout };
}
