#!/usr/bin/env node
// `npm run soak -- --jobs 3 --kills K --stops S [--seed N]` (soak.mjs hands over to this file when
// --kills or --stops is given): a night of crashes and stops. The real `bin/helix run --jobs N` on
// current DDx — the stand-in (tests/stubs/ddx-current), or the real binary HELIX_TEST_DDX names —
// builds 40 beads in 8 chains of 5, each on a file of its own with a verify command that takes a
// second (so helix's gate has a phase to hit). Meanwhile helix and every process it started are
// SIGKILLed K times (a crash: frozen with SIGSTOP first, so nothing reacts, then killed) and stopped
// S times (`helix stop`: SIGTERM, SIGKILL after 10 s), each at a seeded random moment of a phase —
// an attempt's build, helix's gate, DDx's land — read from the run's event log (docs/events.md:
// dispatch, phase gate, gate, agent_done), every phase hit at least once by the kills and by the stops
// when K and S are 3 or more. After each, helix is started again; after the last, it runs to the end.
// The known DDx damages a kill leaves are repaired as a person would and counted on a line of their
// own (a kill inside DDx's land: the checkout behind the branch; DDx's land lock, or its tracker
// lock, without a pid; a lock of git's own — its index, HEAD, the branch — a killed git left).
// Counted from the project afterwards:
//   lost: a bead not closed, or closed with no commit of its work on the branch;
//   twice: a bead whose work landed more than once (two commits of it on the branch);
//   unverified landed: a commit of a bead's work on the branch that no `gate` event passed;
//   claims left: beads still in progress, and DDx lease files; worktrees left: git worktrees beside the checkout.
// Its last line is exactly `soak: K kills, S stops; lost 0, twice 0, unverified landed 0, claims left 0,
// worktrees left 0`, and it exits 1 when any of those five is not 0 (or a disruption could not be made).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { processTagOf } from '../dist/agents/descendants.js';
import { processStartOf } from '../dist/tracker/liveness.js';
import { CHAINS, PER_CHAIN, freezeAndKill, helixProcesses, jsonLines, lagging, seeded, soakBead, soakEnv, soakRepository, startHelix, until } from './lib/soak-project.mjs';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
};
const JOBS = arg('--jobs', 3);
const KILLS = arg('--kills', 3);
const STOPS = arg('--stops', 3);
const SEED = arg('--seed', Date.now() % 2 ** 31);
const ROOT = resolve(import.meta.dirname, '..');
const HELIX = join(ROOT, 'bin/helix');
const STUBS = join(ROOT, 'tests/stubs');
const PHASES = ['build', 'gate', 'land'];
/** `helix stop`'s grace before its SIGKILL (docs/contract/cli.md). */
const STOP_GRACE_MS = 10_000;
/** How far into a phase a disruption may come, at most (the land is short). */
const WITHIN_MS = { build: 1500, gate: 700, land: 60 };
const started = Date.now();
const random = seeded(SEED);

// ── which DDx: the stand-in, or the real current binary HELIX_TEST_DDX names ───────────────────
const realDdx = (process.env.HELIX_TEST_DDX ?? '')
  .split(delimiter)
  .map((e) => e.trim())
  .filter(Boolean)
  .map((e) => (statSync(resolve(e)).isDirectory() ? join(resolve(e), 'ddx') : resolve(e)))
  .find((bin) => spawnSync(bin, ['try', '--help'], { encoding: 'utf8', env: { ...process.env, DDX_DISABLE_UPDATE_CHECK: '1' } }).status === 0);

