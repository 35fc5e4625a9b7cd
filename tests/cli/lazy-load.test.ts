// A command pays only for what it uses (issue 23): src/cli/command-list.ts loads one command file,
// and that file loads its library lazily; the plain commands run from one bundled module
// (scripts/bundle.mjs). Checked on the built CLI by recording every module a real `helix` process
// resolves (a structural check; the time it saves is in `npm run bench`).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, HELIX_BIN, REPO_ROOT, tempDir, tempGitRepo } from '../helpers/cli.js';

function modulesLoadedBy(args: string[]): string[] {
  const cwd = tempGitRepo();
  const trace = join(tempDir(), 'modules.txt');
  const r = spawnSync(process.execPath, ['--import', join(REPO_ROOT, 'tests/cli/fixtures/trace-modules.mjs'), HELIX_BIN, ...args], {
    cwd,
    env: { ...cleanEnv(), TRACE_MODULES: trace },
    encoding: 'utf8',
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return [...new Set(readFileSync(trace, 'utf8').split('\n').filter(Boolean))].map((url) => url.replace(`file://${REPO_ROOT}/`, ''));
}

describe('lazy command loading', () => {
  it('status --json loads the plain-path bundle and the shared errors module, not commander, the other commands, the agent runner or SQLite', () => {
    const loaded = modulesLoadedBy(['status', '--json']);
    // one bundled module (scripts/bundle.mjs) and the one module it shares with dist/, nothing
    // else of helix's, and no package: execa (the agent runner) and better-sqlite3 (the memory
    // store) are not needed to report status; nor is commander, for a command line this plain
    expect(loaded.filter((m) => !m.startsWith('node:')).sort()).toEqual(['bin/helix', 'dist/errors.js', 'dist/fast/plain.js']);
  });

  it('the bundle holds the plain commands and their libraries, with a source map back to src/', () => {
    const map = JSON.parse(readFileSync(join(REPO_ROOT, 'dist/fast/plain.js.map'), 'utf8')) as { sources: string[]; sourcesContent: string[] };
    const sources = map.sources.map((s) => s.replace(/^(\.\.\/)+/, ''));
    expect(sources.filter((s) => s.startsWith('src/cli/commands/')).sort()).toEqual(['src/cli/commands/next.ts', 'src/cli/commands/status.ts']);
    expect(sources).toContain('src/tracker/read.ts');
    // the memory store and the agent runner stay in dist/, imported only when a project needs them
    expect(sources.filter((s) => s.includes('node_modules') || s === 'src/memory/index.ts' || s === 'src/agents/run-agent.ts' || s === 'src/errors.ts')).toEqual([]);
    expect(map.sourcesContent.every((text) => text.length > 0)).toBe(true);
    expect(readFileSync(join(REPO_ROOT, 'dist/fast/plain.js'), 'utf8')).toMatch(/\/\/# sourceMappingURL=plain\.js\.map\n$/);
  });

  it('a tracker command loads the tracker wiring only', () => {
    const loaded = modulesLoadedBy(['tracker', 'status', '--json']);
    expect(loaded.filter((m) => m.startsWith('dist/cli/commands/'))).toEqual(['dist/cli/commands/tracker.js']);
    // of the supervisor, only what the entry itself uses: the stream guard and the usage lines
    expect(loaded.filter((m) => m.startsWith('dist/supervisor/')).sort()).toEqual(['dist/supervisor/shell/interrupts.js', 'dist/supervisor/text/lines.js']);
  });
});
