// The prompts helix hands to agents. Each points at its action file under
// `<HELIX_LIBRARY_ROOT>/actions/` and carries the action phrase of contract §8, so an agent (and a
// test) can tell which action it is running.
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';
import type { Bead } from '../tracker/index.js';

export type ActionName = 'implementation' | 'check' | 'align' | 'backfill' | 'design' | 'polish' | 'review' | 'experiment';

/** Action file and phrase for each action (contract §8). */
export const ACTIONS: Record<ActionName, { file: string; phrase: string }> = {
  implementation: { file: 'implementation.md', phrase: 'implementation action' },
  check: { file: 'check.md', phrase: 'check action' },
  align: { file: 'reconcile-alignment.md', phrase: 'alignment action' },
  backfill: { file: 'backfill-helix-docs.md', phrase: 'backfill action' },
  design: { file: 'plan.md', phrase: 'plan action' },
  polish: { file: 'polish.md', phrase: 'polish action' },
  review: { file: 'fresh-eyes-review.md', phrase: 'fresh-eyes review' },
  experiment: { file: 'experiment.md', phrase: 'experiment action' },
};

/** HELIX_LIBRARY_ROOT, else the `workflows/` folder of this helix install. */
export function libraryRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HELIX_LIBRARY_ROOT) return resolve(env.HELIX_LIBRARY_ROOT);
  return fileURLToPath(new URL('../../workflows', import.meta.url));
}

export function actionFile(action: ActionName, env: NodeJS.ProcessEnv = process.env): string {
  return join(libraryRoot(env), 'actions', ACTIONS[action].file);
}

function header(action: ActionName, env: NodeJS.ProcessEnv): string {
  return `Run the HELIX ${ACTIONS[action].phrase}. Read and follow ${actionFile(action, env)} exactly.`;
}

export interface ImplementationPromptInput {
  bead: Bead;
  context: string;
  /** Related ready beads helix claimed beside the target for this one direct prompt (batching). */
  related?: Bead[];
  /** The rendered memory block (confidence-tagged lines) and the names it injected. */
  memory?: { block: string; names: string[] };
  /** true: helix closes the bead after verifying (managed execution). */
  helixCloses: boolean;
  env?: NodeJS.ProcessEnv;
}

export function implementationPrompt(input: ImplementationPromptInput): string {
  const { bead } = input;
  const env = input.env ?? process.env;
  const parts = [input.context.trim(), '', header('implementation', env), `Implementation target: ${bead.id}`, '', `Title: ${bead.title}`];
  const field = (label: string, value: unknown) => {
    if (typeof value === 'string' && value.trim()) parts.push('', `${label}:`, value.trim());
  };
  if (bead['spec-id']) parts.push(`Spec: ${String(bead['spec-id'])}`);
  if (bead.parent) parts.push(`Parent: ${bead.parent}`);
  field('Description', bead.description);
  field('Acceptance', bead.acceptance);
  field('Design', bead.design);
  if (input.related?.length) {
    // They are claimed for this task: no other worker takes them while this agent may be on them.
    parts.push('', 'Also claimed for you as part of this task: related ready beads (finish the target first; take these only if they are small and share its change):');
    for (const other of input.related) parts.push(`- ${other.id}: ${other.title}`);
    parts.push(
      input.helixCloses
        ? 'helix judges each of them like the target.'
        : 'Close each one you complete and verify the same way (helix tracker close <id> --commit <sha>) and leave the others as they are: helix verifies the closed ones and releases the rest.',
    );
  }
  if (input.memory && input.memory.names.length > 0) {
    // The block opens with the store's own header (which asks for the UTILIZED line): no second one here.
    parts.push('', input.memory.block.trim(), `INJECTED: ${JSON.stringify(input.memory.names)}`);
  }
  parts.push(
    '',
    input.helixCloses
      ? 'helix verifies the result and closes the bead itself: do not close it.'
      : `When the work is done and verified, close it: helix tracker close ${bead.id} --commit <sha>`,
  );
  return `${parts.join('\n')}\n`;
}

export interface ActionPromptInput {
  scope?: string;
  rounds?: number;
  governingBead?: string;
  /** review inside `helix run`: the bead (or epic) whose change is reviewed, and the run's cycle. */
  reviewed?: { id: string; parent?: string; cycle: number };
  context?: string;
  extra?: string[];
  env?: NodeJS.ProcessEnv;
}

export function actionPrompt(action: Exclude<ActionName, 'implementation'>, input: ActionPromptInput = {}): string {
  const env = input.env ?? process.env;
  const parts: string[] = [];
  if (input.context) parts.push(input.context.trim(), '');
  parts.push(header(action, env));
  if (input.scope) parts.push(`Scope: ${input.scope}`);
  if (input.rounds !== undefined) parts.push(`Rounds: ${input.rounds}`);
  if (input.governingBead) parts.push(`Governing bead: ${input.governingBead}`);
  if (input.reviewed) {
    const { id, parent, cycle } = input.reviewed;
    parts.push(`Reviewed bead: ${id}${parent ? ` (parent ${parent})` : ''}`);
    // The keys `helix status` reports under injected_supervisory (contract §10).
    parts.push(
      `File each finding with: ${parent ? `--parent ${parent} ` : ''}--deps ${id} --labels source:review --set helix-triggering-bead=${id} --set helix-triggering-cycle=${cycle}`,
    );
  }
  if (action === 'check') parts.push('Answer with `NEXT_ACTION: <CODE>` as the first line of your answer.');
  for (const line of input.extra ?? []) parts.push(line);
  return `${parts.join('\n')}\n`;
}
