// The supervisor's three folders keep their promises (docs/code-map.md): `core/` decides and
// `text/` words without any I/O, and neither reaches into `shell/`, which performs the effects.
// Checked on the source with the TypeScript parser: every import a core or text file makes at run
// time is followed, transitively, through src/, and the walk fails at the first module that is
// not pure. Pure means: a module of src/ whose own imports are pure, or one of the Node modules
// that only compute (PURE_BUILTINS). Anything else — node:fs, node:child_process, node:os,
// node:crypto, node:timers, any npm package (execa, better-sqlite3, commander) — performs I/O or
// reads the machine. Type-only imports are erased by the compiler and load nothing, so the walk
// does not follow them; a type from shell/ is still refused (the core must not depend on it).
// The runner — the loop and what it performs — is held to RUNNER_MAX_LINES: it grew from 810 to
// 1,089 lines once; its effects have their own files in shell/ now (attempt, queue, drain, …).
// And no two files of src/ import each other, directly or round a loop, even for types only.
// core/ and text/ read no globals either (issue 40): no `process` — its environment, its streams,
// its pid — and no clock (`new Date()`, `Date.now()`, `performance.now()`), defaults included; the
// shell hands them in.
// And the shape of src/ (issue 40): no function over 80 lines, measured as
// scripts/largest-functions.mjs measures them; the shell no more than 8 files deep, type imports
// counted (scripts/import-depth.mjs: 11 when the run's context built the attempt's ports); a
// program started only by the module that owns it — git by shell/git.ts alone, ddx and the agents
// by agents/run-agent.ts.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { deepestChain } from '../../scripts/import-depth.mjs';
import { measure } from '../../scripts/largest-functions.mjs';
import { importsOf, target } from '../helpers/imports.js';

const REPO = resolve(import.meta.dirname, '../..');
const SUPERVISOR = join(REPO, 'src/supervisor');

/** Node modules that only compute on their arguments: path and URL strings. */
const PURE_BUILTINS = new Set(['node:path', 'node:url']);

const RUNNER_MAX_LINES = 400;
/** No source file above this (issue 32): core/machine.ts had grown to 633 lines. */
const FILE_MAX_LINES = 500;
/** No function above this (issue 40): runAgentInvocation had 156 lines, registerBeadCommands 116, the attempt's steps 111. */
const FUNCTION_MAX_LINES = 80;
/** The longest chain of imports through shell/, type-only ones counted (issue 40: 11 when run-context.ts named the attempt's port type). */
const SHELL_MAX_DEPTH = 8;

const inShell = (module: string) => module.startsWith(join(SUPERVISOR, 'shell') + '/');
const shown = (module: string) => (module.startsWith('/') ? relative(REPO, module) : module);

/**
 * Follows `file`'s run-time imports through src/ and returns, for each module that breaks the
 * rule (not pure, or in shell/), the chain of imports that reached it.
 */
function impureReach(file: string): string[] {
  const parent = new Map<string, string | undefined>([[file, undefined]]);
  const pending = [file];
  const broken: string[] = [];
  while (pending.length > 0) {
    const module = pending.pop() as string;
    for (const { specifier, typeOnly } of importsOf(module)) {
      const reached = target(module, specifier);
      if (typeOnly || parent.has(reached)) continue;
      parent.set(reached, module);
      const pure = reached.startsWith('/') ? !inShell(reached) : PURE_BUILTINS.has(reached);
      if (!pure) broken.push(reached);
      else if (reached.startsWith('/')) pending.push(reached);
    }
  }
  return broken.map((module) => {
    const chain: string[] = [];
    for (let at: string | undefined = module; at !== undefined; at = parent.get(at)) chain.unshift(shown(at));
    return chain.join(' → ');
  });
}

/** The type-only imports of `file` that name a module in shell/. */
function shellTypes(file: string): string[] {
  return importsOf(file)
    .filter(({ specifier, typeOnly }) => typeOnly && inShell(target(file, specifier)))
    .map(({ specifier }) => `${shown(file)} → ${specifier}`);
}

/**
 * Where a file names a global the shell must hand in: `process` (its env, pid, streams) or the clock
 * (`new Date()` without arguments, `Date.now()`, `performance.now()`). Read from its syntax tree,
 * so comments and strings never count.
 */
