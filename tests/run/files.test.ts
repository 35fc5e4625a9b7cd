// The files a run leaves (contract §5, §9): `.helix/context.md` with the queue counts and the
// AGENTS.md Quick Reference, prepended to the implementation prompt; and nothing of the run's
// runtime state visible to git.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Project, bead } from './harness.js';

const git = (cwd: string, ...args: string[]) => spawnSync('git', args, { cwd, encoding: 'utf8' }).stdout;

describe('.helix/context.md', () => {
  it('is written at run start with root, tracker, counts and the Quick Reference, and leads the implementation prompt', () => {
    const p = new Project({ beads: [bead({ id: 'hx-00000001' }), bead({ id: 'hx-00000002', status: 'closed' })] });
    writeFileSync(join(p.root, 'AGENTS.md'), '# Agents\n\n## Quick Reference\n\n- build: `npm run build`\n- test: `npm test`\n\n## Other\n\nnot this\n');
    const r = p.helix(['run', '--summary']);
    expect(r.status).toBe(0);
    const prompt = readFileSync(join(p.root, '.helix', 'prompts', 'hx-00000001.md'), 'utf8');
    expect(prompt.startsWith('# HELIX run context\n')).toBe(true);
    expect(prompt).toContain(`Project root: ${p.root}`);
    expect(prompt).toContain(`Tracker: ${p.beadsFile}`);
    expect(prompt).toMatch(/^Issue counts: ready=\d+, open=\d+, in-progress=\d+, closed=1$/m);
    expect(prompt).toContain('- build: `npm run build`\n- test: `npm test`');
    expect(prompt).not.toContain('not this');
    expect(prompt).toContain('Implementation target: hx-00000001');
    const context = readFileSync(join(p.root, '.helix', 'context.md'), 'utf8');
    expect(context).toContain('Issue counts: ready=1, open=1, in-progress=0, closed=1');
    expect(context).toContain('No epic in focus.');
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
