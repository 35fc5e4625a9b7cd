// The guard before any effect (issue 31, item 4): the commands that call agents, run outside a git
// work tree, say what to do in one line and exit 23 — no `.ddx`, `.helix` or `.helix-logs`, no
// agent called, not even the ddx probe. Inside a repository with no beads yet the run does what it
// did (docs/contract/bash-interface.md §2.11) and says so in its first line.
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { helix, tempDir } from '../helpers/cli.js';
import { Project, STUBS, helixLines } from './stub-project.js';

describe('outside a git work tree', () => {
  const COMMANDS = [['run'], ['run', '--summary'], ['run', '--dry-run'], ['build'], ['check'], ['align'], ['polish'], ['review'], ['start']];

  it.each(COMMANDS.map((args) => [args.join(' '), args] as const))('helix %s: one line, exit 23, nothing created, no agent called', (_name, args) => {
    const dir = tempDir('helix-no-repo-');
    const log = join(tempDir('helix-no-repo-log-'), 'calls.jsonl');
    const r = helix(args, { cwd: dir, env: { PATH: `${STUBS}:${process.env.PATH ?? ''}`, HELIX_STUB_LOG: log, IS_SANDBOX: '1' } });
    expect(r.status).toBe(EXIT.notInGitWorkTree);
    expect(r.stderr).toBe(`helix: ${dir} is not inside a git work tree: run helix in your project's repository (or \`git init\` here first); nothing was created and no agent was called\n`);
    expect(r.stdout).toBe('');
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(log)).toBe(false);
  });

  it('a folder below a repository is inside it: the guard lets the run go on', () => {
    const p = new Project({ beads: [] });
    mkdirSync(join(p.root, 'sub'));
    const r = helix(['run', '--dry-run'], { cwd: join(p.root, 'sub'), env: p.env });
    expect(r.status).toBe(0);
  });
});

describe('a repository without beads yet', () => {
  it('the run says first that the backlog is empty and what it will do, then does what it did', () => {
    const p = new Project({ beads: [] });
    const r = p.helix(['run', '--summary']);
    expect(r.status).toBe(0);
    expect(helixLines(r.stderr)[0]).toBe(
      `helix: the backlog is empty (no beads in ${p.beadsFile}): this run only asks the check action what to do next and follows its answer; to have work built, create beads first (helix tracker create "<title>")`,
    );
    expect(p.checkCalls()).toHaveLength(1);
    expect(r.stderr).toContain('helix: stopping after check returned STOP');
  });

  it('a backlog with beads says nothing of the kind', () => {
    const p = new Project({ beads: [] });
    expect(p.helix(['tracker', 'create', 'one']).status).toBe(0);
    expect(p.helix(['run', '--summary', '--max-cycles', '1']).stderr).not.toContain('the backlog is empty');
  });
});
