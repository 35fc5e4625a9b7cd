// The supervisor's side of injection (src/supervisor/shell/memory-port.ts), as pure functions: which
// ranked memories go into a prompt (with one exploration slot), which names a budget-cut block
// still shows, and which files and words of a bead make the dual query.
import { describe, expect, it } from 'vitest';
import {
  beadFiles,
  beadObjective,
  chooseWithExploration,
  renderChosen,
} from '../../../src/supervisor/shell/memory-port.js';
import { bead } from '../../helpers/bead.js';

const ranked = (...uses: number[]) => uses.map((u, i) => ({ name: `m${i + 1}`, uses: u }));

describe('chooseWithExploration', () => {
  it('takes every candidate when they fit the limit', () => {
    expect(chooseWithExploration(ranked(3, 0, 9), 5)).toEqual(['m1', 'm2', 'm3']);
  });

  it('fills all but the last slot by score and gives the last to the least-tried candidate below', () => {
    // m7 has the least evidence of m5..m8: it takes the slot m5 would have had by score.
    expect(chooseWithExploration(ranked(2, 2, 2, 2, 3, 1.5, 0.5, 4), 5)).toEqual(['m1', 'm2', 'm3', 'm4', 'm7']);
  });

  it('keeps the score order when the next-best candidate is itself the least tried (ties go to the better score)', () => {
    expect(chooseWithExploration(ranked(2, 2, 2, 2, 0.5, 0.5, 1), 5)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
  });

  it('rescues a useful memory sunk by one unlucky failure below proven-useless distractors', () => {
    // Distractors d1..d6 failed on several verified successes; the useful one failed once.
    const candidates = [...['d1', 'd2', 'd3', 'd4', 'd5', 'd6'].map((name) => ({ name, uses: 2 })), { name: 'useful', uses: 0.5 }];
    expect(chooseWithExploration(candidates, 5)).toContain('useful');
  });
});

// What the store's injectEntries hands over: structured entries, never text to re-parse.
const BLOCK = {
  header: 'Memories from earlier tasks (list the ones that helped as UTILIZED: [name, ...]):',
  entries: [
    { name: 'repeated-repair-the-cache', text: 'WARNING: [unproven] Repeated: Repair the cache: tests failed -> UNRESOLVED (memory: repeated-repair-the-cache) [seen 3+ times: consider an architectural fix]' },
    { name: 'repair-the-cache', text: '[67%] Repair the cache: tests failed -> clear it (memory: repair-the-cache)' },
    { name: 'deploy-steps', text: '[unproven] Deploy steps ->\n  1. build\n  2. ship (memory: deploy-steps)' },
  ],
};

describe('rendered blocks', () => {
  it('keeps only the chosen entries, in the store order (systemic warning first)', () => {
    const { block, names } = renderChosen(BLOCK, ['deploy-steps', 'repeated-repair-the-cache']);
    expect(names).toEqual(['repeated-repair-the-cache', 'deploy-steps']);
    expect(block.split('\n')[1]).toMatch(/^WARNING: /);
    expect(block).not.toContain('(memory: repair-the-cache)');
    expect(block).toContain('  2. ship (memory: deploy-steps)\n');
  });

  it('keeps whole entries within the budget and names only those as shown', () => {
    const all = ['repeated-repair-the-cache', 'repair-the-cache', 'deploy-steps'];
    const full = renderChosen(BLOCK, all);
    expect(full.names).toEqual(all);
    // One character short: the last entry (the three-line procedure) no longer fits, not even in part.
    const cut = renderChosen(BLOCK, all, full.block.length - 1);
    expect(cut.names).toEqual(['repeated-repair-the-cache', 'repair-the-cache']);
    expect(cut.block).not.toContain('1. build');
    expect(cut.block.length).toBeLessThanOrEqual(full.block.length - 1);
    // A long entry that does not fit does not keep a shorter later one out.
    const skipLong = renderChosen(BLOCK, all, full.block.length - BLOCK.entries[0]!.text.length - 1);
    expect(skipLong.names).toEqual(['repair-the-cache', 'deploy-steps']);
  });

  it('shows nothing when no entry fits', () => {
    expect(renderChosen(BLOCK, ['repair-the-cache'], 20)).toEqual({ block: '', names: [] });
  });
});

describe('the dual query of a bead', () => {
  it('takes files from relevant_files and path-like words of the text and design', () => {
    const b = bead({ id: 'hx-1', title: 'Fix login in src/auth/session.ts', description: 'see `README.md` and lib/util', design: 'touch config/app.yaml', relevant_files: ['src/a.py'] });
    expect(beadFiles(b).sort()).toEqual(['README.md', 'config/app.yaml', 'src/a.py', 'src/auth/session.ts'].sort());
  });

  it('reads paths with the memory store\'s own matcher: a path ending a sentence counts, a version number does not', () => {
    const b = bead({ id: 'hx-1', title: 'Crash on start', description: 'It fails in src/boot/main.ts. Since v1.2.3 only.' });
    expect(beadFiles(b)).toEqual(['src/boot/main.ts']);
  });

  it('uses title, description and acceptance as the objective', () => {
    const b = bead({ id: 'hx-1', title: 'T', description: 'D', acceptance: 'A', design: 'not this' });
    expect(beadObjective(b)).toBe('T\nD\nA');
  });
});
