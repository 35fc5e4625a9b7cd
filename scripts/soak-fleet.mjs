#!/usr/bin/env node
// `npm run soak -- --jobs N` (soak.mjs hands over to this file): the compressed overnight with N
// builds in flight, through the real `bin/helix run --jobs N` on the current-DDx stand-in
// (tests/stubs/ddx-current: a worktree-per-attempt DDx that lands onto a moved tip, one land at a
// time). 40 beads in 8 chains of 5, each bead on a file of its own, scripted per bead:
//   - two beads whose builds hit a rate limit twice ("… Please try again in 1s."): dispatch pauses;
//   - three beads that fail for good: DDx parks each after its failed attempt (work-retry-after);
//   - one build that never returns: helix is SIGKILLed while N builds are in flight (their ddx and
//     agents with it, as a crash takes them), then started again with --max-tokens, which ends it;
//   - every other build writes its file and reports 1000 tokens.
// It prints done / parked / waiting / lost / worked twice and exits 1 when a bead is lost or worked
// twice, when a killed slot's bead was not built again by the restart, or when the budget did not end the run.
import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CHAINS, FAIL_FOR_GOOD, KILLED_IN, LIMITED, PER_CHAIN, jsonLines, soakBead, soakEnv, soakRepository, startHelix, until } from './lib/soak-project.mjs';

const JOBS = Number(process.argv[process.argv.indexOf('--jobs') + 1] ?? 4);
const ROOT = resolve(import.meta.dirname, '..');
const HELIX = join(ROOT, 'bin/helix');
const STUBS = join(ROOT, 'tests/stubs');
const BUDGET_TOKENS = 20_000;
const started = Date.now();
const { work, repo, git } = soakRepository('helix-soak-fleet-');
const beads = Array.from({ length: CHAINS * PER_CHAIN }, (_, n) => {
  const file = `work/chain${Math.floor(n / PER_CHAIN)}/step${n % PER_CHAIN}.txt`;
  return { ...soakBead(n, { title: `write ${file}`, description: `Create ${file}.`, acceptance: `${file} exists` }), file };
});
const beadsFile = join(repo, '.ddx', 'beads.jsonl');
writeFileSync(beadsFile, beads.map(({ file: _f, ...b }) => `${JSON.stringify(b)}\n`).join(''));
writeFileSync(join(repo, '.ddx', 'versions.yaml'), 'ddx_version: "v0.6.2-alpha164"\n');
// DDx's runtime files ignored, as `ddx init`'s .gitignore does (helix refuses --jobs without it)
writeFileSync(join(repo, '.gitignore'), '.ddx/agent-logs/\n');
git('add', '-A');
git('commit', '-q', '-m', 'backlog');

const never = join(work, 'never-written');
const limited = { provider: 'rate limit exceeded: Rate limit reached on tokens per min (TPM). Please try again in 1s.' };
const script = {
  responses: [
    ...LIMITED.flatMap((bead) => [{ when: bead, ...limited }, { when: bead, ...limited }]),
    { when: KILLED_IN, waitFor: never },
  ],
  defaults: Object.fromEntries(beads.map((b) => [b.id, FAIL_FOR_GOOD.includes(b.id) ? { exit: 1, commit: false, tokens: 500 } : { delayMs: 200, commit: { path: b.file, content: `${b.id}\n` }, tokens: 1000 }])),
};
const scriptPath = join(work, 'script.json');
writeFileSync(scriptPath, JSON.stringify(script));
const stubLog = join(work, 'calls.jsonl');
const env = soakEnv({
  PATH: `${join(STUBS, 'ddx-current')}:${STUBS}:${process.env.PATH ?? ''}`,
  HELIX_STUB_SCRIPT: scriptPath,
  HELIX_STUB_LOG: stubLog,
  HELIX_STUB_HELIX: HELIX,
  HELIX_BACKOFF_SLEEP: '0',
  HELIX_AGENT: 'claude',
  HELIX_MODEL: 'sonnet',
  HELIX_MEMORY: '0',
  IS_SANDBOX: '1',
  TMPDIR: work,
});
const RUN = ['run', '--summary', '--jobs', String(JOBS), '--no-auto-align', '--no-auto-review'];
const calls = () => jsonLines(stubLog);
const finalBeads = () => jsonLines(beadsFile);
const helix = (args) => startHelix(HELIX, repo, env, args);

// run 1: SIGKILLed while the never-ending build and others are in flight
const first = helix(RUN);
await until(() => calls().some((c) => c.id === KILLED_IN && c.kind === 'try'), `the build of ${KILLED_IN}`);
first.child.kill('SIGKILL');
const firstEnd = await first.done;
// the builds in flight at the kill, from run 1's own event log: dispatched, not yet answered
// (run-state.json is no witness: current DDx writes its own summary over it during `ddx try`)
const logs = join(repo, '.helix-logs');
const firstEvents = readdirSync(logs).filter((n) => n.endsWith('.events.ndjson')).flatMap((n) => jsonLines(join(logs, n)));
const count = (type, bead) => firstEvents.filter((e) => e.type === type && e.bead === bead).length;
const inFlightAtKill = [...new Set(firstEvents.filter((e) => e.type === 'dispatch').map((e) => e.bead))].filter((b) => count('dispatch', b) > count('agent_done', b));
// a crash takes the slots' processes too: the stand-in ddx processes of this run
for (const c of calls().filter((x) => x.kind === 'try' && x.pid)) {
  try {
    process.kill(c.pid, 'SIGKILL');
  } catch {
    // gone already
  }
}
writeFileSync(never, 'go\n');

