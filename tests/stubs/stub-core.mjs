// Shared body of the stub `ddx`, `codex` and `claude` executables used by helix's tests. Each call
// is logged as one JSON line to $HELIX_STUB_LOG and answered from the queue in $HELIX_STUB_SCRIPT
// (see README.md in this folder). Plain Node, no dependencies: the stubs must start fast and run
// exactly as the real programs are run (argv, stdin, cwd, environment, exit code).
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';

const ACTION_PHRASES = [
  ['implementation action', 'implementation'],
  ['check action', 'check'],
  ['alignment action', 'align'],
  ['backfill action', 'backfill'],
  ['plan action', 'plan'],
  ['polish action', 'polish'],
  ['fresh-eyes review', 'review'],
  ['experiment action', 'experiment'],
];

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const pause = (ms) => Atomics.wait(sleeper, 0, 0, ms);

export async function main(program) {
  const argv = process.argv.slice(2);
  const stdin = readStdin(program);
  const call = describeCall(program, argv, stdin);
  const script = readScript();

  if (call.kind === 'execute-bead-help') {
    log(call, null);
    if (script.executeBeadHelp === false) {
      process.stderr.write("Error: unknown command \"execute-bead\" for \"ddx agent\"\n");
      process.exit(1);
    }
    process.stdout.write('Usage:\n  ddx agent execute-bead <bead-id> [flags]\n\n(stub ddx)\n');
    process.exit(0);
  }
  if (call.kind === 'unsupported') {
    log(call, null);
    process.stderr.write(`stub ${program}: unsupported call: ${argv.join(' ')}\n`);
    process.exit(2);
  }

  const { index, response } = takeResponse(script, call);
  log(call, index);
  await respond(call, response ?? defaultResponse(call, script));
}

function readStdin(program) {
  if (program !== 'claude') return '';
  try {
    return readFileSync(0, 'utf8');
  } catch {
    return '';
  }
}

/** What kind of call this is, its prompt, its action and the bead it is about. */
function describeCall(program, argv, stdin) {
  const call = { program, argv, stdin, cwd: process.cwd(), kind: 'unsupported', action: null, prompt: null, id: null };
  if (program === 'ddx') {
    const [group, sub, ...rest] = argv;
    if (group === 'agent' && sub === 'execute-bead') {
      if (rest.includes('--help') || rest.includes('-h')) return { ...call, kind: 'execute-bead-help' };
      return { ...call, kind: 'execute-bead', id: rest[0] ?? null };
    }
    if (group === 'agent' && sub === 'execute-loop') return { ...call, kind: 'execute-loop', id: process.env.HELIX_SELECTED_ISSUE ?? null };
    if (group === 'agent' && sub === 'run') {
      const at = argv.indexOf('--text');
      return withPrompt({ ...call, kind: 'agent-run' }, at >= 0 ? argv[at + 1] ?? '' : '');
    }
    return call;
  }
  if (program === 'codex') return withPrompt({ ...call, kind: 'codex' }, argv[argv.length - 1] ?? '');
  if (program === 'claude') return withPrompt({ ...call, kind: 'claude' }, stdin);
  return call;
}

function withPrompt(call, prompt) {
  const lower = prompt.toLowerCase();
  const action = ACTION_PHRASES.find(([phrase]) => lower.includes(phrase))?.[1] ?? null;
  // the Bash prompt ends the line with a period: `Implementation target: <id>.`
  const target = /Implementation target:\s*(\S+?)\.?(?:\s|$)/.exec(prompt)?.[1];
  return { ...call, prompt, action, id: target ?? process.env.HELIX_SELECTED_ISSUE ?? null };
}

function tagsOf(call) {
  return [call.kind, call.program, call.action].filter(Boolean);
}

function readScript() {
  const path = process.env.HELIX_STUB_SCRIPT;
  if (!path) return { responses: [] };
  const script = JSON.parse(readFileSync(path, 'utf8'));
  return { responses: [], ...script, path };
}

/**
 * The first unconsumed response whose `when` matches this call (a kind, program or action name,
 * or a list of them; no `when` matches anything). Consumed indices live in `<script>.state`,
 * guarded by an O_EXCL lock file so concurrent calls never take the same response.
 */
