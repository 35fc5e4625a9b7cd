#!/usr/bin/env node
// `npm run docs:screens`: the screens of docs/watching.md, from a real run — the built bin/helix
// running `helix run --summary --jobs 4` in a real terminal (tmux, 100×18) on a small night through
// the current-DDx stand-in (tests/stubs/ddx-current; its agent builds each bead in a few seconds,
// one bead's verification always fails). The terminal is read with tmux capture-pane while four
// builds are in flight; the capture goes between the markers in docs/watching.md and, drawn in a
// page as the terminal showed it, into docs/watching-board.png by headless Chromium (skipped,
// with one line, where Chromium is not installed). Not run by CI: the screens change only when
// the board does.
//   node scripts/watching-screens.mjs           rewrite the capture and the PNG
//   node scripts/watching-screens.mjs --print   print the capture only
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const HELIX = join(ROOT, 'bin/helix');
const STUBS = join(ROOT, 'tests/stubs');
const DOC = join(ROOT, 'docs/watching.md');
const PNG = join(ROOT, 'docs/watching-board.png');
const BEGIN = '<!-- board-screen: begin (written by `npm run docs:screens`; do not edit by hand) -->';
const END = '<!-- board-screen: end -->';
const COLUMNS = 100;
const ROWS = 18;

const work = realpathSync(mkdtempSync(join(tmpdir(), 'helix-screens-')));
const repo = join(work, 'project');
mkdirSync(join(repo, '.ddx'), { recursive: true });
const git = (...args) => spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
git('init', '-q', '-b', 'main');
git('config', 'user.email', 'screens@helix.invalid');
git('config', 'user.name', 'helix screens');

const titles = [
  'write the argument parser',
  'add the help text',
  'document every flag in the README',
  'parse durations as Go does',
  'reject an unknown flag with one line',
  'add the --version flag',
  'print the usage on an unknown command',
  'exit 7 on a bad value',
  'keep the config file beside the tracker',
  'read the config at start',
];
const at = (i) => new Date(Date.UTC(2026, 11, 1, 22, 0, i)).toISOString();
const beads = titles.map((title, i) => ({
  id: `hx-000000${(16 + i).toString(16)}`,
  title,
  description: `Create src/part${i}.txt.`,
  status: 'open',
  priority: 2,
  issue_type: 'task',
  created_at: at(i),
  updated_at: at(i),
  ...(i === 3 ? { verify: 'test -f src/never-there.txt' } : {}),
}));
writeFileSync(join(repo, '.ddx', 'beads.jsonl'), beads.map((b) => `${JSON.stringify(b)}\n`).join(''));
writeFileSync(join(repo, '.ddx', 'versions.yaml'), 'ddx_version: "v0.6.2-alpha164"\n');
writeFileSync(join(repo, '.gitignore'), '.ddx/agent-logs/\n.ddx/executions/\n');
git('add', '-A');
git('commit', '-q', '-m', 'backlog');

const script = { responses: [], defaults: Object.fromEntries(beads.map((b, i) => [b.id, { delayMs: 4000 + (i % 4) * 1500, commit: { path: `src/part${i}.txt`, content: `${b.id}\n` }, tokens: 3000 + i * 700, cost: 0.012 }])) };
writeFileSync(join(work, 'script.json'), JSON.stringify(script));
const env = {
  PATH: `${join(STUBS, 'ddx-current')}:${STUBS}:${process.env.PATH ?? ''}`,
  HOME: work,
  TERM: 'xterm-256color',
  HELIX_STUB_SCRIPT: join(work, 'script.json'),
  HELIX_STUB_LOG: join(work, 'calls.jsonl'),
  HELIX_STUB_HELIX: HELIX,
  HELIX_AGENT: 'claude',
  HELIX_MODEL: 'sonnet',
  HELIX_BACKOFF_SLEEP: '3',
  IS_SANDBOX: '1',
};

