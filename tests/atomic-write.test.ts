// The one atomic-write helper (src/atomic-write.ts): the file is replaced whole or not at all, and
// no temp file is left behind either way.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { atomicTempPath, writeFileAtomically } from '../src/atomic-write.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'helix-atomic-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('writeFileAtomically', () => {
  it('creates or replaces the file with exactly the new text and leaves only that file', () => {
    const dir = tempDir();
    const file = join(dir, 'state.json');
    writeFileAtomically(file, 'first\n');
    writeFileSync(join(dir, 'other'), 'x');
    writeFileAtomically(file, 'second ✓\n', { mode: 0o644 });
    expect(readFileSync(file, 'utf8')).toBe('second ✓\n');
    expect(statSync(file).mode & 0o777).toBe(0o644);
    expect(readdirSync(dir).sort()).toEqual(['other', 'state.json']);
  });

  it('when the rename fails the target is untouched, the temp file is removed and the error is thrown', () => {
    const dir = tempDir();
    const target = join(dir, 'taken');
    mkdirSync(target);
    writeFileSync(join(target, 'inside'), 'kept');
    expect(() => writeFileAtomically(target, 'new')).toThrow(/EISDIR|ENOTEMPTY|EEXIST/);
    expect(readFileSync(join(target, 'inside'), 'utf8')).toBe('kept');
    expect(readdirSync(dir)).toEqual(['taken']);
  });

  it('when the folder is missing nothing is created and the error is thrown', () => {
    const dir = tempDir();
    expect(() => writeFileAtomically(join(dir, 'missing', 'file'), 'x')).toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('the temp file sits beside the target, named by pid (what the tracker cleans up after a dead writer)', () => {
    expect(atomicTempPath('/a/b/beads.jsonl')).toMatch(new RegExp(`^/a/b/beads\\.jsonl\\.tmp-${process.pid}-\\d+$`));
  });
});
