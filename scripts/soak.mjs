#!/usr/bin/env node
// `npm run soak`: a compressed overnight, through the real `bin/helix run` (run `npm run build`
// first; `npm run soak` does). 40 beads in 8 chains of 5 (each bead blocked by the one before it),
// worked by the stub codex of tests/stubs (direct path), scripted per bead:
//   - two usage-limit windows: two builds in a row end on codex's "rate limit exceeded … try again
//     in 1s" (turn.failed), on one bead early in the first run and one in the second;
//   - three beads that fail for good (every build exits 1): skipped after 4 attempts and parked
//     (work-retry-after), their chains' later beads left waiting;
//   - one build that never returns: helix is killed with SIGKILL while it runs (the agent's process
//     group with it, as a crash takes both), then started again — the restart must recover the claim;
//   - every other build closes its bead and reports 1000 tokens (500 for a failing one);
//   - HELIX_NOTIFY: a notifier (argv, no shell) that appends each event it is given;
//   - the restarted run has --max-tokens 15000, which ends it (exit 21, stop reason budget), and the
//     default HELIX_ORPHAN_THRESHOLD (2 h): the killed run's claim is reclaimed at once because
//     nothing of that run is left (its claim names its process; no process of its calls runs).
// It prints beads done / parked / waiting / lost / worked twice, spend against the budget,
// notifications, limit waits and wall time, and exits 1 when any bead is lost or worked twice,
// when the budget did not end the run, or when it took 3 minutes or more.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CHAINS, FAIL_FOR_GOOD, KILLED_IN, LIMITED, PER_CHAIN, jsonLines, soakBead, soakEnv, soakRepository, startHelix, until } from './lib/soak-project.mjs';

// `--kills K --stops S [--seed N]`: a night of crashes and stops at random moments, on current DDx (soak-chaos.mjs)
if (process.argv.includes('--kills') || process.argv.includes('--stops')) {
  await import('./soak-chaos.mjs');
  process.exit(process.exitCode ?? 0);
}
// `--jobs N` (N > 1): the same night with N builds in flight, on current DDx (soak-fleet.mjs)
const jobsAt = process.argv.indexOf('--jobs');
if (jobsAt >= 0 && Number(process.argv[jobsAt + 1]) > 1) {
  await import('./soak-fleet.mjs');
  process.exit(process.exitCode ?? 0);
}

const ROOT = resolve(import.meta.dirname, '..');
const HELIX = join(ROOT, 'bin/helix');
const STUBS = join(ROOT, 'tests/stubs');
const BUDGET_TOKENS = 15_000;
const LIMIT_OF = 180_000;
const started = Date.now();

// ── the project ───────────────────────────────────────────────────────────────────────────────
const { work, repo, git } = soakRepository('helix-soak-');
git('commit', '-q', '--allow-empty', '-m', 'initial');

const beads = Array.from({ length: CHAINS * PER_CHAIN }, (_, n) => soakBead(n, { title: `soak bead ${n}` }));
const beadsFile = join(repo, '.ddx', 'beads.jsonl');
writeFileSync(beadsFile, beads.map((b) => `${JSON.stringify(b)}\n`).join(''));

const never = join(work, 'never-written');
const limit = (bead) => ({ when: 'implementation', ids: [bead], turnFailed: 'rate limit exceeded: Rate limit reached on tokens per min (TPM). Please try again in 1s.', exit: 1 });
const script = {
  executeBeadHelp: false,
  responses: [
    ...LIMITED.flatMap((bead) => [limit(bead), limit(bead)]),
    { when: 'implementation', ids: [KILLED_IN], waitFor: never },
    ...FAIL_FOR_GOOD.flatMap((bead) => Array.from({ length: 8 }, () => ({ when: 'implementation', ids: [bead], stdout: 'could not do it\n', tokens: 500, exit: 1 }))),
  ],
  defaults: { implementation: { run: [['helix', 'tracker', 'close', '{{id}}']], stdout: 'done\n', tokens: 1000 }, check: { stdout: 'NEXT_ACTION: STOP\n' } },
};
const scriptPath = join(work, 'script.json');
writeFileSync(scriptPath, JSON.stringify(script));
const stubLog = join(work, 'calls.jsonl');
const notified = join(work, 'notified.jsonl');
const notifier = join(work, 'notify.mjs');
writeFileSync(notifier, "import { appendFileSync } from 'node:fs';\nlet s = '';\nprocess.stdin.on('data', (d) => (s += d));\nprocess.stdin.on('end', () => appendFileSync(process.argv[2], s));\n");

const env = soakEnv({
  PATH: `${STUBS}:${process.env.PATH ?? ''}`,
  HELIX_STUB_SCRIPT: scriptPath,
  HELIX_STUB_LOG: stubLog,
  HELIX_STUB_HELIX: HELIX,
  HELIX_BACKOFF_SLEEP: '0',
  HELIX_ALT_AGENT: 'none',
  HELIX_MEMORY: '0',
  IS_SANDBOX: '1',
  HELIX_NOTIFY: JSON.stringify([process.execPath, notifier, notified]),
});

const calls = () => jsonLines(stubLog);
const runState = () => JSON.parse(readFileSync(join(repo, '.ddx', 'run-state.json'), 'utf8'));
const finalBeads = () => jsonLines(beadsFile);
const RUN = ['run', '--summary', '--agent', 'codex', '--no-auto-align', '--no-auto-review'];

const helix = (args) => startHelix(HELIX, repo, env, args);

