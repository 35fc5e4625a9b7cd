// Shared body of the stub `ddx`, `codex` and `claude` executables used by helix's tests. Each call
// is logged as one JSON line to $HELIX_STUB_LOG and answered from the queue in $HELIX_STUB_SCRIPT
// (see README.md in this folder). Plain Node, no dependencies: the stubs must start fast and run
// exactly as the real programs are run (argv, stdin, cwd, environment, exit code) and print what
// the real ones print: codex 0.169 (`exec --json`: JSONL events on stdout; plain `exec`: the
// transcript on stderr, the final message on stdout) and claude 2.1.197 (`-p` text, json or
// stream-json; the refusal of the bypass flags as root without IS_SANDBOX=1). The real CLIs are
// exercised by `npm run test:agents` (tests/e2e). CommonJS, as are the three launchers beside it
// (package.json here says so): Node starts a CommonJS script without its ES module loader, about
// 17 ms of every stub call, and a run test makes several.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const { appendFileSync, closeSync, existsSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } = require('node:fs');

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

async function main(program) {
  const argv = process.argv.slice(2);
  const stdin = readStdin(program);
  const call = describeCall(program, argv, stdin);
  const script = readScript();

  if (call.kind === 'version') {
    // helix's one probe per run: this stub stands in for DDx v0.6.1 (the `ddx agent` surface);
    // `executeBeadHelp: false` makes it an older DDx helix does not drive, `ddxVersion` any other.
    log(call, null);
    const version = script.ddxVersion ?? (script.executeBeadHelp === false ? 'v0.5.3' : 'v0.6.1');
    process.stdout.write(`DDx ${version}\nCommit: stub\nBuilt: stub\n`);
    process.exit(0);
  }
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

  if (program === 'claude' && refusesAsRoot(argv)) {
    log(call, null);
    process.stderr.write('--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n');
    process.exit(1);
  }
  if (program === 'claude' && claudeFormat(argv) === 'stream-json' && !argv.includes('--verbose')) {
    log(call, null);
    process.stderr.write('Error: When using --print, --output-format=stream-json requires --verbose\n');
    process.exit(1);
  }

  const { index, response } = takeResponse(script, call);
  log(call, index);
  await respond(call, response ?? defaultResponse(call, script));
}

/** claude 2.1 refuses its bypass flags as root unless IS_SANDBOX=1 (HELIX_STUB_AS_ROOT=1 pretends to be root). */
function refusesAsRoot(argv) {
  const root = process.getuid?.() === 0 || process.env.HELIX_STUB_AS_ROOT === '1';
  const bypass = argv.includes('--dangerously-skip-permissions') || argv.join(' ').includes('--permission-mode bypassPermissions');
  return root && bypass && process.env.IS_SANDBOX !== '1';
}

function claudeFormat(argv) {
  const at = argv.indexOf('--output-format');
  return at >= 0 ? argv[at + 1] : 'text';
}

/** codex reads its prompt from stdin when it is given as `-`; claude -p always does. */
function readStdin(program) {
  const argv = process.argv.slice(2);
  // `ddx agent run` / `ddx run` read the prompt on stdin when helix calls them
  const ddxRun = program === 'ddx' && (argv[0] === 'run' || argv[1] === 'run');
  if (program !== 'claude' && !ddxRun && !(program === 'codex' && argv[argv.length - 1] === '-')) return '';
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
    if (group === 'version') return { ...call, kind: 'version' };
    if (group === 'agent' && sub === 'execute-bead') {
      if (rest.includes('--help') || rest.includes('-h')) return { ...call, kind: 'execute-bead-help' };
      return { ...call, kind: 'execute-bead', id: rest[0] ?? null };
    }
    if (group === 'agent' && sub === 'execute-loop') return { ...call, kind: 'execute-loop', id: process.env.HELIX_SELECTED_ISSUE ?? null };
    if (group === 'agent' && sub === 'run') {
      const at = argv.indexOf('--text');
      return withPrompt({ ...call, kind: 'agent-run' }, at >= 0 ? argv[at + 1] ?? '' : stdin);
    }
    return call;
  }
  if (program === 'codex') {
    const last = argv[argv.length - 1] ?? '';
    return withPrompt({ ...call, kind: 'codex' }, last === '-' ? stdin : last);
  }
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
 * or a list of them; no `when` matches anything) and whose `ids`, when given, name its bead. Consumed indices live in `<script>.state`,
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
      // `ids`: only calls for one of these beads take the response
      if (response.ids !== undefined && !response.ids.includes(call.id)) return false;
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
  if (call.program === 'codex') codexOutput(call, response, fill);
  else if (call.program === 'claude') claudeOutput(call, response, fill);
  else {
    if (response.stdout) process.stdout.write(fill(response.stdout));
    if (response.result) process.stdout.write(`${JSON.stringify(resultFor(call, fill(response.result)))}\n`);
    if (response.stderr) process.stderr.write(fill(response.stderr));
    if (response.tokens !== undefined) process.stderr.write(`tokens used\n${Number(response.tokens).toLocaleString('en-US')}\n`);
  }
  if (response.hang) {
    setInterval(() => {}, 1 << 30);
    return;
  }
  process.exitCode = response.exit ?? 0;
}

