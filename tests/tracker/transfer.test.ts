import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/errors.js';
import { importBeads, normaliseImported } from '../../src/tracker/index.js';
import { tempDir } from '../helpers/cli.js';
import { draftOf, errorOf } from './builders.js';
import { bead } from '../helpers/bead.js';

const NOW = new Date('2025-06-01T12:00:00Z');

function fileWith(text: string): string {
  const dir = tempDir();
  mkdirSync(join(dir, '.helix'));
  const file = join(dir, '.helix', 'issues.jsonl');
  writeFileSync(file, text);
  return file;
}

describe('normaliseImported (older .helix/issues.jsonl)', () => {
  it('maps type, deps, assignee, created, updated and legacy statuses to the DDx format', () => {
    const bead = normaliseImported(
      { id: 'hx-1', title: 'Old', status: 'in-progress', type: 'bug', deps: ['hx-0'], assignee: 'helix', created: '2024-01-01T00:00:00Z', updated: '2024-01-02T00:00:00Z', labels: ['x'], 'spec-id': 'S' },
      NOW,
    );
    expect(bead).toEqual({
      id: 'hx-1',
      title: 'Old',
      status: 'in_progress',
      priority: 2,
      issue_type: 'bug',
      created_at: '2024-01-01T00:00:00Z',
      updated_at: '2024-01-02T00:00:00Z',
      labels: ['x'],
      'spec-id': 'S',
      owner: 'helix',
      dependencies: [{ issue_id: 'hx-1', depends_on_id: 'hx-0', type: 'blocks', created_at: '2024-01-01T00:00:00Z' }],
    });
  });

  it('fills missing status, priority, type and timestamps', () => {
    expect(normaliseImported({ id: 'x', title: 't' }, NOW)).toEqual({
      id: 'x',
      title: 't',
      status: 'open',
      priority: 2,
      issue_type: 'task',
      created_at: '2025-06-01T12:00:00.000Z',
      updated_at: '2025-06-01T12:00:00.000Z',
    });
  });

  it('keeps a DDx record as it is, unknown keys and key order included', () => {
    const ddx = { status: 'open', 'x-custom': { deep: [1] }, id: 'a', priority: 0, title: 't', owner: 'o', issue_type: 'bug', created_at: 'c', updated_at: 'u' };
    const imported = normaliseImported(ddx, NOW);
    expect(imported).toEqual(ddx);
    expect(Object.keys(imported)).toEqual(Object.keys(ddx));
  });

  it('renames legacy keys where they stand and appends missing required keys', () => {
    const imported = normaliseImported({ title: 't', type: 'epic', id: 'x', assignee: '', deps: [] }, NOW);
    expect(Object.keys(imported)).toEqual(['title', 'issue_type', 'id', 'status', 'priority', 'created_at', 'updated_at']);
  });
});

describe('importBeads', () => {
  it('adds new beads and skips ids already present', () => {
    const draft = draftOf(bead({ id: 'a', title: 'mine' }));
    const file = fileWith(`${JSON.stringify({ id: 'a', title: 'theirs' })}\n${JSON.stringify({ id: 'b', title: 'new' })}\n`);
    expect(importBeads(draft, file, NOW)).toEqual({ imported: ['b'], skipped: ['a'] });
    expect(draft.get('a')!.title).toBe('mine');
  });

  it('refuses a file with bad lines, naming them, and imports nothing', () => {
    const draft = draftOf();
    const error = errorOf(() => importBeads(draft, fileWith('{"id":"a","title":"x"}\nnot json\n'), NOW));
    expect(error.exitCode).toBe(EXIT.validation);
    expect(error.message).toContain('2 (malformed)');
    expect(draft.changed).toBe(false);
  });

  it('refuses a record without a title', () => {
    expect(errorOf(() => importBeads(draftOf(), fileWith('{"id":"a"}\n'), NOW)).exitCode).toBe(EXIT.validation);
  });

  it('a missing file is not found', () => {
    expect(errorOf(() => importBeads(draftOf(), join(tempDir(), 'none.jsonl'), NOW)).exitCode).toBe(EXIT.notFound);
  });
});