// ── run 1: killed mid-build ─────────────────────────────────────────────────────────────────────
const first = helix(RUN);
await until(() => calls().some((c) => c.id === KILLED_IN && c.action === 'implementation'), `the build of ${KILLED_IN}`);
const agent = calls().find((c) => c.id === KILLED_IN && c.action === 'implementation');
first.child.kill('SIGKILL');
// the agent leads its own process group (helix starts it so): a crash of the machine or session takes it too
try {
  process.kill(-agent.pid, 'SIGKILL');
} catch {
  process.kill(agent.pid, 'SIGKILL');
}
const firstEnd = await first.done;
const firstState = runState();

// ── run 2: the restart, with a budget that ends it ─────────────────────────────────────────────
// With the default orphan threshold: helix and its agent are both dead, so the restart reclaims
// the killed attempt's bead at once (HELIX_ORPHAN_THRESHOLD is for a claimer whose agent may still
// be working).
const second = helix([...RUN, '--max-tokens', String(BUDGET_TOKENS)]);
const secondEnd = await second.done;
const secondState = runState();
const wallMs = Date.now() - started;

// ── the count ──────────────────────────────────────────────────────────────────────────────────
const now = Date.now();
const end = finalBeads();
const byId = new Map(end.map((b) => [b.id, b]));
const done = end.filter((b) => b.status === 'closed');
const parked = end.filter((b) => b.status === 'open' && Date.parse(b['work-retry-after'] ?? '') > now);
// lost: gone from the file, or still claimed (in progress, a claim key) with no run left to settle it
const claimKeys = ['claimed-at', 'claimed-pid', 'claim-token'];
const lost = beads.filter((b) => {
  const after = byId.get(b.id);
  return !after || after.status === 'in_progress' || (after.status !== 'closed' && claimKeys.some((k) => after[k] !== undefined));
});
const waiting = end.filter((b) => b.status === 'open' && !parked.includes(b) && !lost.includes(b));
// a build that did the bead's work: the default response, which closes it
const successes = new Map();
for (const c of calls()) if (c.action === 'implementation' && c.response === null) successes.set(c.id, (successes.get(c.id) ?? 0) + 1);
const workedTwice = [...successes].filter(([, n]) => n > 1).map(([bead]) => bead);
const notes = jsonLines(notified);
const byType = {};
for (const n of notes) byType[n.type] = (byType[n.type] ?? 0) + 1;
const events = [firstState.events, secondState.events].flatMap((path) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)));
const limitWaits = events.filter((e) => e.type === 'limit_resume').length;
const reclaimed = (secondEnd.stderr.match(new RegExp(`reclaiming orphaned ${KILLED_IN} .*no process of its agent calls left`, 'g')) ?? []).length;
const limitWindows = new Set(events.filter((e) => e.type === 'claim' && LIMITED.includes(e.bead)).map((e) => e.bead)).size;
const parkEvents = events.filter((e) => e.type === 'park').length;
const spent = secondState.spent ?? {};

console.log(`soak: ${beads.length} beads in ${CHAINS} chains; helix SIGKILLed during ${KILLED_IN} (run 1 ended by ${firstEnd.signal ?? firstEnd.code}), restarted with --max-tokens ${BUDGET_TOKENS}`);
console.log(`beads done: ${done.length}`);
console.log(`beads parked: ${parked.length} (${parked.map((b) => b.id).join(', ')})`);
console.log(`beads waiting: ${waiting.length} (blocked by a parked bead, or not reached before the budget)`);
console.log(`beads lost: ${lost.length}${lost.length ? ` (${lost.map((b) => b.id).join(', ')})` : ''}`);
console.log(`beads worked twice: ${workedTwice.length}${workedTwice.length ? ` (${workedTwice.join(', ')})` : ''}`);
console.log(`run 1: ${firstState.spent?.tokens ?? '?'} tokens before the kill; run 2: ${spent.tokens ?? '?'} tokens against --max-tokens ${BUDGET_TOKENS} (cost unknown for ${spent.unknown_cost_calls ?? '?'} calls: codex reports none); run 2 exit ${secondEnd.code}, stop reason ${secondState.stop_reason}`);
console.log(`the killed run's claim on ${KILLED_IN}: ${reclaimed ? 'reclaimed at once by the restart (default HELIX_ORPHAN_THRESHOLD)' : 'NOT reclaimed'}`);
console.log(`limit windows: ${limitWindows} (${limitWaits} waits, each until codex's named reset + 1 s); parks: ${parkEvents}`);
console.log(`notifications sent: ${notes.length} (${Object.entries(byType).map(([t, n]) => `${t} ${n}`).join(', ')})`);
console.log(`wall time: ${(wallMs / 1000).toFixed(1)}s`);

const problems = [];
if (lost.length > 0) problems.push('beads were lost');
if (reclaimed !== 1) problems.push(`the restart did not reclaim ${KILLED_IN} at once`);
if (workedTwice.length > 0) problems.push('beads were worked twice');
if (secondEnd.code !== 21 || secondState.stop_reason !== 'budget') problems.push(`the budget did not end the run (exit ${secondEnd.code}, ${secondState.stop_reason}):\n${secondEnd.stderr}`);
if (limitWaits !== 2 * LIMITED.length) problems.push(`expected the two limit windows (two limited builds each) to be waited out, saw ${limitWaits} waits`);
if (parked.length !== FAIL_FOR_GOOD.length) problems.push(`expected ${FAIL_FOR_GOOD.length} parked beads`);
if (wallMs >= LIMIT_OF) problems.push(`took ${(wallMs / 1000).toFixed(1)}s, the limit is ${LIMIT_OF / 1000}s`);
if (problems.length > 0) {
  console.log(`soak FAILED: ${problems.join('; ')} (kept ${work})`);
  process.exit(1);
}
rmSync(work, { recursive: true, force: true });
console.log('soak passed');