// ── the project ────────────────────────────────────────────────────────────────────────────────
const { work, repo, git } = soakRepository('helix-soak-chaos-');
const beads = Array.from({ length: CHAINS * PER_CHAIN }, (_, n) => {
  const file = `work/chain${Math.floor(n / PER_CHAIN)}/step${n % PER_CHAIN}.txt`;
  return { ...soakBead(n, { title: `write ${file}`, description: `Create ${file}.`, acceptance: `${file} exists`, verify: `sleep 1 && test -f ${file}` }), file };
});
const beadsFile = join(repo, '.ddx', 'beads.jsonl');
writeFileSync(beadsFile, beads.map(({ file: _f, ...b }) => `${JSON.stringify(b)}\n`).join(''));
const script = { responses: [], defaults: Object.fromEntries(beads.map((b) => [b.id, { delayMs: 1000, commit: { path: b.file, content: `${b.id}\n` }, tokens: 1000 }])) };
const scriptPath = join(work, 'script.json');
writeFileSync(scriptPath, JSON.stringify(script));
// the stub agents' script and call log; no backoff sleeps; claude through DDx, no memory store
// (not what this soak measures); TMPDIR: DDx's leases and helix's gate worktrees inside the soak's folder
const common = { HELIX_STUB_SCRIPT: scriptPath, HELIX_STUB_LOG: join(work, 'calls.jsonl'), HELIX_STUB_HELIX: HELIX, HELIX_BACKOFF_SLEEP: '0', HELIX_AGENT: 'claude', HELIX_MODEL: 'sonnet', HELIX_ALT_AGENT: 'none', HELIX_REVIEW_AGENT: 'claude', HELIX_MEMORY: '0', IS_SANDBOX: '1', TMPDIR: work, DDX_DISABLE_UPDATE_CHECK: '1' };
let env;
if (realDdx) {
  // as tests/ddx/targets.ts sets up a real DDx's project: its own HOME, `ddx init`, committed as a user would
  const home = realpathSync(mkdtempSync(join(tmpdir(), 'helix-soak-home-')));
  env = soakEnv({ ...common, HOME: home, PATH: `${resolve(realDdx, '..')}:${join(ROOT, 'tests/ddx/agent')}:${STUBS}:${process.env.PATH ?? ''}` });
  spawnSync(realDdx, ['init', '--silent', '--skip-claude-injection', '--no-git'], { cwd: repo, env, encoding: 'utf8' });
  spawnSync(realDdx, ['bead', 'list'], { cwd: repo, env, encoding: 'utf8' });
} else {
  env = soakEnv({ ...common, PATH: `${join(STUBS, 'ddx-current')}:${STUBS}:${process.env.PATH ?? ''}` });
  writeFileSync(join(repo, '.ddx', 'versions.yaml'), 'ddx_version: "v0.6.2-alpha164"\n');
  // DDx's runtime files ignored, as `ddx init`'s .gitignore does (helix refuses --jobs without it)
  writeFileSync(join(repo, '.gitignore'), '.ddx/agent-logs/\n');
}
git('add', '-A');
git('commit', '-q', '-m', 'backlog');
const RUN = ['run', '--summary', '--jobs', String(JOBS), '--no-auto-align', '--no-auto-review'];
const logs = join(repo, '.helix-logs');
const eventFiles = () => (existsSync(logs) ? readdirSync(logs).filter((n) => n.endsWith('.events.ndjson')).map((n) => join(logs, n)) : []);

/** The event log of the run with this pid (its first event says so). */
const eventsOf = (pid) => eventFiles().map(jsonLines).find((events) => events[0]?.type === 'run_start' && events[0].pid === pid) ?? [];

/**
 * Each bead's phase now, from the run's events: build (dispatched: DDx's intake, build and review),
 * gate (`phase` gate, written by helix's gate), land (a `gate` pass), until its agent_done. Only
 * forward within an attempt: the run reads DDx's sessions every 2 s, and may write `review` after
 * the gate has begun.
 */
function phasesNow(pid) {
  const order = ['build', 'gate', 'land', 'after the gate'];
  const now = new Map();
  const enter = (bead, phase) => {
    if (order.indexOf(phase) > order.indexOf(now.get(bead) ?? 'build')) now.set(bead, phase);
  };
  for (const e of eventsOf(pid)) {
    if (e.type === 'dispatch' && e.action === 'build') now.set(e.bead, 'build');
    else if (e.type === 'phase' && e.phase === 'gate') enter(e.bead, 'gate');
    else if (e.type === 'gate') enter(e.bead, e.verdict === 'pass' ? 'land' : 'after the gate');
    else if (e.type === 'agent_done' && e.action === 'build') now.delete(e.bead);
  }
  return now;
}
const inPhase = (pid, phase) => [...phasesNow(pid)].filter(([, p]) => p === phase).map(([bead]) => bead);