function takeResponse(script, call) {
  if (!script.path || script.responses.length === 0) return { index: null, response: null };
  const statePath = `${script.path}.state`;
  const lockPath = `${script.path}.lock`;
  acquireLock(lockPath);
  try {
    const consumed = existsSync(statePath) ? JSON.parse(readFileSync(statePath, 'utf8')) : [];
    const tags = tagsOf(call);
    const index = script.responses.findIndex((response, i) => {
      if (consumed.includes(i)) return false;
      const when = response.when === undefined ? [] : [].concat(response.when);
      return when.length === 0 || when.some((w) => tags.includes(w));
    });
    if (index < 0) return { index: null, response: null };
    const temp = `${statePath}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify([...consumed, index]));
    renameSync(temp, statePath);
    return { index, response: script.responses[index] };
  } finally {
    unlinkSync(lockPath);
  }
}

function acquireLock(lockPath) {
  for (let tries = 0; ; tries++) {
    try {
      closeSync(openSync(lockPath, 'wx'));
      return;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      try {
        if (Date.now() - statSync(lockPath).mtimeMs > 10_000) unlinkSync(lockPath); // a crashed stub's lock
      } catch {
        // gone already
      }
      if (tries > 2000) throw new Error(`stub: could not lock ${lockPath}`);
      pause(5);
    }
  }
}

function log(call, responseIndex) {
  const path = process.env.HELIX_STUB_LOG;
  if (!path) return;
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(HELIX_|DDX_)/.test(key) && !key.startsWith('HELIX_STUB_')) env[key] = value;
  }
  const entry = {
    program: call.program,
    argv: call.argv,
    stdin: call.stdin,
    cwd: call.cwd,
    kind: call.kind,
    action: call.action,
    id: call.id,
    env,
    pid: process.pid,
    response: responseIndex,
  };
  appendFileSync(path, `${JSON.stringify(entry)}\n`);
}

/** What the stub does when no scripted response is left for this call. */
function defaultResponse(call, script) {
  for (const tag of tagsOf(call)) {
    if (script.defaults?.[tag]) return script.defaults[tag];
  }
  switch (call.kind) {
    case 'execute-bead':
      return { run: [['helix', 'tracker', 'close', '{{id}}']], result: {} };
    case 'execute-loop':
      return { run: [['helix', 'tracker', 'close', '{{id}}']], stdout: 'stub execute-loop: closed {{id}}\n' };
    default:
      break;
  }
  switch (call.action) {
    case 'check':
      return { stdout: 'NEXT_ACTION: STOP\nstub: nothing left to do\n' };
    case 'review':
      return { stdout: 'REVIEW_STATUS: CLEAN\nISSUES_COUNT: 0\nFINDINGS_FILED: 0\n' };
    case 'plan':
      return { stdout: 'PLAN_STATUS: CONVERGED\n' };
    case 'polish':
      return { stdout: 'POLISH_STATUS: CONVERGED\n' };
    case 'implementation':
      return call.id ? { run: [['helix', 'tracker', 'close', '{{id}}']], stdout: 'stub: implemented {{id}}\n' } : { stdout: 'stub: no target\n' };
    default:
      return { stdout: `stub ${call.program}: ok\n` };
  }
}

async function respond(call, response) {
  const fill = (value) => substitute(value, call.id ?? '');
  let child;
  if (response.spawnChild) {
    child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1 << 30)'], { stdio: 'ignore' });
  }
  if (response.marker) {
    writeFileSync(fill(response.marker), JSON.stringify({ pid: process.pid, childPid: child?.pid ?? null }));
  }
  for (const command of response.run ?? []) runCommand(fill(command), call);
  if (response.waitFor) {
    const path = fill(response.waitFor);
    while (!existsSync(path)) pause(10);
  }
  if (response.stdout) process.stdout.write(fill(response.stdout));
  if (response.result) process.stdout.write(`${JSON.stringify(resultFor(call, fill(response.result)))}\n`);
  if (response.stderr) process.stderr.write(fill(response.stderr));
  if (response.tokens !== undefined) process.stderr.write(`tokens used\n${Number(response.tokens).toLocaleString('en-US')}\n`);
  if (response.hang) {
    setInterval(() => {}, 1 << 30);
    return;
  }
  process.exitCode = response.exit ?? 0;
}

/** Replaces {{id}} in every string of a JSON value. */
function substitute(value, id) {
  if (typeof value === 'string') return value.replaceAll('{{id}}', id);
  if (Array.isArray(value)) return value.map((v) => substitute(v, id));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, id)]));
  return value;
}

function runCommand(argv, call) {
  const [file, ...args] = argv;
  const program = file === 'helix' && process.env.HELIX_STUB_HELIX ? process.env.HELIX_STUB_HELIX : file;
  const r = spawnSync(program, args, { cwd: call.cwd, encoding: 'utf8', env: process.env });
  if (r.error || r.status !== 0) {
    process.stderr.write(`stub ${call.program}: command failed (${r.error?.message ?? `exit ${r.status}`}): ${argv.join(' ')}\n${r.stderr ?? ''}`);
  }
}

/** A full execute-bead result: the script's fields over a successful default. */
function resultFor(call, fields) {
  const head = gitHead(call.cwd);
  return {
    bead_id: call.id,
    base_rev: head,
    result_rev: head,
    outcome: 'merged',
    status: 'success',
    detail: 'stub execute-bead',
    session_id: `stub-${process.pid}`,
    duration_ms: 1,
    tokens: 0,
    cost_usd: 0,
    exit_code: 0,
    ...fields,
  };
}

function gitHead(cwd) {
  const r = spawnSync('git', ['rev-parse', 'HEAD'], { cwd, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : '0000000000000000000000000000000000000000';
}
