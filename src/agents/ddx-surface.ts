// Which DDx is installed, asked once per run. DDx changed its command tree under helix:
//   - v0.6.0 – v0.6.2-alpha49: `ddx agent execute-bead` (runs one bead, leaves claim and close to
//     the caller), `ddx agent run` (a prompt through a harness), `ddx agent execute-loop` (DDx
//     picks, claims and closes its own beads; gone from alpha27, 2ed932f0b2).
//   - v0.6.2-alpha50 and later: the `ddx agent` group is gone (ff517d81c4); `ddx try <id>` runs one
//     named bead and claims and closes it itself, `ddx run` takes `ddx agent run`'s flags, and
//     `ddx work` drains the queue (it cannot be pointed at one bead; `ddx try` is its one-bead form).
// One cheap call — `ddx version --no-check` (no update check, no project version check: DDx skips both for
// `version`) — names the version; the version names the surface. A build whose version says
// nothing (`v0.0.1-dev`) gets one more look: the command list of `ddx --help`.
import { HelixError } from '../errors.js';
import { type DdxSurfaceKind, parseDdxVersion, surfaceOfVersion } from '../ddx-version.js';
import { findOnPath } from './discovery.js';

export { parseDdxVersion, surfaceOfVersion };
export type { DdxSurfaceKind };

export interface DdxInstall {
  path: string;
  /** As DDx prints it (`v0.6.1`), or undefined when it printed none. */
  version: string | undefined;
  /** undefined: a DDx helix cannot drive (too old, or it answered nothing helix understands). */
  surface: DdxSurfaceKind | undefined;
  /** Why it is unsupported, for the one line helix prints. */
  unsupported?: string;
}

/** The commands each surface offers, for messages, `doctor` and the docs table. */
export const SURFACE_COMMANDS: Record<DdxSurfaceKind, { build: string; run: string; loop: string }> = {
  agent: { build: 'ddx agent execute-bead', run: 'ddx agent run', loop: 'none (execute-loop picks its own bead)' },
  current: { build: 'ddx try', run: 'ddx run', loop: 'ddx try (the one-bead form of ddx work)' },
};

export const SUPPORTED_DDX = 'v0.6.0–v0.6.1 (ddx agent …) and v0.6.2-alpha50 or later (ddx try/run/work)';

/** The `Available Commands:` of a cobra help text. */
export function helpCommands(help: string): Set<string> {
  const names = new Set<string>();
  let inList = false;
  for (const line of help.split('\n')) {
    if (/^[A-Z][A-Za-z ]*Commands:\s*$/.test(line)) {
      inList = true;
      continue;
    }
    if (inList && /^\S/.test(line)) inList = false;
    const name = inList ? /^\s{2}(\S+)\s/.exec(line)?.[1] : undefined;
    if (name) names.add(name);
  }
  return names;
}

const PROBE_TIMEOUT_MS = 30_000;
const probes = new Map<string, Promise<DdxInstall | undefined>>();

/** One probe call; undefined when ddx could not be started or the probe was interrupted. */
async function ask(ddx: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<{ exitCode: number; output: string } | undefined> {
  try {
    // Loaded only when a ddx is there to ask: `helix status` and `doctor` without one never pay for execa.
    const { runAgentInvocation } = await import('./run-agent.js');
    const run = await runAgentInvocation({ file: ddx, args, cwd, env: { DDX_DISABLE_UPDATE_CHECK: '1' } }, { env, timeoutMs: PROBE_TIMEOUT_MS, killGraceMs: 1000, signal });
    if (run.aborted) return undefined;
    return { exitCode: run.exitCode, output: run.stdout };
  } catch (error) {
    if (error instanceof HelixError) return undefined;
    throw error;
  }
}

async function probe(ddx: string, cwd: string, env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<DdxInstall> {
  const answer = await ask(ddx, ['version', '--no-check'], cwd, env, signal);
  const versionLine = answer?.output.split('\n').find((l) => l.startsWith('DDx '))?.trim();
  const versionText = versionLine?.replace(/^DDx /, '');
  const version = answer?.exitCode === 0 && versionLine ? parseDdxVersion(versionLine) : undefined;
  if (version && !(version.major === 0 && version.minor === 0)) {
    const surface = surfaceOfVersion(version);
    return surface ? { path: ddx, version: versionText, surface } : { path: ddx, version: versionText, surface: undefined, unsupported: 'too old' };
  }
  // A development build (v0.0.1-dev) or an unreadable answer: look at the command tree itself.
  const help = signal?.aborted ? undefined : await ask(ddx, ['--help'], cwd, env, signal);
  const commands = help?.exitCode === 0 ? helpCommands(help.output) : new Set<string>();
  const surface: DdxSurfaceKind | undefined = commands.has('agent') ? 'agent' : commands.has('try') && commands.has('run') ? 'current' : undefined;
  return surface
    ? { path: ddx, version: versionText, surface }
    : { path: ddx, version: versionText, surface: undefined, unsupported: answer ? 'it has neither `ddx agent` nor `ddx try`' : 'it did not answer `ddx version`' };
}

/**
 * The DDx on PATH and its surface, asked once per process for each binary and folder; undefined:
 * no ddx. Aborting `signal` (an interrupted run) stops a probe that hangs; that answer is not kept.
 */
export function detectDdx(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd(), signal?: AbortSignal): Promise<DdxInstall | undefined> {
  const ddx = findOnPath('ddx', env);
  if (!ddx) return Promise.resolve(undefined);
  const key = `${ddx}\0${cwd}`;
  let found = probes.get(key);
  if (!found) {
    found = probe(ddx, cwd, env, signal).then((install) => {
      if (signal?.aborted) probes.delete(key);
      return install;
    });
    probes.set(key, found);
  }
  return found;
}

/** Forgets cached answers (tests that swap the ddx on PATH). */
export function forgetDdxProbes(): void {
  probes.clear();
}

/** One line saying which DDx was found, for `doctor`, `status` and the run log. */
export function describeDdx(install: DdxInstall | undefined): string {
  if (!install) return 'not on PATH';
  const version = install.version ?? 'unknown version';
  if (!install.surface) return `${version} at ${install.path}: not supported (${install.unsupported}); helix calls codex/claude directly`;
  const c = SURFACE_COMMANDS[install.surface];
  return `${version} at ${install.path}: builds via \`${c.build}\`, actions via \`${c.run}\``;
}
