// The project a command works in (shell/project.ts): found from any folder inside it, and refused
// with exit 14 before any effect when DDx keeps the beads in another backend.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HelixError } from '../../../src/errors.js';
import { openStore } from '../../../src/supervisor/shell/project.js';
import { tempGitRepo } from '../../helpers/cli.js';

function project(): string {
  const root = tempGitRepo();
  mkdirSync(join(root, '.ddx'));
  writeFileSync(join(root, '.ddx', 'beads.jsonl'), '');
  return root;
}

describe('openStore', () => {
  it('finds the project root and its tracker from a folder inside it', () => {
    const root = project();
    mkdirSync(join(root, 'src', 'deep'), { recursive: true });
    const { root: found, store } = openStore(join(root, 'src', 'deep'), { PATH: process.env.PATH });
    expect(found).toBe(root);
    expect(store.file).toBe(join(root, '.ddx', 'beads.jsonl'));
  });

  it('refuses a project whose DDx config names another bead backend, and writes nothing', () => {
    const root = project();
    writeFileSync(join(root, '.ddx', 'config.yaml'), 'bead:\n  backend: axon\n');
    let thrown: unknown;
    try {
      openStore(root, { PATH: '/usr/bin:/bin' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(HelixError);
    expect((thrown as HelixError).exitCode).toBe(14);
    expect((thrown as HelixError).message).toMatch(/^helix: DDx keeps this project's beads in the axon backend \(bead\.backend in \.ddx\/config\.yaml\)/);
    expect(readFileSync(join(root, '.ddx', 'beads.jsonl'), 'utf8')).toBe('');
  });
});
