// The body of the DDx stand-ins (../ddx-0.6.1/ddx, ../ddx-current/ddx): each version's command
// tree, flags and errors (cobra.mjs), its store and claim rules (store.mjs), and the execution
// commands with a scripted harness. What the "agent" does inside an execution comes from the test
// script ($HELIX_STUB_SCRIPT, the same queue the other stubs use, tags `execute-bead`, `try`,
// `work`, `agent-run`, `run`); every call is logged to $HELIX_STUB_LOG. See README.md here.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { defaultResponse, log, readScript, runCommand, substitute, takeResponse, withPrompt } from '../stub-core.cjs';
import { ExitError, command, execute, tree } from './cobra.mjs';
import { goNow, goNowSeconds, goStruct, goValue, indent } from './go-json.mjs';
import { blockEvents, runPreMergeChecks, watchCancel } from './checks.mjs';
import { recordSession, writeResult } from './sessions.mjs';
import { Store, encodeBead, parseDurationOr, processAlive } from './store.mjs';

const VERSIONS = {
  '0.6.1': { version: 'v0.6.1', commit: '93be5c8cb2', store: 'v0.6.1' },
  current: { version: 'v0.6.2-alpha164', commit: 'ae663ca012', store: 'current' },
};

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms) => Atomics.wait(sleeper, 0, 0, ms);

function git(cwd, ...args) {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  return { ok: r.status === 0, out: (r.stdout ?? '').trim(), err: (r.stderr ?? '').trim() };
}

function projectRoot() {
  const top = git(process.cwd(), 'rev-parse', '--show-toplevel');
  return top.ok ? top.out : process.cwd();
}

function storeFor(root, kind) {
  return new Store(process.env.DDX_BEAD_DIR ? join(root, process.env.DDX_BEAD_DIR) : join(root, '.ddx'), kind);
}

function record(kind, argv, extra = {}) {
  const call = { program: 'ddx', argv, stdin: extra.stdin ?? '', cwd: process.cwd(), kind, action: extra.action ?? null, id: extra.id ?? null };
  return call;
}

/**
 * The scripted harness answer for an execution or prompt (null: the default). For an execution
 * the bead id is a tag too, so a response can be meant for one bead (`"when": "hx-00000002"`).
 */
function harness(call) {
  const script = readScript();
  const { index, response } = takeResponse(script, call.id && !call.action ? { ...call, action: call.id } : call);
  log(call, index);
  if (response) return response;
  // `defaults` by tag, as in the other stubs (for executions: the kind or the bead id)
  for (const tag of [call.id, call.kind, call.action]) if (tag && script.defaults?.[tag]) return script.defaults[tag];
  return null;
}

function logWorked(id, by) {
  log({ program: 'ddx', argv: [], stdin: '', cwd: process.cwd(), kind: 'worked', action: by, id }, null);
}

/**
 * One attempt at a bead with the scripted harness, in the project tree (DDx's in-tree attempt
 * backend; v0.6.1 used an isolated worktree — what helix can observe is the same: the result
 * commit lands on the branch, or exists only under refs/ddx/iterations/…).
 */
async function attempt(root, store, bead, response, by, { detached = false, beforeLand, mergeOntoTip = false } = {}) {
  const r = response ?? {};
  const fill = (v) => substitute(v, bead.id);
  for (const argv of r.run ?? []) runCommand(fill(argv), { program: 'ddx', cwd: root });
  if (r.waitFor) while (!existsSync(fill(r.waitFor))) sleep(10);
  if (r.delayMs) sleep(r.delayMs);
  logWorked(bead.id, by);
  const base = git(root, 'rev-parse', 'HEAD').out;
  // a provider that refuses every request: the agent makes nothing and exits 1
  const exit = r.provider ? 1 : (r.exit ?? 0);
  const change = r.commit === false || r.provider ? undefined : { path: fill(r.commit?.path ?? `work/${bead.id}.txt`), content: fill(r.commit?.content ?? `${bead.id}\n`) };
  // The agent's commit, built without touching the work tree (plumbing on a private index).
  let resultRev = base;
  if (change) {
    const index = join(root, '.git', `ddx-standin-index-${process.pid}`);
    const env = { ...process.env, GIT_INDEX_FILE: index };
    const run = (...args) => spawnSync('git', args, { cwd: root, env, encoding: 'utf8', input: args[0] === 'hash-object' ? change.content : undefined }).stdout.trim();
    run('read-tree', base);
    const blob = run('hash-object', '-w', '--stdin');
    run('update-index', '--add', '--cacheinfo', `100644,${blob},${change.path}`);
    const treeId = run('write-tree');
    // the same content again is no commit at all (the agent's `git commit` finds nothing to commit)
    if (treeId !== git(root, 'rev-parse', `${base}^{tree}`).out) resultRev = spawnSync('git', ['commit-tree', treeId, '-p', base, '-m', `${bead.id}: ${bead.title}`], { cwd: root, encoding: 'utf8' }).stdout.trim();
    spawnSync('rm', ['-f', index]);
  }
  const preserveRef = `refs/ddx/iterations/${bead.id}/${new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, 'Z')}-${base.slice(0, 12)}`;
  const result = { outcome: 'merged', reason: '', preserveRef: '', exitCode: exit, resultRev, baseRev: base };
  if (exit !== 0 && resultRev === base) Object.assign(result, { outcome: 'error', reason: 'agent execution failed' });
  else if (resultRev === base) Object.assign(result, { outcome: 'no-changes', reason: 'agent made no commits' });
  else if (exit !== 0 || r.landing === 'preserved') {
    git(root, 'update-ref', preserveRef, resultRev);
    Object.assign(result, { outcome: 'preserved', preserveRef, reason: exit !== 0 ? 'agent execution failed' : (r.reason ?? 'post-run checks failed') });
  } else if (detached) {
    // nothing to land on: the result stays where the agent left it
  } else if ((result.checks = await beforeLand?.(base, resultRev))?.blocked) {
    // current DDx's pre-merge checks blocked it (checks.mjs): preserved, never landed
    git(root, 'update-ref', preserveRef, resultRev);
    Object.assign(result, { outcome: 'preserved', preserveRef, reason: result.checks.reason });
  } else if (mergeOntoTip) {
    // current DDx's land step (execute_bead_land.go): one land at a time, onto whatever landed meanwhile
    withLandLock(root, () => landOntoTip(root, bead, change.path, base, resultRev, preserveRef, result));
  } else if (git(root, 'rev-parse', 'HEAD').out !== base) {
    git(root, 'update-ref', preserveRef, resultRev);
    Object.assign(result, { outcome: 'preserved', preserveRef, reason: 'ff-merge not possible' });
  } else {
    // land: fast-forward the branch to the result and bring its file into the work tree
    advanceBranch(root, resultRev, base, change.path, preserveRef, result);
  }
  return result;
}

