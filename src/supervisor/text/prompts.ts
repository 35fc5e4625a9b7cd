// The prompts helix hands to agents, line for line as the Bash CLI wrote them (docs/contract/bash-interface.md §1):
// the first line names the action (the action phrases of docs/contract/cli.md §8 occur in it), the second points
// at the action file under `<HELIX_LIBRARY_ROOT>/actions/` with an absolute path. Where helix owns
// the claim and the close (cli.md decides: docs/contract/bash-interface.md §19, item 10), the tracker and concurrency lines
// say so instead of telling the agent to claim or close. Lines helix adds (the bead's own fields,
// memories, the reviewed bead) come after the Bash lines.
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';
import type { Bead } from '../../tracker/bead.js';

export type ActionName = 'implementation' | 'check' | 'align' | 'backfill' | 'design' | 'polish' | 'review' | 'experiment';

/** Action file and phrase for each action (docs/contract/cli.md §8). */
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
export function libraryRoot(env: NodeJS.ProcessEnv): string {
  if (env.HELIX_LIBRARY_ROOT) return resolve(env.HELIX_LIBRARY_ROOT);
  return fileURLToPath(new URL('../../../workflows', import.meta.url));
}

export function actionFile(action: ActionName, env: NodeJS.ProcessEnv): string {
  return join(libraryRoot(env), 'actions', ACTIONS[action].file);
}

/** Where the prompt runs: the repository, the tracker, the session log, the tracker's command. */
export interface PromptPlace {
  root: string;
  /** The tracker file, `<dir>/beads.jsonl`. */
  tracker: string;
  /** Absolute session log path; undefined for a dry run (no log, no `Session log:` line). */
  log?: string;
  /** `ddx bead` when DDx is installed; helix's own `helix tracker` otherwise (§1). */
  trackerCli: 'ddx bead' | 'helix tracker';
  /** The environment (HELIX_LIBRARY_ROOT says where the action files are): handed in, never read here. */
  env: NodeJS.ProcessEnv;
}

/**
 * Where a session's prompts run: its repository, tracker file and session log (`-`: none, as in a
 * dry run), and the tracker's command (`ddx bead` when ddx is on PATH).
 */
export function promptPlaceOf(session: { root: string; store: { file: string }; ddxPresent?: boolean; env: NodeJS.ProcessEnv }, logName: string): PromptPlace {
  return {
    root: session.root,
    tracker: session.store.file,
    log: logName === '-' ? undefined : logName,
    trackerCli: session.ddxPresent ? 'ddx bead' : 'helix tracker',
    env: session.env,
  };
}

const FOLLOW = 'Follow the action exactly. Do the work — do not just describe what you would do.';
const TESTS_CRITICAL =
  'CRITICAL: If tests fail after your changes, fix them. 99% of test failures are caused by your changes, not by pre-existing breakage. Do not blame external causes, do not skip tests, do not commit with failing tests. Fix the code or fix the test. Retry up to 3 times before giving up. Never commit broken work.';

/** `Execute the following HELIX <phrase>.` — every phrase but the review's ends in "action". */
function opening(action: ActionName, place: PromptPlace, what = `HELIX ${ACTIONS[action].phrase}${action === 'review' ? ' action' : ''}`): string[] {
  const lib = libraryRoot(place.env);
  return [`Execute the following ${what}.`, `Read and follow the action at ${join(lib, 'actions', ACTIONS[action].file)}.`];
}

const references = (place: PromptPlace, ...files: string[]) => {
  const lib = libraryRoot(place.env);
  return `Use supporting references at ${files.map((f) => join(lib, f)).join(' and ')} as needed.`;
};
const repository = (place: PromptPlace) => `Execute in the current repository rooted at ${place.root}.`;
/**
 * `ddx agent execute-bead` (v0.6.x) runs the agent in a worktree of its own under the temp folder
 * and lands what the agent commits there (93be5c8cb2 execute_bead.go): an agent sent to the
 * project root would edit the user's checkout and leave DDx nothing to land.
 */
const ddxWorktree = (place: PromptPlace, id: string) =>
  `DDx runs you in a worktree of its own, a copy of the repository at ${place.root}: work in your current directory, never in ${place.root}. Commit your work there (the subject ends with [${id}]); DDx lands your commit.`;
