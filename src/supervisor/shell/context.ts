// `.helix/context.md` (docs/contract/bash-interface.md §12.1): what an agent should know before it reads its bead —
// the project, the tracker, the queue counts, the build and test commands of AGENTS.md's Quick
// Reference, the focused epic, the rules — under the Bash CLI's headers. Prepended to the
// implementation prompt.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Bead } from '../../tracker/index.js';

export interface ContextInput {
  root: string;
  trackerFile: string;
  beads: Bead[];
  /** Execution-ready beads. */
  readyCount: number;
  focusedEpic: Bead | undefined;
  /** The tracker command the rules name (`ddx bead`, or `helix tracker` without DDx). */
  trackerCli?: string;
}

/**
 * The build and test commands: the lines of the first ```bash block after AGENTS.md's "Quick
 * Reference" heading (Q and R in either case), as the Bash CLI read them; undefined without one.
 */
export function quickReference(root: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(root, 'AGENTS.md'), 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  const heading = lines.findIndex((l) => /^#.*[Qq]uick [Rr]eference/.test(l));
  if (heading < 0) return undefined;
  const open = lines.findIndex((l, i) => i > heading && l.startsWith('```bash'));
  if (open < 0) return undefined;
  const block: string[] = [];
  for (const line of lines.slice(open + 1)) {
    if (line.startsWith('```')) break;
    block.push(line);
  }
  const commands = block.join('\n').replace(/\n+$/, '');
  return commands || undefined;
}

/**
 * The rules. The Bash list began "Implement all listed issues in one cycle. Claim each before work,
 * close each after verification."; helix claims (and on the managed path closes) itself, so its
 * first rule says that instead (docs/contract/bash-interface.md §19, item 10: cli.md decides).
 */
function keyRules(trackerCli: string): string[] {
  return [
    '- Implement all listed issues in one cycle. helix has claimed each one for you and verifies it after; never claim one yourself, and close one only when the prompt tells you to.',
    '- Authority order: Vision > PRD > Specs > Architecture > Designs > Tests > Code',
    '- Verify only changed crates/packages, not the full workspace.',
    '- Absorb small adjacent work (<100 lines, same module) instead of creating tickets.',
    `- Use ${trackerCli} subcommands for all issue operations.`,
    '- Commit with issue ID in message. Push to remote.',
    '- Commit your own changes by name; never reset, check out over, or delete work you did not make.',
  ];
}

export function renderContext(input: ContextInput): string {
  const count = (status: string) => input.beads.filter((b) => b.status === status).length;
  let text =
    '# HELIX Execution Context\n\n' +
    `Project root: ${input.root}\n` +
    `Tracker: ${input.trackerFile}\n` +
    `Issue counts: ready=${input.readyCount}, open=${count('open')}, in-progress=${count('in_progress')}, closed=${count('closed')}\n\n`;
  const commands = quickReference(input.root);
  if (commands) text += `## Build/Test Commands\n\n\`\`\`bash\n${commands}\n\`\`\`\n\n`;
  const epic = input.focusedEpic;
  if (epic) {
    text += `## Current Epic\n\nID: ${epic.id}\nTitle: ${epic.title || '?'}\n`;
    if (typeof epic['spec-id'] === 'string' && epic['spec-id']) text += `Spec: ${epic['spec-id']}\n`;
    if (typeof epic.acceptance === 'string' && epic.acceptance) text += `Acceptance: ${epic.acceptance}\n`;
    text += '\n';
  }
  text += `## Key Rules\n\n${keyRules(input.trackerCli ?? 'ddx bead').join('\n')}\n`;
  return text;
}

export function writeContext(root: string, text: string): string {
  const dir = join(root, '.helix');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'context.md');
  writeFileSync(file, text);
  return file;
}

/** What the context is read from: the run's facts (a RunContext is one). */
export interface ContextSource {
  session: { root: string; store: { file: string } };
  state: { focusedEpic?: string };
  snapshot(): { beads: Bead[] };
  ready(beads: Bead[]): Bead[];
  promptPlace(): { trackerCli: string };
}

/** `.helix/context.md`'s text for these beads (the queue as the attempt read it). */
export function contextText(run: ContextSource, beads: Bead[] = run.snapshot().beads): string {
  const focused = run.state.focusedEpic ? beads.find((b) => b.id === run.state.focusedEpic) : undefined;
  return renderContext({
    root: run.session.root,
    trackerFile: run.session.store.file,
    beads,
    readyCount: run.ready(beads).length,
    focusedEpic: focused,
    trackerCli: run.promptPlace().trackerCli,
  });
}
