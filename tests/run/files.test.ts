// The files a run leaves (docs/contract/cli.md §5, §9): `.helix/context.md` with the queue counts and the
// AGENTS.md Quick Reference, prepended to the implementation prompt; and nothing of the run's
// runtime state visible to git.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Project } from './stub-project.js';
import { bead } from '../helpers/bead.js';

const git = (cwd: string, ...args: string[]) => spawnSync('git', args, { cwd, encoding: 'utf8' }).stdout;

describe('.helix/context.md (docs/contract/bash-interface.md §12.1)', () => {
  it('is written at run start with the Bash headers, the Quick Reference bash block, and leads the implementation prompt', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001' }), bead({ id: 'hx-00000002', status: 'closed' })] });
    writeFileSync(
      join(p.root, 'AGENTS.md'),
      '# Agents\n\n## Quick reference\n\nRun these:\n\n```bash\nnpm run build\nnpm test\n```\n\n```bash\nnot this block\n```\n',
    );
    git(p.root, 'add', 'AGENTS.md'); // committed, as a project's AGENTS.md is (DDx refuses a build over uncommitted changes)
    git(p.root, 'commit', '-q', '-m', 'agents');
    const r = p.helix(['run', '--summary']);
    expect(r.status).toBe(0);
    const context = readFileSync(join(p.root, '.helix', 'context.md'), 'utf8');
    const head = [
      '# HELIX Execution Context',
      '',
      `Project root: ${p.root}`,
      `Tracker: ${p.beadsFile}`,
      'Issue counts: ready=1, open=1, in-progress=0, closed=1',
      '',
      '## Build/Test Commands',
      '',
      '```bash',
      'npm run build',
      'npm test',
      '```',
      '',
      '## Key Rules',
      '',
    ].join('\n');
    expect(context.startsWith(head)).toBe(true);
    expect(context).not.toContain('not this block');
    expect(context).not.toContain('## Current Epic');
    const prompt = readFileSync(join(p.root, '.helix', 'prompts', 'hx-00000001.md'), 'utf8');
    expect(prompt.startsWith('# HELIX Execution Context\n')).toBe(true);
    expect(prompt).toContain('Issue counts: ready=1, open=1, in-progress=0, closed=1\n');
    // the context block ends with an empty line and `---`, then the action's first line (§1.1)
    expect(prompt).toMatch(/\n\n---\nExecute the following HELIX implementation action\.\n/);
    expect(prompt).toContain('Implementation target: hx-00000001.\n');
    // execute-bead: helix claims and closes, so the agent is told neither to claim nor to close (docs/contract/bash-interface.md §19, item 10)
    expect(prompt).toContain(`Issue tracker: built-in JSONL at ${p.beadsFile} (legacy: .ddx/issues.jsonl). Use \`ddx bead ready --json\`, \`ddx bead show <id>\`.\n`);
    expect(prompt).toContain(
      'Concurrency rule: helix has claimed the selected issue for this session and closes it after verifying your work; do not claim or close it. If tracker metadata drifted materially, stop and say so instead of working from stale assumptions.\n',
    );
    expect(prompt).toContain(`Session log: ${String(p.runState().log)}\n`);
  });

  it('names the focused epic under Current Epic, with Spec and Acceptance only when set', () => {
    const p = new Project({
      beads: [bead({ id: 'hx-000000e1', issue_type: 'epic', title: 'The epic', 'spec-id': 'FEAT-7' }), bead({ id: 'hx-000000c1', parent: 'hx-000000e1' }), bead({ id: 'hx-000000c2', parent: 'hx-000000e1' })],
    });
    const r = p.helix(['run', '--summary', '--max-cycles', '1']);
    expect(r.status).toBe(0);
    const prompt = readFileSync(join(p.root, '.helix', 'prompts', 'hx-000000c1.md'), 'utf8');
    expect(prompt).toContain('## Current Epic\n\nID: hx-000000e1\nTitle: The epic\nSpec: FEAT-7\n\n## Key Rules\n');
    expect(prompt).not.toContain('Acceptance:');
  });
});

describe('runtime files and git', () => {
  it('after a run, git sees only the tracker change: no logs, pid, run-state or prompts', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001' })] });
    git(p.root, 'add', '.ddx/beads.jsonl');
    git(p.root, 'commit', '-q', '-m', 'beads');
    const r = p.helix(['run', '--summary']);
    expect(r.status).toBe(0);
    expect(git(p.root, 'status', '--porcelain', '--untracked-files=all')).toBe(' M .ddx/beads.jsonl\n');
  });
});