const trackerIntro = (place: PromptPlace) => `Issue tracker: built-in JSONL at ${place.tracker} (legacy: .ddx/issues.jsonl).`;
const trackerSubcommands = (place: PromptPlace) => `${trackerIntro(place)} Use \`${place.trackerCli}\` subcommands.`;
const sessionLog = (place: PromptPlace) => (place.log ? [`Session log: ${place.log}`] : []);

/** Who claims and closes the bead a build works on. */
export type BuildOwnership =
  /** execute-bead: helix claims, verifies and closes. */
  | 'helix-closes'
  /** direct prompting: helix claims, the agent closes, helix verifies. */
  | 'agent-closes'
  /** execute-loop: DDx claims and closes (the Bash CLI's own lines). */
  | 'ddx-owns';

export interface ImplementationPromptInput extends PromptPlace {
  bead: Bead;
  /** The text of `.helix/context.md` (empty: no context block). */
  context: string;
  /** Related ready beads helix claimed beside the target for this one direct prompt (batching). */
  related?: Bead[];
  /** The rendered memory block (confidence-tagged lines) and the names it injected. */
  memory?: { block: string; names: string[] };
  ownership: BuildOwnership;
}

/** The context block (docs/contract/bash-interface.md §1.1): the whole context file, an empty line, `---`. */
function contextBlock(context: string): string[] {
  const text = context.replace(/\n+$/, '');
  return text ? [text, '', '---'] : [];
}

