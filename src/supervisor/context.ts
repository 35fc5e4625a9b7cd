// `.helix/context.md` (contract §9): what an agent should know before it reads its bead — the
// project, the tracker, the queue counts, the build and test commands, the focused epic, the rules.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Bead } from '../tracker/index.js';

export interface ContextInput {
  root: string;
  trackerFile: string;
  beads: Bead[];
  readyCount: number;
  focusedEpic: Bead | undefined;
}

/** The "Quick Reference" section of AGENTS.md (its build and test commands), if there is one. */
export function quickReference(root: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(root, 'AGENTS.md'), 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^#+\s.*quick reference/i.test(l));
  if (start < 0) return undefined;
  const level = /^(#+)/.exec(lines[start] ?? '')?.[1]?.length ?? 2;
  const body: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const heading = /^(#+)\s/.exec(line);
    if (heading && (heading[1]?.length ?? 0) <= level) break;
    body.push(line);
  }
  const section = body.join('\n').trim();
  return section || undefined;
}

export function renderContext(input: ContextInput): string {
  const count = (status: string) => input.beads.filter((b) => b.status === status).length;
  const parts = [
    '# HELIX run context',
    '',
    `Project root: ${input.root}`,
    `Tracker: ${input.trackerFile}`,
    `Issue counts: ready=${input.readyCount}, open=${count('open')}, in-progress=${count('in_progress')}, closed=${count('closed')}`,
  ];
  const reference = quickReference(input.root);
  if (reference) parts.push('', '## Build and test (AGENTS.md Quick Reference)', '', reference);
  parts.push('', '## Focus', '', input.focusedEpic ? `Epic ${input.focusedEpic.id}: ${input.focusedEpic.title}` : 'No epic in focus.');
  parts.push(
    '',
    '## Key rules',
    '',
    '- Work only on the implementation target; file anything else you find as a new bead.',
    '- Verify before you claim success: run the project tests; helix re-verifies and decides.',
    '- Commit your own changes by name; never reset, check out over, or delete work you did not make.',
    '- Blocked is a good answer: say exactly what blocks you instead of guessing.',
    '- Use `helix tracker` (ddx bead-compatible) for the queue; never edit .ddx/beads.jsonl by hand.',
  );
  return `${parts.join('\n')}\n`;
}

export function writeContext(root: string, text: string): string {
  const dir = join(root, '.helix');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'context.md');
  writeFileSync(file, text);
  return file;
}