/**
 * codex 0.169 `exec`: with `--json`, JSONL events on stdout (the answer as the last agent_message,
 * `transcript` as a command's output, usage on turn.completed) and only warnings on stderr; without
 * it, the transcript (prompt, commands, their output, `tokens used`) on stderr and the final
 * message alone on stdout. `-o <file>` also writes the final message to that file.
 */
function codexOutput(call, response, fill) {
  const answer = fill(response.stdout ?? '');
  const transcript = response.transcript === undefined ? undefined : fill(response.transcript);
  const tokens = Number(response.tokens ?? 0);
  const json = call.argv.includes('--json');
  if (response.stderr) process.stderr.write(fill(response.stderr));
  if (json && response.turnFailed) {
    // codex 0.171 giving up on a limit: no answer, no usage; the error's message is codex's own text
    const message = fill(response.turnFailed);
    const events = [{ type: 'thread.started', thread_id: `stub-${process.pid}` }, { type: 'turn.started' }, { type: 'error', message }, { type: 'turn.failed', error: { message } }];
    for (const event of events) process.stdout.write(`${JSON.stringify(event)}\n`);
    return;
  }
  if (json) {
    const events = [{ type: 'thread.started', thread_id: `stub-${process.pid}` }, { type: 'turn.started' }];
    if (transcript !== undefined) {
      const command = { id: 'item_0', type: 'command_execution', command: '/bin/bash -lc "cat notes.md"', aggregated_output: transcript, exit_code: 0, status: 'completed' };
      events.push({ type: 'item.started', item: { ...command, aggregated_output: '', exit_code: null, status: 'in_progress' } }, { type: 'item.completed', item: command });
    }
    if (answer) events.push({ type: 'item.completed', item: { id: 'item_1', type: 'agent_message', text: answer.replace(/\n$/, '') } });
    events.push({ type: 'turn.completed', usage: { input_tokens: tokens, cached_input_tokens: 0, output_tokens: 0, reasoning_output_tokens: 0 } });
    for (const event of events) process.stdout.write(`${JSON.stringify(event)}\n`);
  } else {
    process.stderr.write(`OpenAI Codex v0.169.0 (stub)\n--------\nworkdir: ${call.cwd}\n--------\nuser\n${call.prompt}\n`);
    if (transcript !== undefined) process.stderr.write(`exec\n/bin/bash -lc "cat notes.md" in ${call.cwd}\n succeeded in 0ms:\n${transcript}\n`);
    if (answer) process.stderr.write(`codex\n${answer}`);
    process.stderr.write(`tokens used\n${tokens.toLocaleString('en-US')}\n`);
    process.stdout.write(answer);
  }
  const out = call.argv.indexOf('-o');
  if (out >= 0 && call.argv[out + 1]) writeFileSync(call.argv[out + 1], answer);
}

/**
 * claude 2.1 `-p`: text prints the answer; `--output-format json` one result object; `stream-json`
 * (with --verbose) the init event, the transcript as a tool call and its result, the assistant's
 * text, then the result event. The result carries usage, modelUsage and total_cost_usd.
 */
function claudeOutput(call, response, fill) {
  const answer = fill(response.stdout ?? '').replace(/\n$/, '');
  const transcript = response.transcript === undefined ? undefined : fill(response.transcript);
  const tokens = Number(response.tokens ?? 0);
  const cost = Number(response.cost ?? 0);
  const failed = (response.exit ?? 0) !== 0;
  if (response.stderr) process.stderr.write(fill(response.stderr));
  const format = claudeFormat(call.argv);
  if (format === 'text') {
    if (answer) process.stdout.write(`${answer}\n`);
    return;
  }
  const session = `stub-${process.pid}`;
  const limit = response.limit429;
  const result = {
    type: 'result', subtype: failed ? 'error_during_execution' : 'success', is_error: failed, num_turns: 1, result: answer, session_id: session,
    // claude 2.1 giving up on a 429 (docs/agent-clis.md): is_error with the HTTP status
    ...(limit ? { subtype: 'success', is_error: true, api_error_status: 429, result: limit.message ?? 'API Error: 429 rate_limit_error' } : {}),
    total_cost_usd: cost,
    usage: { input_tokens: tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 },
    modelUsage: { 'claude-stub': { inputTokens: tokens, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, costUSD: cost } },
  };
  if (format === 'json') {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const events = [{ type: 'system', subtype: 'init', cwd: call.cwd, session_id: session, tools: ['Bash', 'Read'] }];
  if (transcript !== undefined) {
    events.push(
      { type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_stub', name: 'Bash', input: { command: 'cat notes.md' } }] }, session_id: session },
      { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_stub', content: transcript, is_error: false }] }, session_id: session },
    );
  }
  if (answer) events.push({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: answer }] }, session_id: session });
  // a spent subscription window: `rate_limit_event` rejected, with the reset in Unix seconds
  if (limit?.resetsInSeconds !== undefined) {
    events.push({ type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt: Math.floor(Date.now() / 1000) + limit.resetsInSeconds, rateLimitType: 'five_hour' }, session_id: session });
  }
  events.push(result);
  for (const event of events) process.stdout.write(`${JSON.stringify(event)}\n`);
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

// Shared with the DDx stand-ins in ddx-standin/ (their harness answers come from the same script).
module.exports = { ACTION_PHRASES, defaultResponse, log, main, readScript, runCommand, substitute, takeResponse, withPrompt };
