// The supervisor's side of injection (src/supervisor/memory-port.ts), as pure functions: which
// ranked memories go into a prompt (with one exploration slot), which names a budget-cut block
// still shows, and which files and words of a bead make the dual query.
import { describe, expect, it } from 'vitest';
import {
  beadFiles,
  beadObjective,
  blockEntries,
  chooseWithExploration,
  namesShown,
  renderChosen,
  withinBudget,
} from '../../src/supervisor/memory-port.js';
import { bead } from '../supervisor/builders.js';

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

const BLOCK = [
  'Memories from earlier tasks (list the ones that helped as UTILIZED: [name, ...]):',
  'WARNING: [unproven] Repeated: Repair the cache: tests failed -> UNRESOLVED (memory: repeated-repair-the-cache) [seen 3+ times: consider an architectural fix]',
  '[67%] Repair the cache: tests failed -> clear it (memory: repair-the-cache)',
  '[unproven] Deploy steps ->',
  '  1. build',
  '  2. ship (memory: deploy-steps)',
].join('\n');

describe('rendered blocks', () => {
  it('splits a block into one entry per memory, procedures included', () => {
    const { header, entries } = blockEntries(BLOCK);
    expect(header).toMatch(/^Memories from earlier tasks/);
    expect(entries.map((e) => e.name)).toEqual(['repeated-repair-the-cache', 'repair-the-cache', 'deploy-steps']);
    expect(entries[2]!.text.split('\n')).toHaveLength(3);
  });

  it('keeps only the chosen entries, in the store order (systemic warning first)', () => {
    const text = renderChosen(BLOCK, ['deploy-steps', 'repeated-repair-the-cache']);
    expect(text.split('\n')[1]).toMatch(/^WARNING: /);
    expect(text).not.toContain('(memory: repair-the-cache)');
    expect(text).toContain('  2. ship (memory: deploy-steps)');
  });

  it('counts a memory as shown only when its whole entry survived the budget', () => {
    const names = ['repeated-repair-the-cache', 'repair-the-cache', 'deploy-steps'];
    // A cut inside the procedure keeps its first lines but not the line that names it.
    const cut = withinBudget(BLOCK, BLOCK.length - 10);
    expect(cut).toContain('  1. build');
    expect(namesShown(cut, names)).toEqual(['repeated-repair-the-cache', 'repair-the-cache']);
    // The failure memory's trigger is quoted inside the systemic line: that must not count as shown.
    const onlySystemic = withinBudget(BLOCK, BLOCK.split('\n').slice(0, 2).join('\n').length + 1);
    expect(namesShown(onlySystemic, names)).toEqual(['repeated-repair-the-cache']);
  });

  it('never cuts a line in half', () => {
    const cut = withinBudget(BLOCK, 120);
    for (const line of cut.trimEnd().split('\n')) expect(BLOCK.split('\n')).toContain(line);
  });
});

describe('the dual query of a bead', () => {
  it('takes files from relevant_files and path-like words of the text and design', () => {
    const b = bead({ id: 'hx-1', title: 'Fix login in src/auth/session.ts', description: 'see `README.md` and lib/util', design: 'touch config/app.yaml', relevant_files: ['src/a.py'] });
    expect(beadFiles(b).sort()).toEqual(['README.md', 'config/app.yaml', 'src/a.py', 'src/auth/session.ts'].sort());
  });

  it('uses title, description and acceptance as the objective', () => {
    const b = bead({ id: 'hx-1', title: 'T', description: 'D', acceptance: 'A', design: 'not this' });
    expect(beadObjective(b)).toBe('T\nD\nA');
  });
});
