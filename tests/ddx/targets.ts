// The two targets the DDx scenario table (scenarios.ts) runs against: the stand-ins of DDx v0.6.1
// and current DDx (tests/stubs/ddx-*, inside `npm test`), and the real `ddx` binaries named in
// HELIX_TEST_DDX (`npm run test:ddx`), which run tests/ddx/agent/claude — a stand-in agent, never a
// model. Both give a scenario the same project: a git repository with DDx's files committed, the
// stub script and call log in a scratch folder beside it, and the real `helix` on PATH.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, join, resolve } from 'node:path';
import { detectDdx, forgetDdxProbes } from '../../src/agents/index.js';
import type { Bead } from '../../src/tracker/index.js';
import { Project, STUBS } from '../run/stub-project.js';
import { type DdxVersion, standinDir } from './standin.js';

export type { DdxVersion } from './standin.js';

/** The commit each DDx version is (stand-ins) or was built from (real binaries, docs/ddx.md). */
export const DDX_COMMITS: Record<DdxVersion, string> = { '0.6.1': '93be5c8cb2', current: 'ae663ca012' };

export const AGENT_DIR = resolve(import.meta.dirname, 'agent');

export interface DdxTarget {
  kind: 'stand-in' | 'real';
  version: DdxVersion;
  /** How the target names itself in test titles. */
  label: string;
  /** A project with these beads, this stub script, and its tracker committed as DDx expects. */
  project(beads: Bead[], script?: object): Project;
}

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

/** Environment both targets share: claude as the harness, a model (current DDx's routing needs one), no alternation. */
const COMMON_ENV = { HELIX_AGENT: 'claude', HELIX_MODEL: 'sonnet', HELIX_ALT_AGENT: 'none', HELIX_REVIEW_AGENT: 'claude', DDX_DISABLE_UPDATE_CHECK: '1' };

export function standinTarget(version: DdxVersion): DdxTarget {
  return {
    kind: 'stand-in',
    version,
    label: `stand-in ${version} (${DDX_COMMITS[version]})`,
    project(beads, script = { responses: [] }) {
      const p = new Project({ beads, script, env: { ...COMMON_ENV, PATH: `${standinDir(version)}:${STUBS}:${process.env.PATH ?? ''}` } });
      git(p.root, 'add', '-A');
      git(p.root, 'commit', '-q', '-m', 'tracker');
      return p;
    },
  };
}

/**
 * HELIX_TEST_DDX: real `ddx` binaries, separated by `:` (as PATH is). Each entry is a binary or a
 * folder holding `ddx`. helix itself says which version each is (`ddx version --no-check`).
 */
export function realBinaries(value = process.env.HELIX_TEST_DDX ?? ''): string[] {
  return value.split(delimiter).map((entry) => entry.trim()).filter(Boolean).map((entry) => {
    const path = resolve(entry);
    return statSync(path).isDirectory() ? join(path, 'ddx') : path;
  });
}

/** A folder whose `ddx` is this binary (helix looks for `ddx` on PATH). */
function ddxFolder(binary: string): string {
  if (basename(binary) === 'ddx') return resolve(binary, '..');
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'helix-ddx-bin-')));
  symlinkSync(binary, join(dir, 'ddx'));
  return dir;
}

export async function realTarget(binary: string): Promise<DdxTarget> {
  const folder = ddxFolder(binary);
  forgetDdxProbes();
  const install = await detectDdx({ PATH: folder, DDX_DISABLE_UPDATE_CHECK: '1', HOME: tmpdir() }, tmpdir());
  if (!install?.surface) throw new Error(`HELIX_TEST_DDX: ${binary} is not a DDx helix drives (${install?.version ?? 'no version'})`);
  const version: DdxVersion = install.surface === 'agent' ? '0.6.1' : 'current';
  return {
    kind: 'real',
    version,
    label: `real ddx ${install.version} (${binary})`,
    project(beads, script = { responses: [] }) {
      const home = realpathSync(mkdtempSync(join(tmpdir(), 'helix-ddx-home-')));
      const p = new Project({ beads, script, env: { ...COMMON_ENV, HOME: home, PATH: `${folder}:${AGENT_DIR}:${STUBS}:${process.env.PATH ?? ''}` } });
      const env = { ...process.env, ...p.env };
      // DDx's own project files (config, .gitignore, AGENTS.md, skills), committed as a user would
      spawnSync(join(folder, 'ddx'), ['init', '--silent', '--skip-claude-injection', '--no-git'], { cwd: p.root, env, encoding: 'utf8' });
      spawnSync(join(folder, 'ddx'), ['bead', 'list'], { cwd: p.root, env, encoding: 'utf8' });
      git(p.root, 'add', '-A');
      git(p.root, 'commit', '-q', '-m', 'DDx project');
      return p;
    },
  };
}

/** Runs this DDx directly in the project (as a person or a script would). */
export function ddxIn(p: Project, args: string[]) {
  const r = spawnSync('ddx', args, { cwd: p.root, env: { ...process.env, ...p.env }, encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export function gitIn(p: Project, ...args: string[]): string {
  return git(p.root, ...args);
}

/** A bare `origin` for the project, its default branch pushed and origin/HEAD set, as after a clone. */
export function addOrigin(p: Project): string {
  const bare = join(p.scratch, 'origin.git');
  mkdirSync(bare);
  git(bare, 'init', '-q', '--bare', '-b', 'main');
  git(p.root, 'remote', 'add', 'origin', bare);
  git(p.root, 'push', '-q', '-u', 'origin', 'main');
  git(p.root, 'remote', 'set-head', 'origin', 'main');
  return bare;
}

/** The prompts DDx's agent got for executions, by bead id (the stand-in DDx logs its prompt as stdin). */
export function agentPrompts(p: Project, id: string): string[] {
  return p.calls().filter((c) => c.id === id && (c.kind === 'execute' || c.kind === 'try' || c.kind === 'execute-bead')).map((c) => (c.kind === 'execute' ? (c.argv[c.argv.length - 1] ?? '') : c.stdin));
}

/** Beads DDx's agent really worked (a `worked` line per execution), by id. */
export function workedIds(p: Project): string[] {
  return p.calls().filter((c) => c.kind === 'worked').map((c) => c.id ?? '');
}
