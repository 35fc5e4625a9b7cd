#!/usr/bin/env node
// The cross-tool claim race: helix and a DDx stand-in that applies DDx's real claim rules work the
// same bead file at the same time; no bead may be worked twice.
//   node scripts/ddx-claim-race.mjs [--rounds 50] [--beads 8] [--version 0.6.1|current|both] [--helix bin/helix] [--work-ms 40]
//   HELIX_TEST_DDX="/path/v0.6.1/ddx:/path/current/ddx" node scripts/ddx-claim-race.mjs   (real DDx: 3 rounds, helix works 15 s a bead)
// Per round: a fresh git repo with N open beads; DDx's own worker loop (`ddx agent execute-loop
// --local` on v0.6.1, `ddx work` on current) and a helix worker (`helix tracker ready --execution`,
// `helix tracker update <id> --claim`, work, `helix tracker close`) start together and drain the
// queue. Each side logs every bead it worked; a bead worked by both, or twice, is a double.
// Prints one line per version and exits 1 when any bead was worked twice.
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const STUBS = join(ROOT, 'tests', 'stubs');
const AGENT = join(ROOT, 'tests', 'ddx', 'agent');

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms) => Atomics.wait(sleeper, 0, 0, ms);

/** The helix side: claim through helix's tracker, work a while, close; log what it worked. */
function helixWorker({ helix, cwd, env, log, workMs }) {
  const run = (args) => spawnSync(process.execPath, [helix, ...args], { cwd, env, encoding: 'utf8' });
  const tried = new Set();
  for (;;) {
    const ready = run(['tracker', 'ready', '--execution', '--json']);
    const ids = JSON.parse(ready.stdout || '[]').map((b) => b.id).filter((id) => !tried.has(id));
    if (ids.length === 0) return;
    const id = ids[0];
    tried.add(id);
    const claim = run(['tracker', 'update', id, '--claim', '--pid', String(process.pid), '--json']);
    if (claim.status !== 0) {
      if (process.env.RACE_DEBUG) process.stderr.write(`helix claim ${id}: ${claim.status} ${claim.stderr}`);
      continue; // taken meanwhile: that is the point
    }
    appendFileSync(log, `${JSON.stringify({ kind: 'worked', action: 'helix', id })}\n`);
    sleep(workMs);
    const token = JSON.parse(claim.stdout)['claim-token'];
    run(['tracker', 'close', id, '--token', token]);
  }
}

/**
 * `real`: a real DDx binary's folder (its `ddx`) — DDx then runs tests/ddx/agent/claude, the
 * stand-in agent, and the round's project is set up as DDx expects (`ddx init`, committed).
 */
export async function raceRound({ version, beads = 8, helix = join(ROOT, 'bin', 'helix'), workMs = 40, ddxWorkMs = 300, real }) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'helix-race-')));
  const cwd = join(dir, 'repo');
  mkdirSync(join(cwd, '.ddx'), { recursive: true });
  const git = (...args) => spawnSync('git', args, { cwd, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'race@helix.invalid');
  git('config', 'user.name', 'race');
  const now = Date.UTC(2026, 0, 1);
  const lines = Array.from({ length: beads }, (_, i) => {
    const stamp = new Date(now + i * 1000).toISOString();
    const id = `race-${String(i).padStart(8, '0')}`;
    // acceptance: a real DDx's review grades each criterion
    return JSON.stringify({ id, title: `race ${i}`, description: `Create work/${id}.txt.`, acceptance: `work/${id}.txt exists`, status: 'open', priority: 2, issue_type: 'task', created_at: stamp, updated_at: stamp });
  });
  writeFileSync(join(cwd, '.ddx', 'beads.jsonl'), `${lines.join('\n')}\n`);
  const log = join(dir, 'worked.jsonl');
  const script = join(dir, 'script.json');
  writeFileSync(script, JSON.stringify({ responses: [], defaults: { work: { delayMs: ddxWorkMs }, execute: { delayMs: ddxWorkMs } } }));
  const ddxFolder = real ?? join(STUBS, `ddx-${version}`);
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(HELIX_|DDX_)/.test(k))),
    PATH: `${ddxFolder}:${real ? `${AGENT}:` : ''}${STUBS}:${process.env.PATH}`,
    HELIX_STUB_LOG: log,
    HELIX_STUB_SCRIPT: script,
    TMPDIR: dir, // DDx's lease files live under the temp folder: one per round
    ...(real ? { HOME: dir, DDX_DISABLE_UPDATE_CHECK: '1' } : {}),
  };
  if (real) {
    spawnSync(join(real, 'ddx'), ['init', '--silent', '--skip-claude-injection', '--no-git'], { cwd, env, encoding: 'utf8' });
    spawnSync(join(real, 'ddx'), ['bead', 'list'], { cwd, env, encoding: 'utf8' });
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'beads');
  const harness = real ? ['--harness', 'claude', ...(version === 'current' ? ['--model', 'sonnet'] : [])] : [];
  const ddxArgs = version === 'current' ? ['work', ...harness] : ['agent', 'execute-loop', '--local', ...harness];
  const ddx = spawn(join(ddxFolder, 'ddx'), ddxArgs, { cwd, env, stdio: 'ignore' });
  const ddxDone = new Promise((done) => ddx.on('close', done));
  // the helix worker runs in its own process so both sides really run at once
  const worker = spawn(process.execPath, [fileURLToPath(import.meta.url), '--worker', JSON.stringify({ helix, cwd, env, log, workMs })], { stdio: 'inherit' });
  await Promise.all([ddxDone, new Promise((done) => worker.on('close', done))]);
  const worked = readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((e) => e.kind === 'worked');
  const counts = new Map();
  for (const w of worked) counts.set(w.id, (counts.get(w.id) ?? 0) + 1);
  const doubles = [...counts.values()].filter((n) => n > 1).length;
  const byHelix = worked.filter((w) => w.action === 'helix').length;
  const closed = readFileSync(join(cwd, '.ddx', 'beads.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"closed"')).length;
  rmSync(dir, { recursive: true, force: true });
  return { doubles, worked: worked.length, byHelix, byDdx: worked.length - byHelix, closed };
}