// run 2: the restart, with a budget that ends it
let second = helix([...RUN, '--max-tokens', String(BUDGET_TOKENS)]);
let secondEnd = await second.done;
// A ddx killed inside its land has moved the branch (update-ref) but not yet the checkout
// (read-tree, checkout-index: ae663ca012 execute_bead_land.go, and the stand-in alike): the
// restart refuses over files that lag HEAD. That is DDx's, not helix's: said, repaired as a person
// would (the files from HEAD), and the restart run again — only when every refused file is exactly
// its content before HEAD's land, so no change of anyone's is overwritten.
const lagging = /uncommitted changes \(([^)]*)\)/.exec(secondEnd.stderr)?.[1]?.split(', ');
let personNeeded = '';
if (secondEnd.code === 13 && lagging?.every((path) => git('diff', '--quiet', 'HEAD^1', '--', path).status === 0)) {
  personNeeded = `the restart refused over ${lagging.join(', ')}: a killed DDx land left them behind HEAD; restored from HEAD and restarted`;
  git('checkout', 'HEAD', '--', ...lagging);
  second = helix([...RUN, '--max-tokens', String(BUDGET_TOKENS)]);
  secondEnd = await second.done;
}
const wallMs = Date.now() - started;

const now = Date.now();
const ours = new Set(beads.map((b) => b.id));
const all = finalBeads();
const end = all.filter((b) => ours.has(b.id));
const made = all.filter((b) => !ours.has(b.id));
const byId = new Map(end.map((b) => [b.id, b]));
const done = end.filter((b) => b.status === 'closed');
const parked = end.filter((b) => b.status === 'open' && Date.parse(b['work-retry-after'] ?? '') > now);
const lost = beads.filter((b) => {
  const after = byId.get(b.id);
  return !after || after.status === 'in_progress' || (after.status !== 'closed' && after.owner);
});
const waiting = end.filter((b) => b.status === 'open' && !parked.includes(b) && !lost.includes(b));
const log = git('log', '--format=%s', 'HEAD').stdout;
const landedTwice = beads.filter((b) => log.split('\n').filter((s) => s.startsWith(`${b.id}:`)).length > 1).map((b) => b.id);
const killedRebuilt = byId.get(KILLED_IN)?.status === 'closed';
const state = JSON.parse(readFileSync(join(repo, '.ddx', 'run-state.json'), 'utf8'));
const events = readFileSync(state.events, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));

console.log(`soak --jobs ${JOBS}: ${beads.length} beads in ${CHAINS} chains on the current-DDx stand-in; helix SIGKILLed with ${inFlightAtKill.length} builds in flight (${inFlightAtKill.join(', ')}), run 1 ended by ${firstEnd.signal ?? firstEnd.code}; restarted with --max-tokens ${BUDGET_TOKENS}`);
console.log(`beads done: ${done.length}`);
console.log(`beads parked: ${parked.length} (${parked.map((b) => b.id).join(', ')})`);
console.log(`beads waiting: ${waiting.length}`);
console.log(`beads the run added: ${made.length}${made.length ? ` (${made.map((b) => `${b.id} ${b.title}`).join('; ')})` : ''}`);
console.log(`beads lost: ${lost.length}${lost.length ? ` (${lost.map((b) => b.id).join(', ')})` : ''}`);
console.log(`beads worked twice: ${landedTwice.length}${landedTwice.length ? ` (${landedTwice.join(', ')})` : ''}`);
console.log(`limit pauses in run 2: ${events.filter((e) => e.type === 'limit').length}; run 2 exit ${secondEnd.code}, stop reason ${state.stop_reason}`);
if (personNeeded) console.log(`a person needed: ${personNeeded}`);
console.log(`wall time: ${(wallMs / 1000).toFixed(1)}s`);

const problems = [];
if (lost.length > 0) problems.push('beads were lost');
if (landedTwice.length > 0) problems.push('beads were worked twice');
if (!killedRebuilt) problems.push(`the restart did not build ${KILLED_IN}, killed in flight`);
if (inFlightAtKill.length < 2) problems.push(`only ${inFlightAtKill.length} build(s) in flight at the kill`);
if (secondEnd.code !== 21 || state.stop_reason !== 'budget') problems.push(`the budget did not end the run (exit ${secondEnd.code}, ${state.stop_reason}):\n${secondEnd.stderr.slice(-3000)}`);
if (problems.length > 0) {
  console.log(`soak FAILED: ${problems.join('; ')} (kept ${work})`);
  process.exit(1);
}
if (!process.env.SOAK_KEEP) rmSync(work, { recursive: true, force: true });
console.log('soak passed');
