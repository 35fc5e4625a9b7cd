// What is installed: programs on PATH, and whether this ddx has managed execution
// (`ddx agent execute-bead --help` exits 0, contract §8 — an older DDx does not).
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { runAgentCommand } from './runner.js';
import { HelixError } from '../errors.js';

/** Absolute path of an executable `name` on env.PATH, or undefined. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (name.includes('/')) return isExecutableFile(name) ? resolve(name) : undefined;
  for (const folder of (env.PATH ?? '').split(delimiter)) {
    if (!folder || !isAbsolute(folder)) continue; // a relative PATH entry would depend on cwd
    const candidate = join(folder, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The probe gets its own short limit: `--help` answers at once or not at all. */
const PROBE_TIMEOUT_MS = 30_000;
const probes = new Map<string, Promise<boolean>>();

/**
 * Whether `ddx agent execute-bead --help` succeeds. Asked once per process for each ddx binary
 * (and folder): the answer cannot change during a run. Aborting `signal` (an interrupted run)
 * stops a probe that hangs; its answer is then false and not remembered.
 */
export function ddxExecuteBeadAvailable(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd(), signal?: AbortSignal): Promise<boolean> {
  const ddx = findOnPath('ddx', env);
  if (!ddx) return Promise.resolve(false);
  const key = `${ddx}\0${cwd}`;
  let probe = probes.get(key);
  if (!probe) {
    probe = runAgentCommand(
      { file: ddx, args: ['agent', 'execute-bead', '--help'], cwd, env: {} },
      { env, timeoutMs: PROBE_TIMEOUT_MS, killGraceMs: 1000, signal },
    ).then(
      (run) => {
        if (run.aborted) probes.delete(key);
        return run.exitCode === 0 && !run.aborted;
      },
      (error: unknown) => {
        if (error instanceof HelixError) return false;
        throw error;
      },
    );
    probes.set(key, probe);
  }
  return probe;
}

/** Forgets cached probe answers (tests that swap the ddx on PATH). */
export function forgetDdxProbes(): void {
  probes.clear();
}
