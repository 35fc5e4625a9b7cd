// helix's notes block on `ddx try` (docs/ddx.md): added and taken out again, and kept under its limit.
import { describe, expect, it } from 'vitest';
import { NOTES_BEGIN, NOTES_BLOCK_LIMIT, NOTES_END, renderNotesBlock, withNotesBlock, withoutNotesBlock } from '../../../src/supervisor/text/ddx-notes.js';

describe('the notes block', () => {
  it('is added at the end and taken out again, leaving the notes as they were', () => {
    const block = renderNotesBlock({ action: 'Follow the action.', context: 'ctx', memory: { block: 'MEMORIES', names: ['m1'] } });
    expect(block.startsWith(NOTES_BEGIN) && block.endsWith(NOTES_END)).toBe(true);
    expect(block).toContain('INJECTED: ["m1"]');
    const notes = 'REOPENED [x]: verification failed';
    expect(withoutNotesBlock(withNotesBlock(notes, block))).toBe(notes);
    expect(withoutNotesBlock(withNotesBlock('', block))).toBe('');
    // a stale block is replaced, never doubled
    expect(withNotesBlock(withNotesBlock(notes, block), block).split(NOTES_BEGIN)).toHaveLength(2);
  });
  it('stays under its limit: the context is cut, never the memories', () => {
    const block = renderNotesBlock({ action: 'a', context: 'é'.repeat(100_000), memory: { block: 'MEMORIES', names: ['m1'] } });
    expect(Buffer.byteLength(block, 'utf8')).toBeLessThanOrEqual(NOTES_BLOCK_LIMIT);
    expect(block).toContain('MEMORIES');
    expect(block).toContain('cut by helix');
  });
});
