// `--dry-run` prints the exact agent command each action would run, on stdout, and runs nothing
// (contract §8): codex and claude called directly, and `ddx agent run …` when ddx is installed.
// The expected lines are written out in full, as a person would paste them into bash.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type StubProgram, World } from './harness.js';

const LIB = '/opt/helix-library';
const CODEX = 'codex --dangerously-bypass-approvals-and-sandbox exec';
const CLAUDE = 'claude -p --permission-mode bypassPermissions --dangerously-skip-permissions --no-session-persistence --output-format stream-json --verbose';
const DDX = 'ddx agent run --harness';

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
    expected: (root) => `${CODEX} -C ${root} -c model_reasoning_effort=high --ephemeral --json - <<< $'Run the HELIX alignment action. Read and follow ${LIB}/actions/reconcile-alignment.md exactly.\\nScope: repo\\n'`,
  },
  {
    name: 'design through codex with --rounds, --model and --effort',
    programs: ['codex'],
    args: ['design', 'SPEC-3', '--rounds', '3', '--model', 'gpt-x', '--effort', 'high'],
    expected: (root) => `${CODEX} -C ${root} -m gpt-x -c model_reasoning_effort=high --ephemeral --json - <<< $'Run the HELIX plan action. Read and follow ${LIB}/actions/plan.md exactly.\\nScope: SPEC-3\\nRounds: 3\\n'`,
  },
  {
    name: 'plan (the alias) through claude',
    programs: ['claude'],
    args: ['plan', '--agent', 'claude'],
    expected: (root) => `cd ${root} && ${CLAUDE} --effort high <<< $'Run the HELIX plan action. Read and follow ${LIB}/actions/plan.md exactly.\\nScope: repo\\nRounds: 5\\n'`,
  },
  {
    name: 'polish through claude with --model',
    programs: ['claude'],
    args: ['polish', '--claude', '--model', 'opus'],
    expected: (root) => `cd ${root} && ${CLAUDE} --model opus --effort medium <<< $'Run the HELIX polish action. Read and follow ${LIB}/actions/polish.md exactly.\\nScope: repo\\nRounds: 6\\n'`,
  },
  {
    name: 'polish goes to the alternate agent when both are installed (and gets no --model)',
    programs: ['codex', 'claude'],
    args: ['polish', '--model', 'gpt-x'],
    expected: (root) => `cd ${root} && ${CLAUDE} --effort medium <<< $'Run the HELIX polish action. Read and follow ${LIB}/actions/polish.md exactly.\\nScope: repo\\nRounds: 6\\n'`,
  },
  {
    name: 'review through codex, default scope last-commit',
    programs: ['codex'],
    args: ['review'],
    expected: (root) => `${CODEX} -C ${root} -c model_reasoning_effort=high --ephemeral --json - <<< $'Run the HELIX fresh-eyes review. Read and follow ${LIB}/actions/fresh-eyes-review.md exactly.\\nScope: last-commit\\n'`,
  },
  {
    name: 'review with --review-agent claude never carries the primary --model',
    programs: ['codex', 'claude'],
    args: ['review', '--model', 'gpt-x', '--review-agent', 'claude'],
    expected: (root) => `cd ${root} && ${CLAUDE} --effort high <<< $'Run the HELIX fresh-eyes review. Read and follow ${LIB}/actions/fresh-eyes-review.md exactly.\\nScope: last-commit\\n'`,
  },
  {
    name: 'backfill through codex, default scope repo',
    programs: ['codex'],
    args: ['backfill'],
    expected: (root) => `${CODEX} -C ${root} -c model_reasoning_effort=high --ephemeral --json - <<< $'Run the HELIX backfill action. Read and follow ${LIB}/actions/backfill-helix-docs.md exactly.\\nScope: repo\\n'`,
  },
  {
    name: 'experiment through claude with --close',
    programs: ['claude'],
    args: ['experiment', "parse in half the time, don't break it", '--close', '--agent', 'claude'],
    expected: (root) =>
      `cd ${root} && ${CLAUDE} <<< $'Run the HELIX experiment action. Read and follow ${LIB}/actions/experiment.md exactly.\\nScope: parse in half the time, don\\'t break it\\nWhen the experiment is decided, close its bead (--close).\\n'`,
  },
  {
    name: 'check through codex',
    programs: ['codex'],
    args: ['check'],
    expected: (root) => `${CODEX} -C ${root} -c model_reasoning_effort=low --ephemeral --json - <<< $'Run the HELIX check action. Read and follow ${LIB}/actions/check.md exactly.\\nScope: repo\\nAnswer with \`NEXT_ACTION: <CODE>\` as the first line of your answer.\\n'`,
  },
  {
    name: 'align through ddx',
    programs: ['ddx', 'codex'],
    args: ['align'],
    expected: () => `${DDX} codex --permissions unrestricted --timeout 2700s --effort high --text $'Run the HELIX alignment action. Read and follow ${LIB}/actions/reconcile-alignment.md exactly.\\nScope: repo\\n'`,
  },
  {
    name: 'design through ddx with the agent timeout, --model and --effort',
    programs: ['ddx'],
    args: ['design', '--agent', 'claude', '--model', 'opus', '--effort', 'max'],
    env: { HELIX_AGENT_TIMEOUT: '600' },
    expected: () => `${DDX} claude --permissions unrestricted --timeout 600s --model opus --effort max --text $'Run the HELIX plan action. Read and follow ${LIB}/actions/plan.md exactly.\\nScope: repo\\nRounds: 5\\n'`,
  },
  {
    name: 'review through ddx on the review agent',
    programs: ['ddx', 'codex', 'claude'],
    args: ['review', 'HEAD~2..HEAD', '--model', 'gpt-x', '--review-agent', 'claude'],
    expected: () => `${DDX} claude --permissions unrestricted --timeout 2700s --effort high --text $'Run the HELIX fresh-eyes review. Read and follow ${LIB}/actions/fresh-eyes-review.md exactly.\\nScope: HEAD~2..HEAD\\n'`,
  },
  {
    name: 'backfill through ddx with a scope',
    programs: ['ddx'],
    args: ['backfill', 'src'],
    expected: () => `${DDX} codex --permissions unrestricted --timeout 2700s --effort high --text $'Run the HELIX backfill action. Read and follow ${LIB}/actions/backfill-helix-docs.md exactly.\\nScope: src\\n'`,
  },
  {
    name: 'HELIX_DIRECT_AGENT=1 calls codex directly even with ddx installed',
    programs: ['ddx', 'codex'],
    args: ['polish', '--codex'],
    env: { HELIX_DIRECT_AGENT: '1' },
    expected: (root) => `${CODEX} -C ${root} -c model_reasoning_effort=medium --ephemeral --json - <<< $'Run the HELIX polish action. Read and follow ${LIB}/actions/polish.md exactly.\\nScope: repo\\nRounds: 6\\n'`,
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
      // nothing ran (ddx answers only the execute-bead --help probe), nothing was written
      expect(w.calls().filter((call) => call.kind !== 'execute-bead-help')).toEqual([]);
      expect(existsSync(join(w.repo, '.helix-logs'))).toBe(false);
      expect(existsSync(join(w.repo, '.ddx', 'beads.jsonl'))).toBe(false);
    });
  }

  it('polish and experiment through ddx too', () => {
    const w = new World({ programs: ['ddx'], env: { HELIX_LIBRARY_ROOT: LIB } });
    expect(w.helix(['polish', '--rounds', '2', '--dry-run']).stdout).toBe(
      `${DDX} codex --permissions unrestricted --timeout 2700s --effort medium --text $'Run the HELIX polish action. Read and follow ${LIB}/actions/polish.md exactly.\\nScope: repo\\nRounds: 2\\n'\n`,
    );
    expect(w.helix(['experiment', '--dry-run']).stdout).toBe(
      `${DDX} codex --permissions unrestricted --timeout 2700s --text $'Run the HELIX experiment action. Read and follow ${LIB}/actions/experiment.md exactly.\\nScope: repo\\n'\n`,
    );
  });
});