function globalsNamed(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node, what: string) => found.push(`${shown(file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${what}`);
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && node.text === 'process' && !(ts.isPropertyAccessExpression(node.parent) && node.parent.name === node)) at(node, 'process');
    if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'Date' && (node.arguments?.length ?? 0) === 0) at(node, 'new Date()');
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && ts.isIdentifier(node.expression.expression)) {
      const call = `${node.expression.expression.text}.${node.expression.name.text}`;
      if (call === 'Date.now' || call === 'performance.now') at(node, `${call}()`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const sources = (folder: string) =>
  readdirSync(join(SUPERVISOR, folder))
    .filter((name) => name.endsWith('.ts'))
    .map((name) => join(SUPERVISOR, folder, name));

const pureFiles = [...sources('core'), ...sources('text')];

describe('the supervisor’s layers', () => {
  it('has core and text files to check', () => {
    expect(sources('core').length).toBeGreaterThan(5);
    expect(sources('text').length).toBeGreaterThan(1);
  });

  it.each(pureFiles.map((file) => [shown(file), file]))('%s reaches no I/O and nothing in shell/, at any depth', (_name, file) => {
    // one chain of imports a line, so a failure shows the way to each module that breaks the rule
    expect(impureReach(file).join('\n')).toBe('');
    expect(shellTypes(file).join('\n')).toBe('');
  });

  it.each(pureFiles.map((file) => [shown(file), file]))('%s reads no globals: no process, no clock (the shell hands them in)', (_name, file) => {
    expect(globalsNamed(file).join('\n')).toBe('');
  });

  it('the globals check sees them where they are: the shell reads the environment and the clock', () => {
    expect(globalsNamed(join(SUPERVISOR, 'shell/run.ts')).some((g) => g.endsWith(' process'))).toBe(true);
    expect(globalsNamed(join(SUPERVISOR, 'shell/run-context.ts')).some((g) => g.endsWith('new Date()'))).toBe(true);
  });

  it('the walk sees I/O and shell/ where they are: through the index files, and from the runner', () => {
    const ends = (file: string, module: string) => impureReach(join(REPO, file)).some((chain) => chain.endsWith(module));
    expect(ends('src/tracker/index.ts', 'node:fs')).toBe(true);
    expect(ends('src/agents/index.ts', 'execa')).toBe(true);
    expect(ends('src/supervisor/shell/runner.ts', 'src/supervisor/shell/attempt.ts')).toBe(true);
  });

  it(`the runner stays at ${RUNNER_MAX_LINES} lines or fewer`, () => {
    const text = readFileSync(join(SUPERVISOR, 'shell/runner.ts'), 'utf8');
    expect(text.split('\n').length - (text.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(RUNNER_MAX_LINES);
  });

  it(`no file in src/ is over ${FILE_MAX_LINES} lines`, () => {
    const files = (readdirSync(join(REPO, 'src'), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
    const long = files.map((f) => ({ f, n: readFileSync(join(REPO, 'src', f), 'utf8').split('\n').length - 1 })).filter(({ n }) => n > FILE_MAX_LINES);
    expect(long).toEqual([]);
  });

  it('src/ has no import loop, type-only imports included (issue 32: RunContext ↔ HeldClaims was one)', () => {
    expect(importLoops()).toEqual([]);
  });

  it(`no function in src/ is over ${FUNCTION_MAX_LINES} lines (scripts/largest-functions.mjs measures them)`, () => {
    const long = measure(join(REPO, 'src')).functions.filter((f) => f.lines > FUNCTION_MAX_LINES);
    expect(long.map((f) => `${f.name} ${f.lines} (${shown(f.file)}:${f.line})`)).toEqual([]);
  });

  it(`the shell is at most ${SHELL_MAX_DEPTH} files deep, type imports counted (scripts/import-depth.mjs; 11 before issue 40)`, () => {
    const chain = deepestChain({ from: join(SUPERVISOR, 'shell'), within: join(SUPERVISOR, 'shell'), types: true });
    expect(chain.length, chain.join(' → ')).toBeLessThanOrEqual(SHELL_MAX_DEPTH);
    // the measure sees the chain where it is: the run's entry through the runner
    expect(chain.slice(0, 2).map((f) => relative(SUPERVISOR, resolve(f)))).toEqual(['shell/build.ts', 'shell/runner.ts']);
  });

  it('a program is started only by the module that owns it: git by shell/git.ts, agents and ddx by agents/run-agent.ts', () => {
    expect(processStarters()).toEqual(Object.keys(PROCESS_STARTERS).sort());
    expect(gitStarted().join('\n')).toBe('');
  });
});

/**
 * The modules that load node:child_process or execa — each the one home of the programs it starts.
 * Any other module reaches a program through them (tracker/lock.ts loads node:child_process for
 * flock through its own lazy loader, not an import).
 */
const PROCESS_STARTERS: Record<string, string> = {
  'src/agents/run-agent.ts': 'every agent call, ddx and the verify command included',
  'src/agents/process-group.ts': 'the watchdog that stops an agent group when helix dies',
  'src/supervisor/shell/git.ts': 'git',
  'src/supervisor/shell/background.ts': '`helix start`: helix run, detached',
  'src/supervisor/shell/notify.ts': 'HELIX_NOTIFY',
  'src/supervisor/shell/doctor.ts': "the tools' --version",
  'src/installer/install-script.ts': 'the install script',
};

const srcFiles = () => (readdirSync(join(REPO, 'src'), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => join(REPO, 'src', f));

/** The src/ files that import node:child_process or execa (statically or with `import()`). */
function processStarters(): string[] {
  return srcFiles()
    .filter((file) => importsOf(file).some(({ specifier, typeOnly }) => !typeOnly && (specifier === 'node:child_process' || specifier === 'execa')))
    .map(shown)
    .sort();
}

/** Where a file outside shell/git.ts names git as the program to run: the first argument of a call, or an AgentInvocation's `file`. */
function gitStarted(): string[] {
  const found: string[] = [];
  for (const file of srcFiles().filter((f) => shown(f) !== 'src/supervisor/shell/git.ts')) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const isGit = (node: ts.Node | undefined) => node !== undefined && ts.isStringLiteral(node) && node.text === 'git';
    const visit = (node: ts.Node): void => {
      const program = ts.isCallExpression(node) ? node.arguments[0] : ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && node.name.text === 'file' ? node.initializer : undefined;
      if (isGit(program)) found.push(`${shown(file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

/** Every loop of imports among src/'s files, each once, as the chain of its files. */
function importLoops(): string[] {
  const files = (readdirSync(join(REPO, 'src'), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).map((f) => join(REPO, 'src', f));
  const edges = new Map(files.map((f) => [f, importsOf(f).filter((i) => i.specifier.startsWith('.')).map((i) => target(f, i.specifier))]));
  const loops = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    path.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === 'open') loops.add(path.slice(path.indexOf(next)).map(shown).join(' → '));
      else if (!state.has(next) && edges.has(next)) visit(next);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return [...loops];
}
