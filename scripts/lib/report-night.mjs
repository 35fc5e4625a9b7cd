// A small real night for the report's browser lane and its screenshots: the built `bin/helix run
// --jobs 3` on the current-DDx stand-in (tests/stubs/ddx-current, DDx ae663ca012's worktree per
// attempt) with the stand-in agent of tests/stubs — no model. Ten beads on files of their own, each
// build taking its own time; one whose verification always fails (the gate blocks it, four attempts,
// then it is skipped); one whose first build hits a rate limit ("… try again in 1s": the run
// pauses, then resumes). About 20 s. Returns the project and its run's files.
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { id, soakBead, soakEnv, soakRepository } from './soak-project.mjs';

const ROOT = resolve(import.meta.dirname, '..', '..');
const HELIX = join(ROOT, 'bin', 'helix');
const STUBS = join(ROOT, 'tests', 'stubs');
// soak beads numbered by fives have no dependency: every bead here is ready at the start
export const LIMITED = id(3 * 5);
export const FAILING = id(10 * 5);

const TITLES = ['Add the --verbose flag', 'Parse the config file', 'Write the usage text', 'Colour the error lines', 'Read NO_COLOR', 'Print the version', 'Handle Ctrl-C', 'Document the exit codes', 'Add a --json output', 'Trim trailing blanks'];

/** Runs the night; returns `{ root, eventLog, page, status, stderr }` (`page`: the report the run wrote). */
export function runReportNight() {
  const { work, repo, git } = soakRepository('helix-report-night-');
  const beads = TITLES.map((title, n) => ({ ...soakBead(n * 5, { title, description: `Create work/${n}.txt.`, acceptance: `work/${n}.txt exists` }), file: `work/${n}.txt` }));
  beads.push({ ...soakBead(10 * 5, { title: 'Make the answer 42', description: 'Create work/answer.txt.', acceptance: 'the check passes', verify: 'test -f work/never-there.txt' }), file: 'work/answer.txt' });
  writeFileSync(join(repo, '.ddx', 'beads.jsonl'), beads.map(({ file: _f, ...b }) => `${JSON.stringify(b)}\n`).join(''));
  writeFileSync(join(repo, '.ddx', 'versions.yaml'), 'ddx_version: "v0.6.2-alpha164"\n');
  writeFileSync(join(repo, '.gitignore'), '.ddx/agent-logs/\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'backlog');
  const limited = { provider: 'rate limit exceeded: Rate limit reached on tokens per min (TPM). Please try again in 1s.' };
  const script = {
    responses: [{ when: LIMITED, ...limited }],
    defaults: Object.fromEntries(beads.map((b, n) => [b.id, { delayMs: 600 + ((n * 370) % 1400), commit: { path: b.file, content: `${b.id}\n` }, tokens: 800 + n * 130, cost: 0.004 + n * 0.0011 }])),
  };
  writeFileSync(join(work, 'script.json'), JSON.stringify(script));
  const env = soakEnv({
    PATH: `${join(STUBS, 'ddx-current')}:${STUBS}:${process.env.PATH ?? ''}`,
    HELIX_STUB_SCRIPT: join(work, 'script.json'),
    HELIX_STUB_LOG: join(work, 'calls.jsonl'),
    HELIX_STUB_HELIX: HELIX,
    HELIX_BACKOFF_SLEEP: '0',
    HELIX_AGENT: 'claude',
    HELIX_MODEL: 'sonnet',
    HELIX_MEMORY: '0',
    IS_SANDBOX: '1',
    TMPDIR: work,
  });
  const run = spawnSync(process.execPath, [HELIX, 'run', '--summary', '--jobs', '3', '--no-auto-align', '--no-auto-review'], { cwd: repo, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const logs = join(repo, '.helix-logs');
  const name = readdirSync(logs).find((f) => f.endsWith('.events.ndjson'));
  const eventLog = name ? join(logs, name) : undefined;
  return { work, root: repo, eventLog, page: eventLog?.replace(/\.events\.ndjson$/, '.report.html'), status: run.status, stderr: run.stderr };
}