const socket = join(work, 'tmux.socket');
const tmux = (...args) => spawnSync('tmux', ['-S', socket, ...args], { cwd: repo, env, encoding: 'utf8' });
if (tmux('-V').status !== 0) {
  process.stdout.write('docs:screens: SKIPPED — tmux is not installed\n');
  process.exit(0);
}
tmux('-f', '/dev/null', 'new-session', '-d', '-s', 'night', '-x', String(COLUMNS), '-y', String(ROWS), 'sleep', '3600');
tmux('set-option', '-g', 'remain-on-exit', 'on');
tmux('new-window', '-t', 'night:', '-c', repo, process.execPath, HELIX, 'run', '--summary', '--jobs', '4', '--no-auto-align');
const screen = () => (tmux('capture-pane', '-p', '-t', 'night').stdout ?? '').replace(/\n+$/, '').split('\n').map((row) => row.trimEnd());
const history = () => tmux('capture-pane', '-p', '-S', '-', '-t', 'night').stdout ?? '';
const busy = (rows) => rows.filter((row) => /^ {1,2}\d+ hx-/.test(row)).length;

// four in flight, and the night under way: two beads done and the failing one tried
const deadline = Date.now() + 120_000;
let capture;
let last = [];
while (Date.now() < deadline) {
  const rows = screen();
  last = rows;
  const so = history();
  if (busy(rows) === 4 && so.split('→ COMPLETE').length > 2 && so.includes('FAILED')) {
    capture = rows;
    break;
  }
  await new Promise((r) => setTimeout(r, 100));
}
// the night goes on to its end (its files are removed after it)
while (capture && Date.now() < deadline + 120_000 && tmux('display-message', '-p', '-t', 'night', '#{pane_dead}').stdout.trim() !== '1') await new Promise((r) => setTimeout(r, 200));
tmux('kill-server');
if (!capture) throw new Error(`docs:screens: the night never had four builds in flight after two landed; last screen:\n${last.join('\n')}`);
// the temp folder and today's clock times vary from run to run
const text = capture.join('\n').replaceAll(work, '/tmp/helix-screens').trim();
rmSync(work, { recursive: true, force: true });
if (process.argv.includes('--print')) {
  process.stdout.write(`${text}\n`);
  process.exit(0);
}
const doc = readFileSync(DOC, 'utf8');
const from = doc.indexOf(BEGIN);
const to = doc.indexOf(END);
if (from < 0 || to < from) throw new Error(`docs:screens: the markers are missing from ${DOC}`);
writeFileSync(DOC, `${doc.slice(0, from + BEGIN.length)}\n\n\`\`\`\n${text}\n\`\`\`\n\n${doc.slice(to)}`);
process.stdout.write(`docs:screens: wrote the board's capture into ${DOC}\n`);
screenshot(text);

/** The capture drawn as the terminal showed it (a dark screen, a monospace grid), by headless Chromium. */
function screenshot(rows) {
  const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find(existsSync);
  if (!chromium) {
    process.stdout.write('docs:screens: SKIPPED the PNG — no Chromium at /usr/bin/chromium (apt-get install chromium)\n');
    return;
  }
  const escape = (s) => s.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
  const page = join(tmpdir(), `helix-board-${process.pid}.html`);
  writeFileSync(page, `<!doctype html><meta charset="utf-8"><body style="margin:0;background:#1e1e1e"><pre style="margin:0;padding:12px;color:#d4d4d4;font:14px/1.3 'DejaVu Sans Mono',monospace">${escape(rows)}</pre></body>`);
  const profile = mkdtempSync(join(tmpdir(), 'helix-chromium-'));
  const width = Math.ceil(COLUMNS * 8.45) + 24;
  const height = Math.ceil(ROWS * 18.2) + 24;
  const r = spawnSync(chromium, ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, '--hide-scrollbars', `--window-size=${width},${height}`, `--screenshot=${PNG}`, `file://${page}`], { encoding: 'utf8', timeout: 60_000 });
  rmSync(profile, { recursive: true, force: true });
  rmSync(page, { force: true });
  if (r.status !== 0 || !existsSync(PNG)) throw new Error(`docs:screens: Chromium failed: ${r.stderr}`);
  process.stdout.write(`docs:screens: wrote ${PNG}\n`);
}