function trackerForBuild(place: PromptPlace, ownership: BuildOwnership): string {
  const cli = place.trackerCli;
  const commands = [`${cli} ready --json`, `${cli} show <id>`];
  if (ownership === 'ddx-owns') commands.push(`${cli} update <id> --claim`);
  if (ownership !== 'helix-closes') commands.push(`${cli} close <id>`);
  return `${trackerIntro(place)} Use ${commands.map((c) => `\`${c}\``).join(', ')}.`;
}

function concurrencyRule(ownership: BuildOwnership, many: boolean): string {
  const which = many ? 'each issue' : 'the selected issue';
  if (ownership === 'ddx-owns') {
    return many
      ? 'Concurrency rule: re-read each issue immediately before claim and before close.'
      : 'Concurrency rule: re-read the selected issue immediately before claim and immediately before close. If tracker metadata drifted materially, do not claim or close from stale assumptions; re-check instead.';
  }
  if (ownership === 'helix-closes') {
    return `Concurrency rule: helix has claimed ${which} for this session and closes it after verifying your work; do not claim or close it. If tracker metadata drifted materially, stop and say so instead of working from stale assumptions.`;
  }
  return `Concurrency rule: helix has claimed ${which} for this session; do not claim it again. Re-read it immediately before close. If tracker metadata drifted materially, do not close from stale assumptions; re-check instead.`;
}

/**
 * Lines helix adds after the Bash prompt: the bead's own fields — its notes too, where helix's
 * REOPENED / BLOCKED reasons and review findings live, so a retry sees why the last attempt failed
 * (DDx's own prompt renders them; `--prompt` replaces that prompt) — and the injected memories.
 */
function beadDetails(input: ImplementationPromptInput): string[] {
  const { bead } = input;
  const parts: string[] = ['', `Title: ${bead.title}`];
  if (bead['spec-id']) parts.push(`Spec: ${String(bead['spec-id'])}`);
  if (bead.parent) parts.push(`Parent: ${bead.parent}`);
  const labels = Array.isArray(bead.labels) ? bead.labels.filter((l): l is string => typeof l === 'string') : [];
  if (labels.length > 0) parts.push(`Labels: ${labels.join(', ')}`);
  for (const [label, value] of [['Description', bead.description], ['Acceptance', bead.acceptance], ['Design', bead.design], ['Notes', bead.notes]] as const) {
    if (typeof value === 'string' && value.trim()) parts.push('', `${label}:`, value.trim());
  }
  if (input.memory && input.memory.names.length > 0) {
    // The block opens with the store's own header (which asks for the UTILIZED line): no second one here.
    parts.push('', input.memory.block.trim(), `INJECTED: ${JSON.stringify(input.memory.names)}`);
  }
  return parts;
}

/** docs/contract/bash-interface.md §1.1 (one bead) and §1.2 (a batch of related beads, direct prompting only). */
export function implementationPrompt(input: ImplementationPromptInput): string {
  const related = input.related ?? [];
  if (related.length > 0) return batchPrompt(input, [input.bead, ...related]);
  const lines = [
    ...contextBlock(input.context),
    ...opening('implementation', input),
    references(input, 'README.md', 'phases/04-build/enforcer.md'),
    input.ownership === 'helix-closes' ? ddxWorktree(input, input.bead.id) : repository(input),
    trackerForBuild(input, input.ownership),
    concurrencyRule(input.ownership, false),
    `Implementation target: ${input.bead.id}.`,
    TESTS_CRITICAL,
    FOLLOW,
    ...sessionLog(input),
    ...beadDetails(input),
  ];
  return `${lines.join('\n')}\n`;
}

function batchPrompt(input: ImplementationPromptInput, beads: Bead[]): string {
  const n = beads.length;
  const forEach =
    input.ownership === 'ddx-owns'
      ? ['For each issue: claim it, implement it, run scoped verification on changed crates,', 'commit with the issue ID, close it, then move to the next issue. If one issue', 'fails, commit and close what you completed and leave the rest open.']
      : ['For each issue: implement it, run scoped verification on changed crates,', 'commit with the issue ID, close it, then move to the next issue. If one issue', 'fails, commit and close what you completed and leave the rest open.'];
  const lines = [
    ...contextBlock(input.context),
    ...opening('implementation', input, `HELIX implementation action for ${n} related issues`),
    references(input, 'README.md', 'phases/04-build/enforcer.md'),
    repository(input),
    trackerSubcommands(input),
    '',
    `BATCH MODE: Implement these ${n} related issues sequentially in this session:`,
    ...beads.map((b) => `  - ${b.id}: ${b.title || '?'}`),
    '',
    ...forEach,
    '',
    concurrencyRule(input.ownership, true),
    'CRITICAL: If tests fail after your changes, fix them. Retry up to 3 times. Never commit broken work.',
    FOLLOW,
    ...sessionLog(input),
    // helix: the first of the batch is the cycle's target (the others are optional work)
    `Implementation target: ${input.bead.id}.`,
    ...beadDetails(input),
  ];
  return `${lines.join('\n')}\n`;
}

/** The governing-bead line of the alignment prompt (docs/contract/bash-interface.md §1.4), by how helix holds the bead. */
export type GoverningMode = 'created' | 'claimed' | 'reused';

export function governingLine(bead: string | undefined, mode: GoverningMode | undefined): string {
  if (!bead || !mode) return 'Governing alignment bead: create or claim the relevant kind:planning,action:align bead before proceeding.';
  switch (mode) {
    case 'created':
      return `Governing alignment bead: ${bead} (created by the wrapper entrypoint; claim and reuse it instead of creating a duplicate governing bead).`;
    case 'claimed':
      return `Governing alignment bead: ${bead} (claimed by the wrapper entrypoint; treat Phase 0.5 as already satisfied unless tracker metadata drifted materially).`;
    case 'reused':
      return `Governing alignment bead: ${bead} (already active for this scope; reuse it and do not create a duplicate governing bead).`;
  }
}

export interface ActionPromptInput extends PromptPlace {
  /** As given; each action has its own text for none (§1). */
  scope?: string;
  rounds?: number;
  governing?: { bead: string; mode: GoverningMode };
  /** review inside `helix run`: the bead (or epic) whose change is reviewed, and the run's cycle. */
  reviewed?: { id: string; parent?: string; cycle: number };
  /** experiment --close. */
  close?: boolean;
}

export function actionPrompt(action: Exclude<ActionName, 'implementation'>, input: ActionPromptInput): string {
  const lines = actionLines(action, input);
  return `${lines.join('\n')}\n`;
}

function actionLines(action: Exclude<ActionName, 'implementation'>, p: ActionPromptInput): string[] {
  switch (action) {
    case 'check':
      return [
        ...opening('check', p),
        references(p, 'README.md'),
        repository(p),
        `${trackerIntro(p)} Use \`${p.trackerCli} ready --json\`, \`${p.trackerCli} list --json\`, \`${p.trackerCli} blocked --json\`.`,
        `Review scope: ${p.scope ?? 'repo'}.`,
        'CRITICAL: Your output MUST contain the line "NEXT_ACTION: CODE" where CODE is one of BUILD, DESIGN, POLISH, ALIGN, BACKFILL, WAIT, GUIDANCE, or STOP. This line must appear on its own, not inside a code block or backticks. Without this line the automation cannot continue. Output this line FIRST, before any other analysis.',
        FOLLOW,
      ];
    case 'align':
      return [
        ...opening('align', p),
        references(p, 'README.md', 'templates/alignment-review.md'),
        repository(p),
        trackerSubcommands(p),
        `Review scope: ${p.scope ?? 'repo'}.`,
        governingLine(p.governing?.bead, p.governing?.mode),
        FOLLOW,
      ];
    case 'backfill':
      return [
        ...opening('backfill', p),
        references(p, 'README.md', 'templates/backfill-report.md'),
        repository(p),
        trackerSubcommands(p),
        'This is a writable live session: run real tracker commands, update docs/helix/, and do not claim that you need another session unless a concrete command actually fails.',
        `Backfill scope: ${p.scope ?? 'repo'}.`,
        'Return the required BACKFILL_STATUS, BACKFILL_REPORT, and RESEARCH_EPIC trailer lines exactly.',
        FOLLOW,
      ];
    case 'design':
      return [
        ...opening('design', p),
        `Use supporting references at ${join(libraryRoot(p.env), 'README.md')} and phase docs under ${join(libraryRoot(p.env), 'phases')}/ as needed.`,
        repository(p),
        `Plan scope: ${p.scope ?? 'repo'}.`,
        `Refinement rounds: ${p.rounds ?? 5}.`,
        FOLLOW,
      ];
    case 'polish':
      return [
        ...opening('polish', p),
        references(p, 'README.md'),
        repository(p),
        trackerSubcommands(p),
        `Polish scope: ${p.scope ?? 'all open issues'}.`,
        `Maximum refinement rounds: ${p.rounds ?? 6}.`,
        FOLLOW,
      ];
    case 'review':
      return reviewLines(p);
    case 'experiment':
      return experimentLines(p);
  }
}

