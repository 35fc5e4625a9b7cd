// `--dry-run` prints the exact agent command each action would run, on stdout, and runs nothing
// (docs/contract/cli.md §8): codex and claude called directly, and `ddx agent run …` when ddx is installed.
// The prompts are written out line for line as docs/contract/bash-interface.md §1 gives them.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shellQuote } from '../../src/agents/index.js';
import { type StubProgram, World } from './stub-world.js';

const LIB = '/opt/helix-library';
const CODEX = 'codex --dangerously-bypass-approvals-and-sandbox exec';
const CLAUDE = 'claude -p --permission-mode bypassPermissions --dangerously-skip-permissions --no-session-persistence --output-format stream-json --verbose';
const DDX = 'ddx agent run --harness';
const FOLLOW = 'Follow the action exactly. Do the work — do not just describe what you would do.';

/** The prompt as one shell word, the way the dry-run line quotes it. */
const quoted = (lines: string[]) => shellQuote(`${lines.join('\n')}\n`);

/**
 * Each action's prompt, line for line as docs/contract/bash-interface.md §1 gives it. `cli` is the tracker command
 * the prompt names: `ddx bead` with DDx installed, helix's own `helix tracker` without it.
 */
const tracker = (root: string) => `Issue tracker: built-in JSONL at ${root}/.ddx/beads.jsonl (legacy: .ddx/issues.jsonl).`;
const PROMPT = {
  align: (root: string, cli: string, scope = 'repo') => [
    'Execute the following HELIX alignment action.',
    `Read and follow the action at ${LIB}/actions/reconcile-alignment.md.`,
    `Use supporting references at ${LIB}/README.md and ${LIB}/templates/alignment-review.md as needed.`,
    `Execute in the current repository rooted at ${root}.`,
    `${tracker(root)} Use \`${cli}\` subcommands.`,
    `Review scope: ${scope}.`,
    'Governing alignment bead: create or claim the relevant kind:planning,action:align bead before proceeding.',
    FOLLOW,
  ],
  design: (root: string, scope = 'repo', rounds = 5) => [
    'Execute the following HELIX plan action.',
    `Read and follow the action at ${LIB}/actions/plan.md.`,
    `Use supporting references at ${LIB}/README.md and phase docs under ${LIB}/phases/ as needed.`,
    `Execute in the current repository rooted at ${root}.`,
    `Plan scope: ${scope}.`,
    `Refinement rounds: ${rounds}.`,
    FOLLOW,
  ],
  polish: (root: string, cli: string, scope = 'all open issues', rounds = 6) => [
    'Execute the following HELIX polish action.',
    `Read and follow the action at ${LIB}/actions/polish.md.`,
    `Use supporting references at ${LIB}/README.md as needed.`,
    `Execute in the current repository rooted at ${root}.`,
    `${tracker(root)} Use \`${cli}\` subcommands.`,
    `Polish scope: ${scope}.`,
    `Maximum refinement rounds: ${rounds}.`,
    FOLLOW,
  ],
  review: (root: string, cli: string, scope = 'last-commit') => [
    'Execute the following HELIX fresh-eyes review action.',
    `Read and follow the action at ${LIB}/actions/fresh-eyes-review.md.`,
    `Execute in the current repository rooted at ${root}.`,
    `${tracker(root)} Use \`${cli}\` subcommands.`,
    `Review scope: ${scope}.`,
    `IMPORTANT: File each actionable finding (critical, high, medium severity) as a tracker issue with label \`review-finding\` plus at least one scope-appropriate \`area:*\` label so findings are durable, concern-aware, and queryable via \`${cli} list --label review-finding\`. See the "Filing Findings as Tracker Issues" section in the action for the exact command pattern.`,
    FOLLOW,
  ],
  backfill: (root: string, cli: string, scope = 'repo') => [
    'Execute the following HELIX backfill action.',
    `Read and follow the action at ${LIB}/actions/backfill-helix-docs.md.`,
    `Use supporting references at ${LIB}/README.md and ${LIB}/templates/backfill-report.md as needed.`,
    `Execute in the current repository rooted at ${root}.`,
    `${tracker(root)} Use \`${cli}\` subcommands.`,
    'This is a writable live session: run real tracker commands, update docs/helix/, and do not claim that you need another session unless a concrete command actually fails.',
    `Backfill scope: ${scope}.`,
    'Return the required BACKFILL_STATUS, BACKFILL_REPORT, and RESEARCH_EPIC trailer lines exactly.',
    FOLLOW,
  ],
  experiment: (root: string, cli: string, target = 'auto-select from ready phase:iterate issues', close = false) => [
    'Execute the following HELIX experiment action.',
    `Read and follow the action at ${LIB}/actions/experiment.md.`,
    `Use supporting references at ${LIB}/README.md and ${LIB}/ratchets.md as needed.`,
    `Execute in the current repository rooted at ${root}.`,
    `${tracker(root)} Use \`${cli}\` subcommands.`,
    `Experiment target: ${target}.`,
    ...(close ? ['CLOSE SESSION: Execute Phase 3 (Session Close) — squash-merge the experiment branch, update ratchet floors, and close the issue. Do not run another iteration.'] : []),
    FOLLOW,
  ],
  check: (root: string, cli: string, scope = 'repo') => [
    'Execute the following HELIX check action.',
    `Read and follow the action at ${LIB}/actions/check.md.`,
    `Use supporting references at ${LIB}/README.md as needed.`,
    `Execute in the current repository rooted at ${root}.`,
    `${tracker(root)} Use \`${cli} ready --json\`, \`${cli} list --json\`, \`${cli} blocked --json\`.`,
    `Review scope: ${scope}.`,
    'CRITICAL: Your output MUST contain the line "NEXT_ACTION: CODE" where CODE is one of BUILD, DESIGN, POLISH, ALIGN, BACKFILL, WAIT, GUIDANCE, or STOP. This line must appear on its own, not inside a code block or backticks. Without this line the automation cannot continue. Output this line FIRST, before any other analysis.',
    FOLLOW,
  ],
};
const HELIX_TRACKER = 'helix tracker';
const DDX_BEAD = 'ddx bead';

