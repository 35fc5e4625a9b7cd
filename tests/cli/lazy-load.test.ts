// A command pays only for what it uses (issue 23): src/cli/command-list.ts loads one command file,
// and that file loads its library lazily. Checked on the built CLI by recording every module a
// real `helix` process resolves (a structural check; the time it saves is in `npm run bench`).
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
  it('status --json loads its own command file and library, not commander, the other commands, the agent runner or SQLite', () => {
    const loaded = modulesLoadedBy(['status', '--json']);
    expect(loaded).toContain('dist/cli/commands/status.js');
    const commandFiles = loaded.filter((m) => m.startsWith('dist/cli/commands/'));
    expect(commandFiles).toEqual(['dist/cli/commands/status.js']);
    // execa (the agent runner) and better-sqlite3 (the memory store): neither is needed to report
    // status; nor is commander, for a command line this plain (src/cli/plain.ts)
    expect(loaded.filter((m) => /node_modules\/(execa|better-sqlite3|commander)\//.test(m))).toEqual([]);
  });

  it('a tracker command loads the tracker wiring only', () => {
    const loaded = modulesLoadedBy(['tracker', 'status', '--json']);
    expect(loaded.filter((m) => m.startsWith('dist/cli/commands/'))).toEqual(['dist/cli/commands/tracker.js']);
    // of the supervisor, only what the entry itself uses: the stream guard and the usage lines
    expect(loaded.filter((m) => m.startsWith('dist/supervisor/')).sort()).toEqual(['dist/supervisor/shell/interrupts.js', 'dist/supervisor/text/lines.js']);
  });
});
