// The action prompts are instructions real agents follow; helix parses what those agents answer.
// These tests read the real files and check that each one carries the action phrase helix's
// prompt relies on (docs/contract/cli.md §8), demands exactly the trailer lines helix parses, and only tells
// agents to run tracker commands and flags that exist (docs/contract/cli.md §5).
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/cli.js';

const ACTIONS_DIR = join(REPO_ROOT, 'workflows', 'actions');

function readAction(file: string): string {
  return readFileSync(join(ACTIONS_DIR, file), 'utf8');
}

/** The answer template: the last fenced block, which must sit under the `## Answer` heading. */
function answerBlock(text: string): { lines: string[]; heading: string } {
  const fence = /^```[^\n]*\n([\s\S]*?)^```/gm;
  let last: RegExpExecArray | null = null;
  for (let m = fence.exec(text); m; m = fence.exec(text)) last = m;
  if (!last) throw new Error('no fenced answer block');
  const before = text.slice(0, last.index);
  const headings = [...before.matchAll(/^## (.+)$/gm)];
  return {
    lines: (last[1] ?? '').split('\n').filter((l) => l.trim() !== ''),
    heading: headings.at(-1)?.[1]?.trim() ?? '',
  };
}

/** The line of the answer block starting `PREFIX:`; throws when absent. */
function trailer(lines: string[], prefix: string): string {
  const line = lines.find((l) => l.startsWith(`${prefix}:`));
  if (!line) throw new Error(`answer block has no ${prefix}: line`);
  return line;
}

/** `STATUS: <A|B|C>` → ['A','B','C']. */
function allowedValues(line: string): string[] {
  const m = /<([A-Z_|]+)>/.exec(line);
  if (!m?.[1]) throw new Error(`no <A|B> value list in: ${line}`);
  return m[1].split('|');
}

interface ActionSpec {
  file: string;
  phrase: string;
  /** trailer prefix → the exact set of values helix accepts (null: free value). */
  trailers: Record<string, string[] | null>;
}

const ACTIONS: ActionSpec[] = [
  {
    file: 'implementation.md',
    phrase: 'implementation action',
    trailers: { DELIVERED: null, BLOCKED: null, UTILIZED: null, LEARNED: null },
  },
  {
    file: 'check.md',
    phrase: 'check action',
    trailers: { NEXT_ACTION: null },
  },
  {
    file: 'reconcile-alignment.md',
    phrase: 'alignment action',
    trailers: { ALIGNMENT_STATUS: ['ALIGNED', 'FOLLOWUPS_FILED', 'GUIDANCE_NEEDED'], FOLLOWUPS_FILED: null },
  },
  {
    file: 'plan.md',
    phrase: 'plan action',
    trailers: { PLAN_STATUS: ['CONVERGED', 'IN_PROGRESS', 'GUIDANCE_NEEDED'], ROUNDS_USED: null },
  },
  {
    file: 'polish.md',
    phrase: 'polish action',
    trailers: { POLISH_STATUS: ['CONVERGED', 'IN_PROGRESS'], ROUNDS_USED: null },
  },
  {
    file: 'fresh-eyes-review.md',
    phrase: 'fresh-eyes review',
    trailers: { REVIEW_STATUS: ['CLEAN', 'ISSUES_FOUND'], ISSUES_COUNT: null, FINDINGS_FILED: null },
  },
  {
    file: 'backfill-helix-docs.md',
    phrase: 'backfill action',
    trailers: {
      BACKFILL_STATUS: ['COMPLETE', 'GUIDANCE_NEEDED', 'BLOCKED'],
      BACKFILL_REPORT: null,
      RESEARCH_EPIC: null,
    },
  },
  {
    file: 'experiment.md',
    phrase: 'experiment action',
    trailers: { EXPERIMENT_RESULT: ['KEPT', 'DISCARDED', 'INCONCLUSIVE'], EXPERIMENT_BEAD: null },
  },
];

describe.each(ACTIONS)('workflows/actions/$file', ({ file, phrase, trailers }) => {
  const text = readAction(file);

  it(`carries the action phrase "${phrase}"`, () => {
    expect(text).toContain(phrase);
  });

  it('ends with an answer block under "## Answer" that holds every trailer helix reads', () => {
    const block = answerBlock(text);
    expect(block.heading).toBe('Answer');
    for (const [prefix, values] of Object.entries(trailers)) {
      const line = trailer(block.lines, prefix);
      if (values) expect(allowedValues(line)).toEqual(values);
    }
  });

  it('tells the agent to end its answer with the block (or, for check, to start with it)', () => {
    if (file === 'check.md') expect(text).toMatch(/FIRST line of your answer/);
    else expect(text).toMatch(/End your answer with exactly this block/);
  });
});

describe('check.md', () => {
  const text = readAction('check.md');
  const codes = ['BUILD', 'DESIGN', 'POLISH', 'ALIGN', 'BACKFILL', 'WAIT', 'GUIDANCE', 'STOP'];

  it('answer template starts with NEXT_ACTION as its first line', () => {
    expect(answerBlock(text).lines[0]).toMatch(/^NEXT_ACTION: <CODE>$/);
  });

  it('names all eight codes helix routes on in the first-line rule', () => {
    const rule = /`NEXT_ACTION: <CODE>` where `<CODE>` is one of ([^.]+)\./.exec(text.replace(/\s+/g, ' '));
    expect(rule).not.toBeNull();
    const listed = (rule?.[1] ?? '').split(/,\s*/).map((c) => c.trim());
    expect([...listed].sort()).toEqual([...codes].sort());
  });

  it('decides in the order BUILD, DESIGN, POLISH, BACKFILL, ALIGN, actionable-blocked BUILD, WAIT, GUIDANCE, STOP', () => {
    const decide = text.slice(text.indexOf('## Decide'), text.indexOf('## Answer'));
    const order = [...decide.matchAll(/^\d+\. \*\*([A-Z]+)\*\*( \(actionable blocked\))?/gm)].map(
      (m) => m[1] + (m[2] ? '*' : ''),
    );
    expect(order).toEqual(['BUILD', 'DESIGN', 'POLISH', 'BACKFILL', 'ALIGN', 'BUILD*', 'WAIT', 'GUIDANCE', 'STOP']);
  });

  it('forbids answering BUILD on WAIT', () => {
    const wait = /\*\*WAIT\*\*[^\n]*\n(?:[^\n]*\n)*?(?=\d+\. \*\*)/.exec(text)?.[0] ?? '';
    expect(wait).toMatch(/Never answer BUILD/);
  });
});

describe('action-specific duties', () => {
  it('implementation.md reads the target helix names, verifies, commits, and reports memories honestly', () => {
    const text = readAction('implementation.md');
    expect(text).toContain('Implementation target: <id>');
    expect(text).toMatch(/Verify before claiming success/);
    expect(text).toMatch(/git commit/);
    expect(trailer(answerBlock(text).lines, 'UTILIZED')).toMatch(/^UTILIZED: \[.*\]$/);
    expect(text).toMatch(/helix tracker update <id> --notes "BLOCKED:/);
  });

  it('reconcile-alignment.md runs under a kind:planning, action:align governing bead and links follow-ups', () => {
    const text = readAction('reconcile-alignment.md');
    expect(text).toContain('`kind:planning`');
    expect(text).toContain('`action:align`');
    expect(text).toMatch(/helix tracker create [^`]*--parent [^`]*--deps/);
  });

  it('fresh-eyes-review.md files findings with a parent and dependency links, and requires ISSUES_COUNT', () => {
    const text = readAction('fresh-eyes-review.md');
    expect(text).toMatch(/helix tracker create [^`]*--parent/);
    expect(text).toMatch(/helix tracker dep add/);
    expect(text).toMatch(/`ISSUES_COUNT` is required when\s+the status is ISSUES_FOUND/);
  });

  it.each([
    ['plan.md', 'default 5'],
    ['polish.md', 'default 6'],
  ])('%s takes its rounds N (%s) as input', (file, defaultRounds) => {
    const text = readAction(file);
    expect(text).toMatch(/Rounds N/);
    expect(text).toContain(defaultRounds);
  });

  it('backfill-helix-docs.md says the report file must exist', () => {
    expect(readAction('backfill-helix-docs.md')).toMatch(/fails the action if that file does not exist/);
  });

  it('experiment.md covers hypothesis, measurement, keep/discard and --close', () => {
    const text = readAction('experiment.md');
    for (const duty of ['**Hypothesis**', '**Baseline**', '**Measure**', '**Keep or discard**', '`--close`']) {
      expect(text).toContain(duty);
    }
  });
});

// docs/contract/cli.md §5: the tracker subcommands and the flags each takes.
const TRACKER_FLAGS: Record<string, string[]> = {
  init: [],
  create: ['--type', '--priority', '--labels', '--parent', '--description', '--acceptance', '--deps', '--spec-id', '--set'],
  show: ['--json', '--fingerprint'],
  update: [
    '--title', '--status', '--priority', '--labels', '--assignee', '--parent', '--description', '--notes',
    '--acceptance', '--set', '--unset', '--claim', '--pid', '--unclaim', '--token',
  ],
  close: ['--session', '--commit', '--token', '--force'],
  reopen: ['--reason'],
  list: ['--status', '--label', '--where', '--json'],
  ready: ['--execution', '--json'],
  blocked: ['--json'],
  'dep add': [],
  'dep remove': [],
  'dep tree': [],
  status: ['--json'],
  doctor: ['--fix'],
  import: [],
  export: ['--stdout'],
};

/** Every `helix tracker …` inline command in the prompts, as [subcommand, flags]. */
function trackerCommands(text: string): Array<{ command: string; sub: string; flags: string[] }> {
  const found = [];
  for (const m of text.matchAll(/`helix tracker ([^`]+)`/g)) {
    const words = (m[1] ?? '').split(/\s+/);
    if (words[0]?.startsWith('<')) continue; // the generic `helix tracker <sub>`
    const sub = words[0] === 'dep' ? `dep ${words[1]}` : (words[0] ?? '');
    const flags = words.filter((w) => w.startsWith('--')).map((w) => w.split('=')[0] ?? w);
    found.push({ command: m[0], sub, flags });
  }
  return found;
}

describe('tracker commands in the prompts', () => {
  it.each(ACTIONS.map((a) => a.file))('%s uses only tracker subcommands and flags the contract defines', (file) => {
    const commands = trackerCommands(readAction(file));
    expect(commands.length).toBeGreaterThan(0);
    for (const { command, sub, flags } of commands) {
      expect(TRACKER_FLAGS, command).toHaveProperty([sub]);
      for (const flag of flags) expect(TRACKER_FLAGS[sub], `${command}: ${flag}`).toContain(flag);
    }
  });
});
