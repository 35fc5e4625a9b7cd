#!/usr/bin/env node
// `npm run docs:transcript`: regenerates the `--summary` transcript in docs/supervisor.md from a
// real run — the built bin/helix, a git repository in a temp folder, the codex stand-in of
// tests/stubs (what codex 0.171 prints, no model) — of a small backlog with a bead whose
// verification keeps failing (four FAILED lines, every backoff, the block and the park), a build
// that runs into codex's rate limit (the pause and the resume), and beads that are built. What
// varies between runs (clock times, the temp folder, UTC times, log line ranges) is replaced by
// placeholders; everything else is what helix printed on stderr, in order. The backoffs are the
// real ones (5 + 10 + 20 + 40 s), so a run takes about a minute and a half.
//   node scripts/summary-transcript.mjs           rewrite the section between the markers
//   node scripts/summary-transcript.mjs --print   print the transcript only
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const HELIX = join(ROOT, 'bin/helix');
const STUBS = join(ROOT, 'tests/stubs');
const DOC = join(ROOT, 'docs/supervisor.md');
const BEGIN = '<!-- summary-transcript: begin (written by `npm run docs:transcript`; do not edit by hand) -->';
const END = '<!-- summary-transcript: end -->';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'helix-transcript-')));
const repo = join(work, 'project');
mkdirSync(join(repo, '.ddx'), { recursive: true });
const git = (...args) => spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
git('init', '-q', '-b', 'main');
git('config', 'user.email', 'transcript@helix.invalid');
git('config', 'user.name', 'helix transcript');
git('commit', '-q', '--allow-empty', '-m', 'initial');

// the project's own check: one of its tests fails whatever the agent does
writeFileSync(join(repo, 'check.sh'), "#!/bin/sh\nprintf 'running 3 tests\\nok 1 - greeting\\nnot ok 2 - the answer must be 42 (got 41)\\nok 3 - farewell\\n'\nexit 1\n");
chmodSync(join(repo, 'check.sh'), 0o755);
git('add', 'check.sh');
git('commit', '-q', '-m', 'the check');
// codex alone on PATH (no ddx): helix calls it directly
const bin = join(work, 'bin');
mkdirSync(bin);
symlinkSync(join(STUBS, 'codex'), join(bin, 'codex'));

const stamp = (n) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
const bead = (n, title, extra = {}) => ({ id: `hx-0000000${n}`, title, status: 'open', priority: 2, issue_type: 'task', created_at: stamp(n), updated_at: stamp(n), ...extra });
const beads = [
  bead(1, 'Greet the user by name'),
  bead(2, 'Make the answer 42', { verify: './check.sh' }),
  bead(3, 'Say goodbye politely'),
];
writeFileSync(join(repo, '.ddx', 'beads.jsonl'), beads.map((b) => `${JSON.stringify(b)}\n`).join(''));

const script = {
  responses: [
    // codex's own words for a per-minute limit, with the reset it names
    { when: 'implementation', ids: ['hx-00000003'], turnFailed: 'rate limit exceeded: Rate limit reached on tokens per min (TPM). Please try again in 2s.', exit: 1 },
  ],
  defaults: { implementation: { run: [['helix', 'tracker', 'close', '{{id}}']], stdout: 'done\n', tokens: 1200 }, check: { stdout: 'NEXT_ACTION: STOP\n' } },
};
writeFileSync(join(work, 'script.json'), JSON.stringify(script));

const env = {};
for (const [key, value] of Object.entries(process.env)) if (!/^(HELIX_|DDX_)/.test(key)) env[key] = value;
Object.assign(env, {
  PATH: `${bin}:${process.env.PATH ?? ''}`,
  HELIX_STUB_SCRIPT: join(work, 'script.json'),
  HELIX_STUB_HELIX: HELIX,
  HELIX_ALT_AGENT: 'none',
  HELIX_MEMORY: '0',
  IS_SANDBOX: '1',
});

const run = spawnSync(process.execPath, [HELIX, 'run', '--summary', '--agent', 'codex'], { cwd: repo, env, encoding: 'utf8' });
rmSync(work, { recursive: true, force: true });

const transcript = run.stderr
  .split(work)
  .join('/home/me')
  .replace(/\[\d\d:\d\d:\d\d\]/g, '[hh:mm:ss]')
  .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<UTC time>')
  .replace(/helix-\d{8}-\d{6}(-\d+)?\.log/g, 'helix-<stamp>.log')
  .replace(/blockers-\d{8}-\d{6}(-\d+)?\.md/g, 'blockers-<stamp>.md')
  .replace(/helix-\d{8}-\d{6}(-\d+)?\.report\.html/g, 'helix-<stamp>.report.html')
  .replace(/log L\d+–L\d+/g, 'log L<a>–L<b>')
  .replace(/resuming after waiting \d+s/g, 'resuming after waiting <s>s')
  .replace(/, \d+s, /g, ', <s>s, ')
  .trimEnd();

const block = `${BEGIN}\n\`\`\`console\n$ helix run --summary --agent codex\n${transcript}\n$ echo $?\n${run.status}\n\`\`\`\n${END}`;
if (process.argv.includes('--print')) {
  process.stdout.write(`${block}\n`);
  process.exit(0);
}
const doc = readFileSync(DOC, 'utf8');
const from = doc.indexOf(BEGIN);
const to = doc.indexOf(END);
if (from < 0 || to < from) {
  process.stderr.write(`summary-transcript: ${DOC} has no transcript markers\n`);
  process.exit(1);
}
writeFileSync(DOC, `${doc.slice(0, from)}${block}${doc.slice(to + END.length)}`);
process.stdout.write(`summary-transcript: wrote ${transcript.split('\n').length} lines of a real run (exit ${run.status}) to docs/supervisor.md\n`);