/**
 * The land's last step: the branch from `from` to `to`, then the file into the checkout. A branch
 * git cannot move (a lock a killed git left: `cannot lock ref 'HEAD'`) lands nothing and leaves the
 * checkout alone: DDx keeps the result under its ref and reports `land_retry` (ae663ca012
 * execute_bead_report.go MarkResultLandError, classifyLandCoordinationAction).
 */
function advanceBranch(root, to, from, path, preserveRef, result) {
  const moved = git(root, 'update-ref', 'HEAD', to, from);
  if (!moved.ok) {
    git(root, 'update-ref', preserveRef, result.resultRev);
    Object.assign(result, { outcome: 'land_coordination_retry', preserveRef, reason: `land coordination retry: land advancer: ${moved.err.split('\n')[0]}` });
    return;
  }
  git(root, 'checkout', to, '--', path);
}

/**
 * Lands a result as current DDx does (measured, docs/scale.md): a fast-forward when the branch has
 * not moved, else a merge commit onto the tip (`Merge bead <id> …`); a conflict is kept aside
 * (DDx lets the tip win a text conflict and drops the later bead's hunks — the stand-in keeps the
 * attempt under its ref instead, as DDx does for a conflict it cannot settle).
 */
function landOntoTip(root, bead, path, base, resultRev, preserveRef, result) {
  const tip = git(root, 'rev-parse', 'HEAD').out;
  if (tip === base) {
    advanceBranch(root, resultRev, base, path, preserveRef, result);
    return;
  }
  const merged = spawnSync('git', ['merge-tree', '--write-tree', tip, resultRev], { cwd: root, encoding: 'utf8' });
  const tree = (merged.stdout ?? '').split('\n')[0]?.trim();
  if (merged.status !== 0 || !tree) {
    git(root, 'update-ref', preserveRef, resultRev);
    Object.assign(result, { outcome: 'preserved', preserveRef, reason: 'merge conflict', unresolvable: true });
    return;
  }
  const branch = git(root, 'symbolic-ref', '--short', 'HEAD').out;
  const commit = spawnSync('git', ['commit-tree', tree, '-p', tip, '-p', resultRev, '-m', `Merge bead ${bead.id} into ${branch}`], { cwd: root, encoding: 'utf8' }).stdout.trim();
  advanceBranch(root, commit, tip, path, preserveRef, result);
  if (result.outcome === 'merged') result.resultRev = commit;
}

/**
 * DDx's offline land coordinator for one checkout (ae663ca012 offline_coordinator.go): a lock directory
 * holding the owner's pid and acquired_at, broken when that pid is dead or the lock is ten minutes old,
 * given up after 30 s with DDx's error. Kept under .git so the stand-in's tracker commits never see it.
 * One deviation: DDx makes the directory, then writes its files, and removes them before the directory,
 * so a kill in between leaves a lock with no pid that nothing breaks; the stand-in takes and gives back
 * the lock by renaming a full directory, so a killed stand-in never leaves that (docs/scale.md).
 */