export async function race({ version, rounds, beads, helix, real, workMs }) {
  const total = { rounds: 0, doubles: 0, worked: 0, byHelix: 0, byDdx: 0, roundsWithDouble: 0 };
  for (let i = 0; i < rounds; i++) {
    const r = await raceRound({ version, beads, helix, real, workMs });
    total.rounds++;
    total.doubles += r.doubles;
    total.worked += r.worked;
    total.byHelix += r.byHelix;
    total.byDdx += r.byDdx;
    if (r.doubles > 0) total.roundsWithDouble++;
  }
  return total;
}

/** A real DDx binary (or its folder) and its version, as helix detects it (the built dist/). */
async function realDdx(entry) {
  const path = resolve(entry);
  const folder = statSync(path).isDirectory() ? path : dirname(path);
  if (!existsSync(join(folder, 'ddx'))) throw new Error(`race:ddx: no ddx in ${folder} (the binary must be named ddx)`);
  const { detectDdx } = await import(join(ROOT, 'dist', 'agents', 'index.js'));
  const install = await detectDdx({ PATH: folder, DDX_DISABLE_UPDATE_CHECK: '1', HOME: tmpdir() }, tmpdir());
  if (!install?.surface) throw new Error(`race:ddx: ${folder}/ddx is not a DDx helix drives`);
  return { version: install.surface === 'agent' ? '0.6.1' : 'current', real: folder, name: `real ddx ${install.version} (${folder}/ddx)` };
}

if (process.argv[2] === '--worker') {
  helixWorker(JSON.parse(process.argv[3]));
} else if (import.meta.url === `file://${process.argv[1]}`) {
  const realOnes = (process.env.HELIX_TEST_DDX ?? '').split(':').map((e) => e.trim()).filter(Boolean);
  // a real DDx attempt takes seconds (intake, agent, review, landing; current DDx also backs off under
  // load before it claims): fewer rounds, and a helix side slow enough that both take part
  const rounds = Number(option('rounds', realOnes.length > 0 ? '3' : '50'));
  const workMs = Number(option('work-ms', realOnes.length > 0 ? '15000' : '40'));
  const beads = Number(option('beads', '8'));
  const helix = resolve(option('helix', join(ROOT, 'bin', 'helix')));
  const which = option('version', 'both');
  let failed = false;
  // HELIX_TEST_DDX names real binaries (`:`-separated, as for npm run test:ddx): race each one's own worker loop
  const targets = realOnes.length > 0 ? await Promise.all(realOnes.map(realDdx)) : (which === 'both' ? ['0.6.1', 'current'] : [which]).map((version) => ({ version }));
  for (const { version, real, name } of targets) {
    const t = await race({ version, rounds, beads, helix, real, workMs });
    console.log(`${name ?? `DDx ${version} stand-in`}: ${t.rounds} rounds × ${beads} beads: ${t.worked} beads worked (helix ${t.byHelix}, DDx ${t.byDdx}), ${t.doubles} worked twice (in ${t.roundsWithDouble} rounds)`);
    if (t.doubles > 0) failed = true;
  }
  process.exitCode = failed ? 1 : 0;
}