// ── the known DDx damages, repaired as a person would ─────────────────────────────────────────
const repairs = { 'checkout behind the branch': 0, 'land lock without a pid': 0, 'tracker lock without a pid': 0, 'git lock': 0 };
function repair() {
  for (const [lock, what] of [['.ddx/offline-coordination.lock', 'land lock without a pid'], ['.ddx/.git-tracker.lock', 'tracker lock without a pid']]) {
    if (existsSync(join(repo, lock)) && !existsSync(join(repo, lock, 'pid'))) {
      rmSync(join(repo, lock), { recursive: true, force: true });
      repairs[what]++;
    }
  }
  // a git killed mid-commit leaves its index.lock and HEAD.lock, one killed in update-ref the branch's
  // lock: git then refuses every commit and every move of the branch (`cannot lock ref 'HEAD'`)
  for (const lock of ['index.lock', 'HEAD.lock', 'refs/heads/main.lock']) {
    if (!existsSync(join(repo, '.git', lock))) continue;
    rmSync(join(repo, '.git', lock), { force: true });
    repairs['git lock']++;
  }
  // a DDx killed inside its land moved the branch but not yet the checkout: the files from HEAD, only
  // when each changed file is exactly an earlier version of it (nobody's change is overwritten)
  const behind = lagging(git);
  if (behind.length > 0) {
    git('checkout', 'HEAD', '--', ...behind);
    repairs['checkout behind the branch']++;
  }
}

// ── the night ──────────────────────────────────────────────────────────────────────────────────
/** K kills and S stops, each aimed at a phase: every phase once per kind before any twice, in a seeded order. */
function plan() {
  const aimed = (kind, count) => {
    const offset = Math.floor(random() * PHASES.length);
    return Array.from({ length: count }, (_, i) => ({ kind, phase: PHASES[(offset + i) % PHASES.length] }));
  };
  const all = [...aimed('kill', KILLS), ...aimed('stop', STOPS)];
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [all[i], all[j]] = [all[j], all[i]];
  }
  return all;
}

const said = [];
const problems = [];
let running;
const start = () => {
  repair();
  running = startHelix(HELIX, repo, env, RUN);
  running.exit = undefined;
  running.done.then((end) => (running.exit = end));
  return running;
};

/** Waits for a moment inside `phase` (a seeded delay into it, still in it then); undefined when the run ended first. */
async function momentIn(phase) {
  for (;;) {
    const pid = running.child.pid;
    await until(() => running.exit !== undefined || inPhase(pid, phase).length > 0, `a bead in the ${phase} phase`, 300_000);
    if (running.exit !== undefined) return undefined;
    const delay = Math.floor(random() * WITHIN_MS[phase]);
    const waitUntil = Date.now() + delay;
    await until(() => Date.now() >= waitUntil || running.exit !== undefined, 'the moment');
    const beadsThere = inPhase(pid, phase);
    if (beadsThere.length > 0 && running.exit === undefined) return beadsThere;
  }
}

let escalated = 0;
for (const [n, disruption] of plan().entries()) {
  if (!running || running.exit !== undefined) start();
  let there = await momentIn(disruption.phase);
  // a run that refused over a damage (exit 13: the checkout behind the branch) is repaired and started again
  for (let tries = 0; !there && running.exit?.code === 13 && tries < 3; tries++) {
    start();
    there = await momentIn(disruption.phase);
  }
  if (!there) {
    problems.push(`disruption ${n + 1} (${disruption.kind} in ${disruption.phase}) could not be made: the run ended first (exit ${running.exit.code}):\n${running.exit.stderr.slice(-2000)}`);
    break;
  }
  const pid = running.child.pid;
  const tag = processTagOf(pid, processStartOf(pid));
  if (disruption.kind === 'kill') {
    freezeAndKill(helixProcesses(pid, tag));
    await running.done;
  } else {
    running.child.kill('SIGTERM');
    const deadline = Date.now() + STOP_GRACE_MS;
    await until(() => running.exit !== undefined || Date.now() > deadline, 'the stop');
    if (running.exit === undefined) {
      escalated++;
      running.child.kill('SIGKILL');
    }
    await running.done;
  }
  // nothing of that helix may be left running when the next one starts (a crash takes it all; a stop waits for its calls)
  await until(() => helixProcesses(pid, tag).length === 0, `the processes of helix ${pid} to end`, 30_000);
  said.push(`${disruption.kind} ${n + 1}: in ${disruption.phase} (${there.join(', ')}), helix ${pid} ended by ${running.exit.signal ?? `exit ${running.exit.code}`}`);
}

