// The blocker report (contract §9): when a run skipped anything, stderr names each bead and why,
// the bead gets the `blocked` label and a note, and `.helix-logs/blockers-<stamp>.md` keeps it.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Bead, appendNote, labelsOf, nowIso } from '../tracker/index.js';
import type { SkippedBead } from './machine.js';
import { fileStamp } from './output.js';
import { printable } from '../terminal-text.js';
import { createUniquely } from '../unique-path.js';

export function blockerLines(skipped: SkippedBead[]): string[] {
  return [`helix: BLOCKERS (${skipped.length} issues):`, ...skipped.map((s) => `helix:   ${s.id}: ${s.reason} — ${s.title}`)];
}

/** Marks a bead blocked; the note is not repeated when a retry hits the same reason. */
export function markBeadBlocked(bead: Bead, reason: string, now: Date): void {
  if (!labelsOf(bead).includes('blocked')) bead.labels = [...labelsOf(bead), 'blocked'];
  const notes = typeof bead.notes === 'string' ? bead.notes : '';
  if (!notes.split('\n').some((line) => line.startsWith('BLOCKED [') && line.endsWith(`]: ${reason}`))) {
    bead.notes = appendNote(notes, `BLOCKED [${nowIso(now)}]: ${reason}`);
  }
}

export interface BlockerReportInput {
  root: string;
  skipped: SkippedBead[];
  attempted: number;
  completed: number;
  log: string;
  now: Date;
  /** Systemic memories (the same failure 3+ times): they need architectural attention. */
  systemic?: string[];
}

export function writeBlockerReport(input: BlockerReportInput): string {
  const lines = [
    '# HELIX Run Blocker Report',
    '',
    `Generated: ${nowIso(input.now)}`,
    `Cycles: ${input.attempted} attempted, ${input.completed} completed, ${input.skipped.length} skipped`,
    `Log: ${input.log}`,
  ];
  for (const s of input.skipped) lines.push('', `### ${s.id}`, '', `**Title:** ${s.title}`, `**Reason:** ${s.reason}`);
  if (input.systemic?.length) lines.push('', '## Systemic failures', '', ...input.systemic.map((line) => `- ${line}`));
  // read in a terminal like the session log: bead titles and ids shown, never obeyed
  const text = printable(`${lines.join('\n')}\n`);
  const file = createUniquely(join(input.root, '.helix-logs', `blockers-${fileStamp(input.now)}`), '.md', (path) => writeFileSync(path, text, { flag: 'wx' }));
  return file;
}
