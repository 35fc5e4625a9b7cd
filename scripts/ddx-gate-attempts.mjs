#!/usr/bin/env node
// How many attempts one `ddx try` makes when a pre-merge check blocks every attempt, per
// --min-power / --max-power, and whether DDx's reviewer still routes (docs/ddx.md#verified-before-it-lands):
//   HELIX_TEST_DDX=/path/current/ddx node scripts/ddx-gate-attempts.mjs
// The binary must be current DDx (`ddx try`). DDx runs tests/ddx/agent/claude, a stand-in agent
// (never a model); each case is a fresh project with its own HOME and TMPDIR. Without --max-power
// DDx does not stop by itself: that case is ended after 60 s.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '..');
const ddx = (process.env.HELIX_TEST_DDX ?? '').split(':').find((entry) => entry.trim());
if (!ddx) {
  process.stdout.write('ddx-gate-attempts: SKIPPED — HELIX_TEST_DDX names no current ddx binary\n');
  process.exit(0);
}
const CASES = [[], ['--max-power', '9'], ['--max-power', '10'], ['--max-power', '12'], ['--min-power', '9', '--max-power', '10'], ['--min-power', '11', '--max-power', '12']];

function run(env, cwd, file, args, timeoutMs = 600_000) {
  const r = spawnSync(file, args, { cwd, env, encoding: 'utf8', timeout: timeoutMs, killSignal: 'SIGKILL' });
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}`, timedOut: r.error?.code === 'ETIMEDOUT' };
}

function measure(flags) {
  const base = mkdtempSync(join(tmpdir(), 'helix-gate-attempts-'));
  const [home, proj, tmp] = ['home', 'proj', 'tmp'].map((d) => join(base, d));
  for (const d of [home, proj, tmp]) mkdirSync(d);
  const log = join(base, 'calls.log');
  const script = join(base, 'script.json');
  const env = { ...process.env, HOME: home, TMPDIR: tmp, DDX_DISABLE_UPDATE_CHECK: '1', HELIX_STUB_SCRIPT: script, HELIX_STUB_LOG: log, PATH: `${dirname(resolve(ddx))}:${join(REPO, 'tests/ddx/agent')}:${process.env.PATH}` };
  const git = (...args) => run(env, proj, 'git', args);
  writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = t\n\temail = t@helix.invalid\n[init]\n\tdefaultBranch = main\n');
  git('init', '-q');
  writeFileSync(join(proj, 'README.md'), 'hello\n');
  git('add', '-A');
  git('commit', '-qm', 'init');
  run(env, proj, ddx, ['init', '--silent', '--skip-claude-injection', '--no-git']);
  run(env, proj, ddx, ['bead', 'list']);
  const id = run(env, proj, ddx, ['bead', 'create', 'Add a.txt', '--acceptance', 'a.txt exists']).out.trim().split('\n').pop();
  mkdirSync(join(proj, '.ddx', 'checks'));
  writeFileSync(join(proj, '.ddx', 'checks', 'block.yaml'), `name: block\nwhen: pre_merge\ncommand: ${JSON.stringify('printf \'{"status":"block","message":"blocked"}\' > "$EVIDENCE_DIR/$CHECK_NAME.json"')}\n`);
  appendFileSync(join(proj, '.git', 'info', 'exclude'), '.ddx/checks/\n');
  writeFileSync(script, JSON.stringify({ responses: [{ when: id, commit: { path: 'a.txt', content: 'a\n' } }] }));
  writeFileSync(log, '');
  git('add', '-A');
  git('commit', '-qm', `bead ${id}`);
  const r = run(env, proj, ddx, ['try', id, '--harness', 'claude', '--model', 'sonnet', ...flags], flags.length ? 600_000 : 60_000);
  const kinds = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).kind);
  if (process.env.DEBUG) process.stderr.write(r.out);
  const status = r.timedOut ? 'stopped after 60 s' : (/^status: (\S+)/m.exec(r.out)?.[1] ?? `exit ${r.status}`);
  return { attempts: kinds.filter((k) => k === 'worked').length, reviews: kinds.filter((k) => k === 'ddx-review').length, status };
}

const version = run(process.env, tmpdir(), ddx, ['version', '--no-check']).out.split('\n').slice(0, 2).join(', ');
process.stdout.write(`${version}: a pre-merge check that blocks every attempt\n\n| ddx try flags | attempts | DDx reviews | status |\n|---|---|---|---|\n`);
for (const flags of CASES) {
  const m = measure(flags);
  process.stdout.write(`| ${flags.length ? `\`${flags.join(' ')}\`` : '(none)'} | ${m.attempts} | ${m.reviews} | ${m.status} |\n`);
}
