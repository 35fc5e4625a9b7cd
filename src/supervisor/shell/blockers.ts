// The blocker report (docs/contract/bash-interface.md §2.13, §12.2): each skipped bead gets the labels `helix` and
// `blocked` (its other labels kept) and a note, and `.helix-logs/blockers-<stamp>.md` keeps the
// list with the Bash CLI's headers. The stderr lines are in lines.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Bead, appendNote, labelsOf } from '../../tracker/index.js';
import type { SkippedBead } from '../core/machine.js';
import { fileStamp } from './output.js';
import { printable } from '../../terminal-text.js';
import { createUniquely } from '../../unique-path.js';

/** Local time with its UTC offset, to the second (`date -Iseconds`): 2026-01-02T03:04:05+01:00. */
export function isoWithOffset(now: Date): string {
  const pad = (n: number) => String(Math.abs(n)).padStart(2, '0');
  const offset = -now.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  return (
    `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}` +
    `${sign}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`
  );
}

/** Marks a bead blocked; the note is not added again when the notes already hold the reason. */
export function markBeadBlocked(bead: Bead, reason: string, now: Date): void {
  const labels = labelsOf(bead);
  const missing = ['helix', 'blocked'].filter((l) => !labels.includes(l));
  if (missing.length > 0) bead.labels = [...labels, ...missing];
  const notes = typeof bead.notes === 'string' ? bead.notes : '';
  if (!notes.includes(reason)) bead.notes = appendNote(notes, `BLOCKED [${isoWithOffset(now)}]: ${reason}`);
}

export interface BlockerReportInput {
  root: string;
  skipped: SkippedBead[];
  attempted: number;
  completed: number;
  /** Absolute session log path. */
  log: string;
  now: Date;
  /** Systemic memories (the same failure 3+ times): they need architectural attention. */
  systemic?: string[];
}

/** Lines shown as they are, in a fence no line of theirs can close. */
function fence(lines: string[]): string {
  const longest = Math.max(2, ...lines.map((l) => Math.max(0, ...[...l.matchAll(/`+/g)].map((m) => m[0].length))));
  const bar = '`'.repeat(longest + 1);
  return `${bar}\n${lines.join('\n')}\n${bar}`;
}

/** Writes the report and returns its absolute path. */
export function writeBlockerReport(input: BlockerReportInput): string {
  let text =
    '# HELIX Run Blocker Report\n\n' +
    `Generated: ${isoWithOffset(input.now)}\n` +
    `Cycles: ${input.attempted} attempted, ${input.completed} completed, ${input.skipped.length} skipped\n` +
    `Log: ${input.log}\n` +
    // helix: which project, for a report read away from the terminal it was written in
    `Project: ${input.root}\n\n` +
    '## Blocked Issues\n\n';
  for (const s of input.skipped) {
    text += `### ${s.id}\n\n**Title:** ${s.title || '?'}\n**Reason:** ${s.reason}\n\n`;
    // helix: why the last attempt failed, and what its verification printed last
    if (s.lastDetail) text += `**Last failure:** ${s.lastDetail}\n\n`;
    if (s.output?.length) text += `**Verification output (last ${s.output.length} lines):**\n\n${fence(s.output)}\n\n`;
  }
  // Sections helix adds go after the last block.
  if (input.systemic?.length) text += `## Systemic failures\n\n${input.systemic.map((line) => `- ${line}`).join('\n')}\n`;
  const dir = join(input.root, '.helix-logs');
  mkdirSync(dir, { recursive: true });
  // read in a terminal like the session log: bead titles and ids shown, never obeyed; never over
  // the report of another run that stopped in the same second
  const file = createUniquely(join(dir, `blockers-${fileStamp(input.now)}`), '.md', (path) => writeFileSync(path, printable(text), { flag: 'wx' }));
  return file;
}
