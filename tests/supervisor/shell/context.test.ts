// `.helix/context.md` (shell/context.ts): the project, the queue counts, AGENTS.md's build and test
// commands, the focused epic and the rules, read from a real project folder and written under
// `.helix/`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ContextSource, contextText, quickReference, renderContext, writeContext } from '../../../src/supervisor/shell/context.js';
import type { Bead } from '../../../src/tracker/index.js';
import { bead } from '../../helpers/bead.js';
import { tempDir } from '../../helpers/cli.js';

const AGENTS = ['# Project', '', '## quick reference', '', 'Some words.', '', '```bash', 'npm ci', 'npm test', '', '```', '', '```bash', 'not this one', '```', ''].join('\n');

describe('quickReference', () => {
  it("takes the first bash block after the Quick Reference heading, in either case, without trailing blank lines", () => {
    const root = tempDir();
    writeFileSync(join(root, 'AGENTS.md'), AGENTS);
    expect(quickReference(root)).toBe('npm ci\nnpm test');
  });

  it('is undefined without AGENTS.md, without the heading, or without a bash block after it', () => {
    const root = tempDir();
    expect(quickReference(root)).toBeUndefined();
    writeFileSync(join(root, 'AGENTS.md'), '```bash\nnpm test\n```\n## Quick Reference\nnone\n');
    expect(quickReference(root)).toBeUndefined();
    writeFileSync(join(root, 'AGENTS.md'), '## Usage\n```bash\nnpm test\n```\n');
    expect(quickReference(root)).toBeUndefined();
  });
});

describe('the context an agent reads', () => {
  const epic = bead({ id: 'hx-epic', title: 'The epic', issue_type: 'epic', 'spec-id': 'FEAT-7', acceptance: 'all children closed' });
  const beads: Bead[] = [epic, bead({ id: 'hx-1' }), bead({ id: 'hx-2', status: 'in_progress' }), bead({ id: 'hx-3', status: 'closed' })];

  it('counts the queue, names the build commands, the focused epic and the tracker command of its rules', () => {
    const root = tempDir();
    writeFileSync(join(root, 'AGENTS.md'), AGENTS);
    const text = renderContext({ root, trackerFile: '/p/.ddx/beads.jsonl', beads, readyCount: 1, focusedEpic: epic, trackerCli: 'helix tracker' });
    expect(text).toContain(`Project root: ${root}\nTracker: /p/.ddx/beads.jsonl\nIssue counts: ready=1, open=2, in-progress=1, closed=1\n`);
    expect(text).toContain('## Build/Test Commands\n\n```bash\nnpm ci\nnpm test\n```\n');
    expect(text).toContain('## Current Epic\n\nID: hx-epic\nTitle: The epic\nSpec: FEAT-7\nAcceptance: all children closed\n');
    expect(text).toContain('- Use helix tracker subcommands for all issue operations.');
    expect(text).not.toContain('ddx bead');
  });

  it('contextText finds the focused epic among the beads of the run and writes it to .helix/context.md', () => {
    const root = tempDir();
    const source: ContextSource = {
      session: { root, store: { file: join(root, '.ddx', 'beads.jsonl') } },
      state: { focusedEpic: 'hx-epic' },
      snapshot: () => ({ beads }),
      ready: (list) => list.filter((b) => b.id === 'hx-1'),
      promptPlace: () => ({ trackerCli: 'ddx bead' }),
    };
    const file = writeContext(root, contextText(source));
    expect(file).toBe(join(root, '.helix', 'context.md'));
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('Issue counts: ready=1,');
    expect(text).toContain('ID: hx-epic\n');
    expect(text).not.toContain('## Build/Test Commands');
    expect(contextText({ ...source, state: {} })).not.toContain('## Current Epic');
  });
});