function withLandLock(root, work) {
  const lock = join(root, '.git', 'ddx-standin-land.lock');
  const mine = `${lock}.${process.pid}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    mkdirSync(mine, { recursive: true });
    writeFileSync(join(mine, 'pid'), String(process.pid));
    writeFileSync(join(mine, 'acquired_at'), new Date().toISOString());
    try {
      renameSync(mine, lock);
      break;
    } catch (err) {
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
      if (breakStaleLandLock(lock)) continue;
      if (Date.now() > deadline) {
        const owner = textOf(join(lock, 'pid')).trim() || 'unknown';
        rmSync(mine, { recursive: true, force: true });
        throw new Error(`offline coordination lock: timeout waiting for project lock (owner pid: ${owner} path: ${lock})`);
      }
      sleep(25);
    }
  }
  try {
    return work();
  } finally {
    renameSync(lock, mine);
    rmSync(mine, { recursive: true, force: true });
  }
}

/** A file's text, '' when it is not there (a lock released between the look and the read). */
function textOf(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function breakStaleLandLock(lock) {
  const pid = Number.parseInt(textOf(join(lock, 'pid')), 10);
  const acquired = Date.parse(textOf(join(lock, 'acquired_at')).trim());
  const dead = pid > 0 && pid !== process.pid && !processAlive(pid);
  if (!dead && !(Date.now() - acquired > 10 * 60_000)) return false;
  const broken = `${lock}.broken.${process.pid}`;
  try {
    renameSync(lock, broken);
  } catch {
    return true; // another waiter broke it first
  }
  rmSync(broken, { recursive: true, force: true });
  return true;
}

/** ClassifyExecuteBeadStatus (both versions), plus a scripted override. */
function classify(result, override) {
  if (override) return override;
  if (result.exitCode !== 0) return 'execution_failed';
  if (result.unresolvable) return 'land_conflict_unresolvable';
  switch (result.outcome) {
    case 'merged':
      return 'success';
    case 'no-changes':
      return 'no_changes';
    case 'error':
      return 'execution_failed';
    case 'land_coordination_retry':
      return 'land_retry';
    case 'preserved':
      if (result.reason.startsWith('pre-merge checks')) return 'post_run_check_failed';
      return { 'merge conflict': 'land_conflict', 'merge failed': 'land_conflict', 'ff-merge not possible': 'land_conflict', 'post-run checks failed': 'post_run_check_failed', 'ratchet miss': 'ratchet_failed', 'needs review': 'preserved_needs_review' }[result.reason] ?? 'success';
    default:
      return 'execution_failed';
  }
}

function readPrompt(values) {
  if (values.text) return values.text;
  if (values.prompt) return readFileSync(values.prompt, 'utf8');
  try {
    return readFileSync(0, 'utf8'); // helix's stdin is a pipe; a terminal would not be read
  } catch {
    return '';
  }
}

// ── commands shared by both trees ──────────────────────────────────────────────────────────────

function versionCommand(v) {
  return command({ name: 'version', short: 'Show version information', flags: { 'no-check': { type: 'bool' } }, run: (_, __, io) => io.out(`DDx ${v.version}\nCommit: ${v.commit}\nBuilt: ddx-standin\n`) });
}

function runCommandFor(kind, silenceUsage) {
  return command({
    name: 'run',
    short: 'Invoke an agent with a prompt',
    silenceUsage,
    flags: Object.fromEntries(['project', 'prompt', 'text', 'harness', 'model', 'profile', 'effort', 'timeout', 'permissions', 'output', ...(kind === 'agent' ? ['quorum', 'harnesses', 'worktree', 'post-run'] : ['provider', 'persona'])].map((f) => [f, { type: 'string' }]).concat([['json', { type: 'bool' }]])),
    run: (values, _, io) => {
      if (values.timeout && parseDurationOr(values.timeout, NaN) !== parseDurationOr(values.timeout, NaN)) throw new Error(`invalid timeout: time: invalid duration "${values.timeout}"`);
      const prompt = readPrompt(values);
      const call = withPrompt(record(kind === 'agent' ? 'agent-run' : 'run', process.argv.slice(2), { stdin: prompt }), prompt);
      const response = harness(call) ?? defaultResponse(call, readScript());
      for (const argv of response.run ?? []) runCommand(substitute(argv, call.id ?? ''), call);
      const failed = Boolean(response.provider) || Boolean(response.exit);
      recordSession(projectRoot(), kind === 'agent' ? '0.6.1' : 'current', { prefix: 'as', tokens: response.tokens ?? 100, cost: response.cost ?? 0.001, failed, output: response.provider ?? response.stdout ?? '', harness: values.harness });
      if (response.provider) {
        io.err(`${response.provider}\n`);
        throw new Error('exit status 1');
      }
      if (response.stdout) io.out(substitute(response.stdout, call.id ?? ''));
      if (response.stderr) io.err(substitute(response.stderr, call.id ?? ''));
      if (response.exit) throw new Error(`agent exited with code ${response.exit}`);
    },
  });
}

function beadGroup(kind) {
  const store = () => storeFor(projectRoot(), VERSIONS[kind].store);
  const printBeads = (beads, json, io) => {
    if (json) io.out(beads.length ? indent(`[${beads.map((b) => encodeBead(b, VERSIONS[kind].store)).join(',')}]`) : '[]\n');
    else for (const b of beads) io.out(`${b.id}  [P${b.priority}] [${b.status}] ${b.title}\n`);
  };
  return command({
    name: 'bead',
    short: 'Manage beads',
    children: [
      command({ name: 'ready', args: 'none', flags: { json: { type: 'bool' }, execution: { type: 'bool' } }, run: (v, _, io) => printBeads(store().ready(v.execution), v.json, io) }),
      command({ name: 'list', args: 'none', flags: { json: { type: 'bool' }, status: { type: 'string' } }, run: (v, _, io) => printBeads(store().readAll().filter((b) => !v.status || b.status === v.status), v.json, io) }),
      command({
        name: 'show', use: '<id>', args: 'exact1', flags: { json: { type: 'bool' } },
        run: (v, [id], io) => {
          const b = store().readAll().find((x) => x.id === id);
          if (!b) throw new Error(`bead: not found: ${id}`);
          io.out(v.json ? indent(encodeBead(b, VERSIONS[kind].store)) : `${b.id}  ${b.title}\n`);
        },
      }),
      command({
        name: 'update', use: '<id>', args: 'exact1', flags: { claim: { type: 'bool' }, unclaim: { type: 'bool' }, assignee: { type: 'string' }, notes: { type: 'string' } },
        run: (v, [id]) => {
          if (v.claim) return void store().claim(id, v.assignee || 'ddx');
          if (v.unclaim) return void store().unclaim(id);
          store().update(id, (b) => {
            if (v.notes !== undefined) b.notes = v.notes;
          });
        },
      }),
      command({ name: 'close', use: '<id>', args: 'exact1', flags: { session: { type: 'string' }, commit: { type: 'string' } }, run: (v, [id]) => void store().closeWithEvidence(id, v.session, v.commit) }),
      // AppendEvent: inline `events` on an open bead (both versions have the command)
      command({
        name: 'evidence',
        short: 'Manage append-only execution evidence',
        children: [
          command({
            name: 'add', use: '<id>', args: 'exact1', flags: Object.fromEntries(['kind', 'summary', 'body', 'source', 'actor'].map((f) => [f, { type: 'string' }])),
            run: (v, [id]) => void store().update(id, (b) => {
              const event = { actor: v.actor || 'ddx', body: v.body ?? '', created_at: goNow(), kind: v.kind || 'summary', source: v.source || 'ddx bead evidence add', summary: v.summary ?? '' };
              b.extra.events = [...(Array.isArray(b.extra.events) ? b.extra.events : []), event];
            }),
          }),
        ],
      }),
    ],
  });
}

// ── v0.6.1 ─────────────────────────────────────────────────────────────────────────────────────

function executeBeadInvocation() {
  return command({
    name: 'execute-bead',
    use: '<bead-id>',
    short: 'Run an agent on one bead in an isolated worktree, then land the result',
    args: 'exact1',
    flags: Object.fromEntries([...['project', 'from', 'harness', 'model', 'provider', 'model-ref', 'effort', 'context-budget', 'prompt'].map((f) => [f, { type: 'string' }]), ['no-merge', { type: 'bool' }], ['json', { type: 'bool' }]]),
    run: async (values, [id], io) => {
      if (!/^[a-zA-Z0-9._-]+$/.test(id)) throw new Error(`invalid bead ID "${id}": must contain only letters, digits, dots, underscores, and hyphens`);
      const root = projectRoot();
      const store = storeFor(root, 'v0.6.1');
      const bead = store.readAll().find((b) => b.id === id);
      // `--prompt` replaces DDx's whole prompt (93be5c8cb2 execute_bead.go buildPrompt): it is what the harness sees
      const call = record('execute-bead', process.argv.slice(2), { id, stdin: values.prompt ? readFileSync(values.prompt, 'utf8') : bead ? executeBeadPrompt(bead) : '' });
      const response = harness(call);
      if (!bead) throw new Error(`execute-bead context load: bead: not found: ${id}`);
      // CommitTracker, then the checkpoint of every other uncommitted change (execute_bead.go)
      const tracker = join(store.dir, 'beads.jsonl');
      if (existsSync(tracker) && (git(root, 'diff', '--', '.ddx/beads.jsonl').out || git(root, 'ls-files', '--others', '--exclude-standard', '.ddx/beads.jsonl').out)) {
        git(root, 'add', '.ddx/beads.jsonl');
        git(root, 'commit', '--no-verify', '-q', '-m', `chore: update tracker (execute-bead ${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)})`);
      }
      const attemptId = `${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${process.pid}`;
      git(root, 'add', '-A', '--', '.');
      if (git(root, 'diff', '--cached', '--name-only').out) git(root, 'commit', '-q', '-m', `chore: checkpoint pre-execute-bead ${attemptId}`);
      const started = goNow();
      const detached = !git(root, 'symbolic-ref', '-q', 'HEAD').ok;
      const result = await attempt(root, store, bead, response ?? {}, 'execute-bead', { detached });
      const status = classify(result, response?.status);
      const res = goStruct([
        ['bead_id', id], ['attempt_id', attemptId, true], ['base_rev', result.baseRev], ['result_rev', result.resultRev, true],
        ['outcome', result.outcome], ['status', status, true], ['detail', result.reason || status, true], ['reason', result.reason, true],
        ['preserve_ref', result.preserveRef, true], ['harness', values.harness, true], ['model', values.model, true],
        ['session_id', `eb-${process.pid}`, true], ['duration_ms', 1], ['tokens', response?.tokens ?? 100, true], ['cost_usd', response?.cost ?? 0.001, true], ['exit_code', result.exitCode],
        ['started_at', started], ['finished_at', goNow()],
      ]);
      const bundle = `.ddx/executions/${attemptId}`;
      recordSession(root, '0.6.1', { prefix: 'eb', beadId: id, tokens: response?.tokens ?? 100, cost: response?.cost ?? 0.001, failed: Boolean(response?.provider) || result.exitCode !== 0, output: response?.provider ?? response?.output ?? 'done', bundle, harness: values.harness });
      writeResult(root, bundle, JSON.parse(res.text));
      if (detached && result.outcome === 'merged') {
        // measured: the agent ran, then landing failed and the work is on no branch
        throw new Error('land advancer: resolving target branch: git symbolic-ref HEAD: fatal: ref HEAD is not a symbolic ref: exit status 128');
      }
      if (result.outcome === 'merged' && git(root, 'remote', 'get-url', 'origin').ok) git(root, 'push', '-q', 'origin', 'HEAD'); // v0.6.1 pushes what it landed
      if (values.json) io.out(indent(res.text));
      else io.out(`bead:    ${id}\nbase:    ${result.baseRev}\noutcome: ${result.outcome}\nstatus:  ${status}\n`);
    },
  });
}

function executeLoopCommand(name = 'execute-loop') {
  return command({
    name,
    short: 'Drain the single-project execution-ready bead queue',
    args: 'none',
    flags: Object.fromEntries([...['project', 'from', 'harness', 'model', 'profile', 'provider', 'model-ref', 'effort', 'poll-interval', 'review-harness', 'review-model', 'min-tier', 'max-tier'].map((f) => [f, { type: 'string' }]), ...['once', 'json', 'local', 'no-review', 'no-adaptive-min-tier'].map((f) => [f, { type: 'bool' }])]),
    run: (values, _, io) => {
      if (!values.local) throw new Error('execute-loop: no ddx server is running for this project (ddx-standin: only --local is stood in for)');
      return loop('v0.6.1', values.once, io);
    },
  });
}

/** DDx's own worker loop: pick the first execution-ready bead, claim it, work it, close or unclaim. */
async function loop(kind, once, io) {
  const root = projectRoot();
  const store = storeFor(root, kind);
  const tried = new Set();
  for (;;) {
    const candidate = store.ready(true).find((b) => !tried.has(b.id));
    if (!candidate) return;
    tried.add(candidate.id);
    try {
      store.claim(candidate.id, 'ddx-worker', `loop-${process.pid}`);
    } catch {
      continue; // claim race: another worker took it
    }
    const call = record('work', process.argv.slice(2), { id: candidate.id });
    const response = harness(call);
    const result = await attempt(root, store, candidate, response ?? {}, 'loop');
    const status = classify(result, response?.status);
    if (status === 'success') store.closeWithEvidence(candidate.id, `loop-${process.pid}`, result.resultRev);
    else store.unclaim(candidate.id);
    io.out(`${candidate.id}: ${status}\n`);
    if (once) return;
  }
}

function tree061() {
  const v = VERSIONS['0.6.1'];
  return tree(
    command({
      name: 'ddx',
      persistentFlags: { config: { type: 'string' }, verbose: { type: 'bool', short: 'v' }, 'library-base-path': { type: 'string' } },
      children: [
        versionCommand(v),
        command({ name: 'agent', short: 'Invoke AI agents with harness dispatch, quorum, and session logging', run: (_, __, io) => io.out('Unified interface for dispatching work to AI coding agents.\n'), children: [runCommandFor('agent', false), executeBeadInvocation(), executeLoopCommand()] }),
        executeLoopCommand('work'),
        beadGroup('0.6.1'),
      ],
    }),
  );
}

// ── current ────────────────────────────────────────────────────────────────────────────────────

/**
 * The default-branch preflight of `ddx try` (ae663ca012 internal/git/default_branch_preflight.go),
 * as measured: detached HEAD is refused; with an `origin`, a branch without an upstream or whose
 * upstream is not origin/HEAD's branch is refused; `--allow-non-default-branch` lets each through
 * with a warning. Returns the error line, or undefined.
 */
function branchPreflight(root, allow, io) {
  const head = git(root, 'symbolic-ref', '-q', 'HEAD');
  const branch = head.ok ? head.out.replace(/^refs\/heads\//, '') : '';
  if (allow) {
    io.err(`WARNING: --allow-non-default-branch: continuing on branch "${branch || '(detached HEAD)'}"\n`);
    return undefined;
  }
  if (!branch) return 'HEAD is detached; check out a branch that tracks the remote default branch before draining the queue (e.g. git switch <default-branch>)';
  if (!git(root, 'remote', 'get-url', 'origin').ok) return undefined;
  const originHead = git(root, 'symbolic-ref', 'refs/remotes/origin/HEAD');
  const defaultBranch = originHead.ok ? originHead.out.replace(/^refs\/remotes\/origin\//, '') : '';
  if (!defaultBranch) return undefined; // a warning only
  const merge = git(root, 'config', '--get', `branch.${branch}.merge`);
  const upstream = merge.ok ? merge.out.replace(/^refs\/heads\//, '') : '';
  if (!upstream) return `branch "${branch}" has no configured upstream; set upstream to the remote default branch "${defaultBranch}" (refs/remotes/origin/${defaultBranch}) before draining (e.g. git branch -u origin/${defaultBranch})`;
  if (upstream !== defaultBranch) return `current branch "${branch}" upstream ${merge.out} does not match remote default branch refs/remotes/origin/${defaultBranch}; refusing to drain — fix branch.${branch}.merge or check out the default branch (override with --allow-non-default-branch when intentional)`;
  return undefined;
}

/** Uncommitted paths DDx counts as implementation changes (ae663ca012 predispatch_dirty.go: its own files do not count). */
function dirtyPaths(root) {
  const r = spawnSync('git', ['status', '--porcelain=v1', '-z', '--untracked-files=all'], { cwd: root, encoding: 'utf8' });
  return (r.stdout ?? '').split('\0').filter((rec) => rec.length > 3).map((rec) => rec.slice(3))
    .filter((path) => !/^\.ddx\/(beads\.jsonl|beads-archive\.jsonl|metrics\/|executions|workers|coordination|runs|run-state|attachments|harness-sessions|agent-logs|beads\.lock|\.git-tracker\.lock)/.test(path));
}

/** CommitTracker: DDx commits the bead file before it runs the agent (`chore: update tracker (execute-bead <stamp>)`). */
function commitTracker(root) {
  if (!git(root, 'status', '--porcelain', '--', '.ddx/beads.jsonl').out) return;
  git(root, 'add', '.ddx/beads.jsonl');
  git(root, 'commit', '--no-verify', '-q', '-m', `chore: update tracker (execute-bead ${new Date().toISOString().replace(/[-:]/g, '').slice(0, 15)})`);
}

/** The part of DDx's synthesized `<execute-bead>` prompt the bead supplies (execute_bead.go), notes included. */
function executeBeadPrompt(bead) {
  const part = (tag, value) => (value && String(value).trim() ? [`    <${tag}>`, String(value).trim(), `    </${tag}>`] : [`    <${tag}/>`]);
  return ['<execute-bead>', `  <bead id="${bead.id}">`, `    <title>${bead.title}</title>`, ...part('description', bead.description), ...part('acceptance', bead.acceptance), ...(bead.notes ? part('notes', bead.notes) : []), '  </bead>', '</execute-bead>', ''].join('\n');
}

/**
 * A lifecycle session of an attempt (its intake, its review, a triage): recorded as DDx records
 * every session, when it ends — the intake before the build runs, the rest after it. A response's
 * `provider: "<text>"` is a provider that answers every request of the attempt with that error (a
 * 429, a login refused): each session fails with the CLI's text as its output, as the real DDx
 * records it.
 */
function recordLifecycle(root, beadId, response) {
  const failing = response?.provider;
  recordSession(root, 'current', { prefix: 'as', beadId, tokens: 50, cost: 0.0005, failed: Boolean(failing), output: failing ?? '{}' });
}

/**
 * What DDx records of an attempt (ae663ca012) once its build ended: the build and — after a landed
 * build — review sessions, or a triage after a failed one (sessions.mjs; its intake was recorded
 * before the build, recordLifecycle), the line in .ddx/metrics/attempts.jsonl, and the execution
 * folder's usage.json and result.json.
 */
function recordAttempt(root, store, id, status, response, detail, outcome = status === 'success' ? 'task_succeeded' : 'task_failed', resultRev = undefined, attemptId = newAttemptId()) {
  const bundle = `.ddx/executions/${attemptId}`;
  const tokens = response?.tokens ?? 100;
  const cost = response?.cost ?? 0.001;
  const failing = response?.provider;
  const lifecycle = (beadId) => recordLifecycle(root, beadId, response);
  recordSession(root, 'current', { prefix: 'eb', beadId: id, tokens, cost, failed: Boolean(failing) || (response?.exit ?? 0) !== 0, output: failing ?? response?.output ?? 'done', bundle });
  if (status === 'success') lifecycle(id); // the pre-land review
  else lifecycle(undefined); // the triage, recorded without a bead
  mkdirSync(join(store.dir, 'metrics'), { recursive: true });
  const stamp = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  appendFileSync(join(store.dir, 'metrics', 'attempts.jsonl'), `${JSON.stringify({ schema_version: 1, attempt_id: attemptId, bead_id: id, ts_start: stamp, ts_end: stamp, harness: 'standin', outcome: status, cost_usd: cost })}\n`);
  writeFileSync(join(root, bundle, 'usage.json'), JSON.stringify({ attempt_id: attemptId, tokens, cost_usd: cost }, null, 2));
  writeResult(root, bundle, { bead_id: id, attempt_id: attemptId, outcome, status, detail, ...(resultRev ? { result_rev: resultRev } : {}), failure_mode: status === 'success' ? undefined : 'unknown' });
}

let attempts = 0;
/** An attempt's id, as DDx names them (20060102T150405-<hex>): sorted by name, newest last. */
function newAttemptId() {
  return `${new Date().toISOString().replace(/[-:.]/g, '').slice(0, 15)}-${process.pid.toString(16)}${(attempts++).toString(16).padStart(2, '0')}`;
}

/**
 * recoverDanglingSuccess (execute_bead_dangling_success.go), run right after the claim: the newest
 * task_succeeded result of the bead, unless a `preserved-result-rejected` event names its
 * result_rev. On the branch already: DDx closes the bead. Not on it: DDx lands it (no pre-merge
 * check, no review) and closes it. Returns the result_rev it closed on, or undefined.
 */
function recoverDanglingSuccess(root, store, bead) {
  const prior = latestSucceeded(root, bead.id);
  if (!prior) return undefined;
  const events = Array.isArray(bead.extra.events) ? bead.extra.events : [];
  if (events.some((e) => e?.kind === 'preserved-result-rejected' && String(e.body ?? '').includes(`result_rev=${prior}`))) return undefined;
  if (!git(root, 'merge-base', '--is-ancestor', prior, 'HEAD').ok) {
    if (!git(root, 'cat-file', '-e', `${prior}^{commit}`).ok) return undefined;
    // Land(): onto the tip (a fast-forward here, else a merge commit)
    const landed = git(root, 'merge-base', '--is-ancestor', 'HEAD', prior).ok ? git(root, 'merge', '-q', '--ff-only', prior) : git(root, 'merge', '-q', '--no-ff', '--no-edit', prior);
    if (!landed.ok) return undefined;
  }
  return prior;
}

/** The result_rev of the bead's newest task_succeeded attempt (its result.json), newest folder first. */
function latestSucceeded(root, id) {
  const executions = join(root, '.ddx', 'executions');
  let names = [];
  try {
    names = readdirSync(executions).sort().reverse();
  } catch {
    return undefined;
  }
  for (const name of names) {
    let result;
    try {
      result = JSON.parse(readFileSync(join(executions, name, 'result.json'), 'utf8'));
    } catch {
      continue;
    }
    if (result.bead_id !== id || result.outcome !== 'task_succeeded' || !result.result_rev || result.result_rev === result.base_rev) continue;
    return result.result_rev;
  }
  return undefined;
}

/**
 * How current DDx parks a bead it did not land (measured on ae663ca012): no_changes → open with
 * work-retry-after +5 min; execution_failed → +6 h and work-cooldown-base-rev; an agent that
 * exits without a commit or a rationale (no_evidence_produced) → `proposed` for a human.
 */
function park(store, id, status, detail, baseRev) {
  if (status === 'no_changes') {
    store.update(id, (x) => Object.assign(x.extra, { 'work-retry-after': goNowSeconds(new Date(Date.now() + 5 * 60_000)), 'work-last-status': 'no_changes_autonomous_retry', 'work-last-detail': detail, 'work-no-changes-count': 1 }));
  } else if (status === 'no_evidence_produced') {
    store.update(id, (x) => {
      x.status = 'proposed';
      Object.assign(x.extra, { 'needs-human-reason': 'no_evidence_produced', 'needs-human-since': goNowSeconds(), 'needs-human-summary': detail, 'needs-human-source': 'ddx work' });
    });
  } else if (status === 'land_conflict_unresolvable') {
    // measured on ae663ca012: preserved, the bead back to open and parked 15 minutes
    store.update(id, (x) => Object.assign(x.extra, { 'work-retry-after': goNowSeconds(new Date(Date.now() + 15 * 60_000)), 'work-last-status': status, 'work-last-detail': detail }));
  } else if (status === 'execution_failed') {
    store.update(id, (x) => Object.assign(x.extra, { 'work-retry-after': goNowSeconds(new Date(Date.now() + 6 * 3600_000)), 'work-cooldown-base-rev': baseRev, 'work-last-status': status, 'work-last-detail': detail }));
  }
}

function tryCommandTree() {
  return command({
    name: 'try',
    use: '<bead-id>',
    short: 'Execute a specific bead through the production machinery',
    args: 'exact1',
    silenceUsage: true,
    flags: Object.fromEntries([...['project', 'from', 'harness', 'model', 'profile', 'provider', 'effort', 'attempt-backend', 'reason', 'review-tier', 'preclaim-timeout', 'route-resolution-timeout', 'attempt-wall-clock', 'request-timeout'].map((f) => [f, { type: 'string' }]), ...['min-power', 'max-power'].map((f) => [f, { type: 'int' }]), ...['force-claim', 'no-review', 'no-review-i-know-what-im-doing', 'allow-non-default-branch'].map((f) => [f, { type: 'bool' }])]),
    run: async (values, [id], io) => {
      // a cancel (SIGINT, SIGTERM) turns the pre-merge checks into infra, and the land goes on (checks.mjs)
      watchCancel();
      const root = projectRoot();
      const store = storeFor(root, 'current');
      const refused = branchPreflight(root, values['allow-non-default-branch'], io);
      if (refused) {
        io.err(`${refused}\n`);
        throw new ExitError(1);
      }
      const beads = store.readAll();
      const bead = beads.find((b) => b.id === id);
      const call = record('try', process.argv.slice(2), { id });
      if (!bead) {
        log(call, null);
        io.err(`bead not found: ${id}\n`);
        throw new ExitError(2);
      }
      if (!['open', 'in_progress'].includes(bead.status)) {
        log(call, null);
        io.err(`bead is not claimable (status=${bead.status})\n`);
        throw new ExitError(2);
      }
      const status = new Map(beads.map((b) => [b.id, b.status]));
      const unmet = bead.dependencies.map((d) => d.depends_on_id).filter((d) => status.get(d) !== 'closed');
      if (unmet.length) {
        log(call, null);
        io.err(`bead has unmet dependencies: ${unmet.join(', ')}\n`);
        throw new ExitError(2);
      }
      // ReadyExecution, then the coordinator's Store.Claim (coordination/local.go): the real binary
      // leaves the bead in_progress under owner `ddx` with its lease (measured, docs/ddx.md)
      let claimed = store.ready(true).some((b) => b.id === id);
      if (claimed) {
        try {
          store.claim(id, 'ddx', `try-${process.pid}`);
          store.update(id, (x) => {
            x.status = 'in_progress';
            x.owner = 'ddx';
          });
        } catch {
          claimed = false;
        }
      }
      if (!claimed) {
        log(call, null);
        io.err(`bead is not execution-ready (it may be actively claimed by another worker): ${id}\n`);
        throw new ExitError(2);
      }
      // read between lands (DDx's predispatch check and its land coordinator share the checkout)
      const dirty = withLandLock(root, () => dirtyPaths(root));
      if (dirty.length) {
        store.unclaim(id);
        log(call, null);
        io.out(`operator attention: project worktree ${root} has uncommitted implementation changes; released ${id}. commit or clean the listed implementation files before restarting ddx work: ${dirty.join(', ')}\n`);
        io.err('Error: \n');
        throw new ExitError(2);
      }
      withLandLock(root, () => commitTracker(root));
      // its live attempt record, written over whatever .ddx/run-state.json held (agent/run_state.go
      // WriteRunState: the "legacy compatibility summary"; measured on the real binary, docs/ddx.md)
      const now = new Date().toISOString();
      writeFileSync(join(root, '.ddx', 'run-state.json'), `${JSON.stringify({ bead_id: id, attempt_id: `try-${process.pid}`, harness: values.harness ?? 'claude', started_at: now, pid: process.pid, refreshed_at: now }, null, 2)}\n`);
      // dangling-success recovery (execute_bead_dangling_success.go): an earlier attempt's
      // task_succeeded result, landed now if it is not on the branch yet: close, run nothing
      const prior = withLandLock(root, () => recoverDanglingSuccess(root, store, store.readAll().find((b) => b.id === id)));
      if (prior) {
        log(call, null);
        store.closeWithEvidence(id, `try-${process.pid}`, prior);
        io.out(`\nbead: ${id}\nstatus: success\ndetail: dangling-success recovery: bead closed idempotently (result_rev already merged)\nresult_rev: ${prior}\n`);
        return;
      }
      // runEscalatingPowerAttempts (agent_execute_loop_escalation.go): an attempt its pre-merge checks
      // blocked is run again with the minimum power one higher, until that reaches --max-power
      // (0: without end — the stand-in stops at 100); the first asks for --min-power, else 7
      let minPower = values['min-power'] || 7;
      const maxPower = values['max-power'] || 0;
      let result;
      let outcomeStatus;
      let detail;
      for (let round = 1; ; round++) {
        const attemptId = newAttemptId();
        const evidenceDir = join(root, '.ddx', 'executions', attemptId, 'checks');
        // DDx's own prompt, from the bead (its notes included): the scripted harness sees it as its prompt
        const response = harness({ ...call, stdin: executeBeadPrompt(store.readAll().find((b) => b.id === id)) });
        recordLifecycle(root, id, response); // the pre-claim intake, ended before the build starts
        const beforeLand = (baseRev, resultRev) => {
          // result.json says task_succeeded before the review and the checks run (measured): a ddx try
          // killed during a check, or whose review malfunctioned, leaves it for the next one's
          // dangling-success recovery — the work itself is not on the branch
          writeResult(root, `.ddx/executions/${attemptId}`, { bead_id: id, attempt_id: attemptId, base_rev: baseRev, result_rev: resultRev, outcome: 'task_succeeded', status: 'success' });
          if (response?.reviewMalfunction) return { blocked: true, reviewMalfunction: true, reason: 'pre-land review malfunctioned' };
          return runPreMergeChecks(root, { beadId: id, baseRev, resultRev, evidenceDir, runId: `${attemptId}-run` });
        };
        result = await attempt(root, store, bead, response ?? {}, 'try', { beforeLand, mergeOntoTip: true });
        outcomeStatus = classify(result, response?.status);
        // measured on ae663ca012: the pre-land review gave no usable verdict; nothing landed, result.json says task_succeeded
        if (result.checks?.reviewMalfunction) {
          const detail = 'pre-land review: reviewer output: unparseable JSON verdict: approve verdict without per-AC evidence';
          recordAttempt(root, store, id, 'review_malfunction', response, detail, 'task_succeeded', result.resultRev, attemptId);
          store.unclaim(id);
          io.out(`\nbead: ${id}\nstatus: review_malfunction\ndetail: ${detail}\nresult_rev: ${result.resultRev}\n`);
          throw new ExitError(2);
        }
        // no commit: `no_changes` only with DDx's rationale file, else no evidence at all
        if (outcomeStatus === 'no_changes' && !response?.noChanges) outcomeStatus = 'no_evidence_produced';
        detail = outcomeStatus === 'no_evidence_produced' ? 'agent exited without a commit or no_changes_rationale.txt' : response?.noChanges ?? result.reason;
        const checked = outcomeStatus === 'post_run_check_failed' && result.checks?.blocked;
        recordAttempt(root, store, id, outcomeStatus, response, detail, checked ? 'preserved' : undefined, undefined, attemptId);
        // the pre-land review (on by default; --no-review needs its break-glass flag) ran before the checks
        if ((outcomeStatus === 'success' || checked) && !values['no-review']) log(record('ddx-review', [], { id, action: 'ddx-review' }), null);
        if (!checked) break;
        const facts = { attemptId, baseRev: result.baseRev, resultRev: result.resultRev, evidenceDir };
        store.update(id, (x) => {
          x.extra.events = [...(Array.isArray(x.extra.events) ? x.extra.events : []), ...blockEvents(result.checks, facts).map((e) => ({ actor: 'ddx', created_at: goNow(), source: 'ddx try', ...e }))];
        });
        const next = minPower + 1;
        if ((maxPower > 0 && next >= maxPower) || round >= 100) break;
        minPower = next;
        withLandLock(root, () => commitTracker(root));
      }
      if (outcomeStatus === 'success') {
        store.closeWithEvidence(id, `try-${process.pid}`, result.resultRev);
      } else {
        store.unclaim(id); // Release: clears the owner and the lease
        park(store, id, outcomeStatus, detail, result.baseRev);
      }
      io.out(`\nbead: ${id}\nstatus: ${outcomeStatus}\n`);
      if (detail && outcomeStatus !== 'success') io.out(`detail: ${detail}\n`);
      else io.out(`detail: ${outcomeStatus}\n`);
      if (result.resultRev) io.out(`result_rev: ${result.resultRev}\n`);
      if (outcomeStatus === 'success') io.out(`landed_branch: ${git(root, 'symbolic-ref', '--short', 'HEAD').out}\nproject_root: ${root}\n`);
      if (result.preserveRef) io.out(`preserve_ref: ${result.preserveRef}\n`);
      if (['success', 'already_satisfied'].includes(outcomeStatus)) return;
      throw new ExitError(['preserved_needs_review', 'no_changes', 'no_evidence_produced'].includes(outcomeStatus) ? 1 : 2);
    },
  });
}

function workCommand() {
  return command({
    name: 'work',
    short: 'Work the bead execution queue',
    args: 'none',
    flags: Object.fromEntries([...['project', 'from', 'harness', 'model', 'profile', 'provider', 'label-filter', 'effort', 'attempt-backend', 'reason', 'idle-interval'].map((f) => [f, { type: 'string' }]), ...['once', 'watch', 'json', 'local', 'no-review', 'ignore-cooldown'].map((f) => [f, { type: 'bool' }])]),
    run: (values, _, io) => loop('current', values.once, io),
  });
}

function treeCurrent() {
  const v = VERSIONS.current;
  return tree(
    command({
      name: 'ddx',
      persistentFlags: { config: { type: 'string' }, verbose: { type: 'bool', short: 'v' }, 'library-base-path': { type: 'string' }, 'no-update-check': { type: 'bool' } },
      flags: { version: { type: 'bool' } },
      children: [versionCommand(v), tryCommandTree(), runCommandFor('current', true), workCommand(), beadGroup('current')],
    }),
  );
}

export async function main(kind) {
  const root = kind === 'current' ? treeCurrent() : tree061();
  const argv = process.argv.slice(2);
  if (argv[0] === 'version' || argv.includes('--help') || argv.includes('-h')) log(record(argv[0] === 'version' ? 'version' : 'help', argv), null);
  let code;
  try {
    code = await execute(root, argv);
  } catch (error) {
    process.stderr.write(`Error: ${error.message}\n`);
    code = 1;
  }
  process.exitCode = code;
}

export { goValue, dirname, mkdirSync, writeFileSync };
