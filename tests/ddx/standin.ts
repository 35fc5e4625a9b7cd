// Projects whose PATH has a DDx stand-in first (tests/stubs/ddx-0.6.1 or ddx-current), then the
// codex/claude stubs. Black-box: helix finds `ddx` on PATH and asks it which version it is.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import type { Bead } from '../../src/tracker/index.js';
import { Project, STUBS } from '../run/stub-project.js';

export type DdxVersion = '0.6.1' | 'current';
export const VERSIONS: DdxVersion[] = ['0.6.1', 'current'];

export const standinDir = (version: DdxVersion) => resolve(STUBS, `ddx-${version}`);

export function ddxProject(version: DdxVersion, beads: Bead[], script: object = { responses: [] }, env: NodeJS.ProcessEnv = {}): Project {
  const p = new Project({ beads, script, env: { PATH: `${standinDir(version)}:${STUBS}:${process.env.PATH ?? ''}`, ...env } });
  // the tracker is committed, as in a real project (DDx commits it itself before execute-bead)
  spawnSync('git', ['add', '.ddx/beads.jsonl'], { cwd: p.root });
  spawnSync('git', ['commit', '-q', '-m', 'tracker'], { cwd: p.root });
  return p;
}

/** Runs the stand-in directly (as a person or a script would). */
export function ddx(version: DdxVersion, p: Project, args: string[], input = '') {
  const r = spawnSync(resolve(standinDir(version), 'ddx'), args, { cwd: p.root, env: { ...process.env, ...p.env }, encoding: 'utf8', input });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Beads the stand-in really worked (one `worked` log line per execution), by id. */
export function worked(p: Project): string[] {
  return p.calls().filter((c) => c.kind === 'worked').map((c) => c.id ?? '');
}
