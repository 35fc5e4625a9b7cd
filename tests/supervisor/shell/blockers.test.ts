// The blocker report (docs/contract/bash-interface.md §2.13, §12.2): the bead's labels and note (never repeated on a
// retry), and the markdown file with the Bash headers.
import { readFileSync } from 'node:fs';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isoWithOffset, markBeadBlocked, writeBlockerReport } from '../../../src/supervisor/shell/blockers.js';
import { tempDir } from '../../helpers/cli.js';
import { bead } from '../../helpers/bead.js';

const REASON = 'intractable after 4 attempts with exponential backoff';

describe('markBeadBlocked', () => {
  it('adds the helix and blocked labels (keeping the others) and one note; a retry with the same reason adds nothing', () => {
    const b = bead({ id: 'hx-a', labels: ['area:ui'], notes: 'earlier note' });
    const first = new Date('2026-03-01T10:00:00Z');
    markBeadBlocked(b, REASON, first);
    markBeadBlocked(b, REASON, new Date('2026-03-02T10:00:00Z'));
    expect(b.labels).toEqual(['area:ui', 'helix', 'blocked']);
    expect(b.notes).toBe(`earlier note\nBLOCKED [${isoWithOffset(first)}]: ${REASON}`);
    expect(isoWithOffset(first)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
  });

  it('a different reason is a new note', () => {
    const b = bead({ id: 'hx-a' });
    markBeadBlocked(b, REASON, new Date('2026-03-01T10:00:00Z'));
    markBeadBlocked(b, 'queue drift: upstream governance fields changed during execution', new Date('2026-03-01T11:00:00Z'));
    expect(String(b.notes).split('\n')).toHaveLength(2);
  });
});

describe('blocker report', () => {
  const skipped = [
    { id: 'hx-a', title: 'Fix the parser', reason: REASON },
    { id: 'hx-b', title: 'Add docs', reason: 'failed to complete after 4 attempts with exponential backoff' },
  ];

  it('the file has the contract headings and one section per bead', () => {
    const root = tempDir();
    mkdirSync(join(root, '.helix-logs'));
    const now = new Date(2026, 2, 1, 9, 8, 7);
    const file = writeBlockerReport({ root, skipped, attempted: 9, completed: 1, log: join(root, '.helix-logs/helix-x.log'), now });
    expect(file).toBe(join(root, '.helix-logs', 'blockers-20260301-090807.md'));
    expect(readFileSync(file, 'utf8')).toBe(
      [
        '# HELIX Run Blocker Report',
        '',
        `Generated: ${isoWithOffset(now)}`,
        'Cycles: 9 attempted, 1 completed, 2 skipped',
        `Log: ${join(root, '.helix-logs/helix-x.log')}`,
        `Project: ${root}`,
        '',
        '## Blocked Issues',
        '',
        '### hx-a',
        '',
        '**Title:** Fix the parser',
        `**Reason:** ${REASON}`,
        '',
        '### hx-b',
        '',
        '**Title:** Add docs',
        '**Reason:** failed to complete after 4 attempts with exponential backoff',
        '',
        '',
      ].join('\n'),
    );
  });
});
