// bin/helix serves plain `status` and `next` without commander (src/cli/plain.ts); they must print
// exactly what the full CLI prints for the same question, warnings and exit codes included.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { helix, tempGitRepo } from '../helpers/cli.js';

function projectWithBeads(): string {
  const root = tempGitRepo();
  mkdirSync(join(root, '.ddx'));
  const stamp = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, '0')}Z`;
  const beads = [
    { id: 'hx-00000001', title: 'done', status: 'closed', priority: 2, issue_type: 'task', created_at: stamp(1), updated_at: stamp(1) },
    { id: 'hx-00000002', title: 'ready after done', status: 'open', priority: 1, issue_type: 'task', created_at: stamp(2), updated_at: stamp(2), dependencies: [{ issue_id: 'hx-00000002', depends_on_id: 'hx-00000001', type: 'blocks' }] },
    { id: 'hx-00000003', title: 'blocked', status: 'open', priority: 0, issue_type: 'task', created_at: stamp(3), updated_at: stamp(3), dependencies: [{ issue_id: 'hx-00000003', depends_on_id: 'hx-00000002', type: 'blocks' }] },
  ];
  writeFileSync(join(root, '.ddx', 'beads.jsonl'), `${beads.map((b) => JSON.stringify(b)).join('\n')}\nnot json\n`);
  return root;
}

describe('plain status and next', () => {
  const cwd = projectWithBeads();

  it.each([[['status']], [['status', '--json']], [['status', '--json', '-q']], [['next']], [['next', '--summary']]])(
    '%j prints what the full CLI prints, warnings included',
    (args) => {
      const plain = helix(args, { cwd });
      // `--agent codex` takes a value, so this call goes through commander
      const full = helix([...args, '--agent', 'codex'], { cwd });
      expect(plain.status).toBe(0);
      expect(plain.stdout).toBe(full.stdout);
      expect(plain.stderr).toBe(full.stderr);
      expect(plain.stderr).toContain('malformed line(s) 4');
    },
  );

  it('next names the first ready execution bead; a positional or --help goes to the full CLI', () => {
    expect(helix(['next'], { cwd }).stdout).toBe('hx-00000002\n');
    expect(helix(['next', 'extra'], { cwd }).status).not.toBe(0);
    expect(helix(['status', '--help'], { cwd }).stdout).toMatch(/^Usage:\n  helix run /);
  });
});