interface Case {
  name: string;
  programs: StubProgram[];
  args: string[];
  env?: NodeJS.ProcessEnv;
  expected: (root: string) => string;
}

const cases: Case[] = [
  {
    name: 'align through codex',
    programs: ['codex'],
    args: ['align'],
    expected: (root) => `${CODEX} -C ${root} -c model_reasoning_effort=high --ephemeral --json - <<< ${quoted(PROMPT.align(root, HELIX_TRACKER))}`,
  },
  {
    name: 'design through codex with --rounds, --model and --effort',
    programs: ['codex'],
    args: ['design', 'SPEC-3', '--rounds', '3', '--model', 'gpt-x', '--effort', 'high'],
    expected: (root) => `${CODEX} -C ${root} -m gpt-x -c model_reasoning_effort=high --ephemeral --json - <<< ${quoted(PROMPT.design(root, 'SPEC-3', 3))}`,
  },
  {
    name: 'plan (the alias) through claude',
    programs: ['claude'],
    args: ['plan', '--agent', 'claude'],
    expected: (root) => `cd ${root} && ${CLAUDE} --effort high <<< ${quoted(PROMPT.design(root))}`,
  },
  {
    name: 'polish through claude with --model',
    programs: ['claude'],
    args: ['polish', '--claude', '--model', 'opus'],
    expected: (root) => `cd ${root} && ${CLAUDE} --model opus --effort medium <<< ${quoted(PROMPT.polish(root, HELIX_TRACKER))}`,
  },
  {
    name: 'polish goes to the alternate agent when both are installed and no model is named',
    programs: ['codex', 'claude'],
    args: ['polish'],
    expected: (root) => `cd ${root} && ${CLAUDE} --effort medium <<< ${quoted(PROMPT.polish(root, HELIX_TRACKER))}`,
  },
  {
    name: 'review through codex, default scope last-commit',
    programs: ['codex'],
    args: ['review'],
    expected: (root) => `${CODEX} -C ${root} -c model_reasoning_effort=high --ephemeral --json - <<< ${quoted(PROMPT.review(root, HELIX_TRACKER))}`,
  },
  {
    name: 'review with --review-agent claude never carries the primary --model',
    programs: ['codex', 'claude'],
    args: ['review', '--model', 'gpt-x', '--review-agent', 'claude'],
    expected: (root) => `cd ${root} && ${CLAUDE} --effort high <<< ${quoted(PROMPT.review(root, HELIX_TRACKER))}`,
  },
  {
    name: 'backfill through codex, default scope repo',
    programs: ['codex'],
    args: ['backfill'],
    expected: (root) => `${CODEX} -C ${root} -c model_reasoning_effort=high --ephemeral --json - <<< ${quoted(PROMPT.backfill(root, HELIX_TRACKER))}`,
  },
  {
    name: 'experiment through claude with --close',
    programs: ['claude'],
    args: ['experiment', "parse in half the time, don't break it", '--close', '--agent', 'claude'],
    expected: (root) => `cd ${root} && ${CLAUDE} <<< ${quoted(PROMPT.experiment(root, HELIX_TRACKER, "parse in half the time, don't break it", true))}`,
  },
  {
    name: 'check through codex',
    programs: ['codex'],
    args: ['check'],
    expected: (root) => `${CODEX} -C ${root} -c model_reasoning_effort=low --ephemeral --json - <<< ${quoted(PROMPT.check(root, HELIX_TRACKER))}`,
  },
  {
    name: 'align through ddx',
    programs: ['ddx', 'codex'],
    args: ['align'],
    expected: (root) => `${DDX} codex --permissions unrestricted --timeout 2700s --effort high <<< ${quoted(PROMPT.align(root, DDX_BEAD))}`,
  },
  {
    name: 'design through ddx with the agent timeout, --model and --effort',
    programs: ['ddx'],
    args: ['design', '--agent', 'claude', '--model', 'opus', '--effort', 'max'],
    env: { HELIX_AGENT_TIMEOUT: '600' },
    expected: (root) => `${DDX} claude --permissions unrestricted --timeout 600s --model opus --effort max <<< ${quoted(PROMPT.design(root))}`,
  },
  {
    name: 'review through ddx on the review agent',
    programs: ['ddx', 'codex', 'claude'],
    args: ['review', 'HEAD~2..HEAD', '--model', 'gpt-x', '--review-agent', 'claude'],
    expected: (root) => `${DDX} claude --permissions unrestricted --timeout 2700s --effort high <<< ${quoted(PROMPT.review(root, DDX_BEAD, 'HEAD~2..HEAD'))}`,
  },
  {
    name: 'backfill through ddx with a scope',
    programs: ['ddx'],
    args: ['backfill', 'src'],
    expected: (root) => `${DDX} codex --permissions unrestricted --timeout 2700s --effort high <<< ${quoted(PROMPT.backfill(root, DDX_BEAD, 'src'))}`,
  },
  {
    name: 'HELIX_DIRECT_AGENT=1 calls codex directly even with ddx installed',
    programs: ['ddx', 'codex'],
    args: ['polish', '--codex'],
    env: { HELIX_DIRECT_AGENT: '1' },
    expected: (root) => `${CODEX} -C ${root} -c model_reasoning_effort=medium --ephemeral --json - <<< ${quoted(PROMPT.polish(root, DDX_BEAD))}`,
  },
];