// ── then a run to the end ───────────────────────────────────────────────────────────────────────
let last;
for (let tries = 0; tries < 3; tries++) {
  if (running?.exit === undefined) await running?.done;
  start();
  last = await running.done;
  if (last.code !== 13) break; // 13: refused over a damage (repaired at the next start)
}
if (last.code !== 0) problems.push(`the run to the end exited ${last.code ?? last.signal}:\n${last.stderr.slice(-3000)}`);

// ── the count, from the project ────────────────────────────────────────────────────────────────
const byId = new Map(jsonLines(beadsFile).map((b) => [b.id, b]));
const passed = new Set(eventFiles().flatMap(jsonLines).filter((e) => e.type === 'gate' && e.verdict === 'pass').map((e) => `${e.bead} ${e.diff_head}`));
const landed = new Map(beads.map((b) => [b.id, git('log', '--no-merges', '--format=%H', 'HEAD', '--', b.file).stdout.split('\n').filter(Boolean)]));
const lost = beads.filter((b) => byId.get(b.id)?.status !== 'closed' || landed.get(b.id).length === 0).map((b) => b.id);
const twice = beads.filter((b) => landed.get(b.id).length > 1).map((b) => b.id);
const unverified = beads.flatMap((b) => landed.get(b.id).filter((sha) => !passed.has(`${b.id} ${sha}`)).map((sha) => `${b.id} ${sha.slice(0, 12)}`));
const leases = join(work, 'ddx-claim-heartbeats');
const leaseFiles = existsSync(leases) ? readdirSync(leases, { recursive: true }).filter((f) => String(f).endsWith('.json')) : [];
const claimsLeft = [...byId.values()].filter((b) => b.status === 'in_progress').map((b) => b.id).concat(leaseFiles.map((f) => `lease ${f}`));
const worktreesLeft = git('worktree', 'list', '--porcelain').stdout.split('\n').filter((l) => l.startsWith('worktree ')).slice(1).map((l) => l.slice('worktree '.length));

const list = (items) => (items.length ? ` (${items.join(', ')})` : '');
console.log(`soak: ${beads.length} beads in ${CHAINS} chains, --jobs ${JOBS}, on ${realDdx ? `the real DDx ${realDdx}` : 'the current-DDx stand-in'}; seed ${SEED}`);
for (const line of said) console.log(line);
console.log(`stops that waited out helix stop's 10 s and were SIGKILLed: ${escalated}`);
console.log(`repaired as a person would: ${Object.entries(repairs).map(([what, n]) => `${what} ${n}`).join(', ')}`);
console.log(`lost${list(lost)}; twice${list(twice)}; unverified landed${list(unverified)}; claims left${list(claimsLeft)}; worktrees left${list(worktreesLeft)}`);
console.log(`wall time: ${((Date.now() - started) / 1000).toFixed(1)}s`);
for (const problem of problems) console.log(`soak: ${problem}`);
const counts = [lost, twice, unverified, claimsLeft, worktreesLeft].map((c) => c.length);
const failed = counts.some((c) => c > 0) || problems.length > 0;
if (failed) console.log(`soak FAILED (kept ${work})`);
else if (!process.env.SOAK_KEEP) rmSync(work, { recursive: true, force: true });
console.log(`soak: ${KILLS} kills, ${STOPS} stops; lost ${counts[0]}, twice ${counts[1]}, unverified landed ${counts[2]}, claims left ${counts[3]}, worktrees left ${counts[4]}`);
process.exitCode = failed ? 1 : 0;