/** The review's prompt; inside `helix run` it names what was built and how its findings are filed. */
function reviewLines(p: ActionPromptInput): string[] {
  const lines = [
    ...opening('review', p),
    repository(p),
    trackerSubcommands(p),
    `Review scope: ${p.scope ?? 'last-commit'}.`,
  ];
  // Only reviews started by `helix run` say so (the Bash CLI said it in one-shot reviews too).
  if (p.reviewed) lines.push('This review is running inside the automated helix run loop after an implementation cycle.');
  lines.push(
    `IMPORTANT: File each actionable finding (critical, high, medium severity) as a tracker issue with label \`review-finding\` plus at least one scope-appropriate \`area:*\` label so findings are durable, concern-aware, and queryable via \`${p.trackerCli} list --label review-finding\`. See the "Filing Findings as Tracker Issues" section in the action for the exact command pattern.`,
    FOLLOW,
  );
  if (p.reviewed) {
    // helix: what was built, and the markers `helix status --json` traces findings by (docs/contract/bash-interface.md §14.2).
    const { id, parent, cycle } = p.reviewed;
    lines.push(
      '',
      `Reviewed bead: ${id}${parent ? ` (parent ${parent})` : ''}`,
      `File each finding with: ${parent ? `--parent ${parent} ` : ''}--deps ${id} --labels helix,phase:build,review-finding --set "notes=TRIGGERING_CYCLE=${cycle} TRIGGERING_BEAD=${id}"`,
    );
  }
  return lines;
}

/** The experiment's prompt; `--close` asks for the session close instead of another iteration. */
function experimentLines(p: ActionPromptInput): string[] {
  const lines = [
    ...opening('experiment', p),
    references(p, 'README.md', 'ratchets.md'),
    repository(p),
    trackerSubcommands(p),
    `Experiment target: ${p.scope ?? 'auto-select from ready phase:iterate issues'}.`,
  ];
  if (p.close) {
    lines.push('CLOSE SESSION: Execute Phase 3 (Session Close) — squash-merge the experiment branch, update ratchet floors, and close the issue. Do not run another iteration.');
  }
  lines.push(FOLLOW);
  return lines;
}