describe('--dry-run prints the exact agent command and runs nothing', () => {
  for (const c of cases) {
    it(c.name, () => {
      const w = new World({ programs: c.programs, env: { HELIX_LIBRARY_ROOT: LIB, ...c.env } });
      const r = w.helix([...c.args, '--dry-run']);
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(`${c.expected(w.repo)}\n`);
      // nothing ran (ddx answers only the one version probe), nothing was written
      expect(w.calls().filter((call) => call.kind !== 'execute-bead-help' && call.kind !== 'version')).toEqual([]);
      expect(existsSync(join(w.repo, '.helix-logs'))).toBe(false);
      expect(existsSync(join(w.repo, '.ddx', 'beads.jsonl'))).toBe(false);
    });
  }

  it('polish and experiment through ddx too', () => {
    const w = new World({ programs: ['ddx'], env: { HELIX_LIBRARY_ROOT: LIB } });
    expect(w.helix(['polish', '--rounds', '2', '--dry-run']).stdout).toBe(
      `${DDX} codex --permissions unrestricted --timeout 2700s --effort medium <<< ${quoted(PROMPT.polish(w.repo, DDX_BEAD, 'all open issues', 2))}\n`,
    );
    expect(w.helix(['experiment', '--dry-run']).stdout).toBe(`${DDX} codex --permissions unrestricted --timeout 2700s <<< ${quoted(PROMPT.experiment(w.repo, DDX_BEAD))}\n`);
  });
});

describe('the implementation prompt (docs/contract/bash-interface.md §1.1, with cli.md’s claim and close)', () => {
  const CRITICAL =
    'CRITICAL: If tests fail after your changes, fix them. 99% of test failures are caused by your changes, not by pre-existing breakage. Do not blame external causes, do not skip tests, do not commit with failing tests. Fix the code or fix the test. Retry up to 3 times before giving up. Never commit broken work.';

  it('direct codex: helix has claimed the bead, the agent closes it; the tracker line names no claim command', () => {
    const w = new World({ programs: ['codex'], env: { HELIX_LIBRARY_ROOT: LIB } });
    const b = w.bead({ title: 'Parse dates', acceptance: 'dates parse' });
    const r = w.helix(['build', '--dry-run']);
    expect(r.status).toBe(0);
    const lines = [
      'Execute the following HELIX implementation action.',
      `Read and follow the action at ${LIB}/actions/implementation.md.`,
      `Use supporting references at ${LIB}/README.md and ${LIB}/phases/04-build/enforcer.md as needed.`,
      `Execute in the current repository rooted at ${w.repo}.`,
      `${tracker(w.repo)} Use \`helix tracker ready --json\`, \`helix tracker show <id>\`, \`helix tracker close <id>\`.`,
      'Concurrency rule: helix has claimed the selected issue for this session; do not claim it again. Re-read it immediately before close. If tracker metadata drifted materially, do not close from stale assumptions; re-check instead.',
      `Implementation target: ${b.id}.`,
      CRITICAL,
      FOLLOW,
    ];
    // the context block comes first: the context file, an empty line and `---`
    const prompt = `# HELIX Execution Context\n\nProject root: ${w.repo}\n`;
    expect(r.stdout.startsWith(`${CODEX} -C ${w.repo} -c model_reasoning_effort=medium --ephemeral --json - <<< $'${prompt.replaceAll('\n', '\\n')}`)).toBe(true);
    expect(r.stdout).toContain(`\\n\\n---\\n${shellQuote(`${lines.join('\n')}\n`).slice(2, -1).replace(/\\n$/, '')}`);
    expect(r.stdout).not.toMatch(/--claim/);
  });
});
