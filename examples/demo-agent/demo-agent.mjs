// STAND-IN AGENT for the helix demo (`npm run demo`). It is not an AI: it does the smallest real
// thing that satisfies a demo bead — writes the file the bead names and commits it with git — so
// the demo can show helix's loop (claim, delegate, verify, close, back off, drain to check) on a
// fresh machine without ddx, codex or claude. It honours the real calling contract (helix
// docs/contract/cli.md §8): `ddx agent execute-bead <id> … --json` prints a real JSON result with real git
// revisions and closes nothing itself; `ddx agent run … --text <prompt>` and `codex … exec …
// [--json] -` (prompt on stdin, as helix calls codex 0.169) answer prompts by their action phrase.
// As codex, `--json` prints codex's JSONL events: the answer as an agent_message, tokens as usage.
//
// Bead conventions (in the description):
//   demo: write <path>   the file to create (else the first `backticked/path`, else demo/<id>.md)
// A bead with a `verify` command: the stand-in runs it after writing, as an agent runs the tests.
// When it fails, the stand-in undoes its edit, reports the failure and prints the check's message
// as `LEARNED:`. It knows nothing the bead does not say — except what the memories helix injected
// into its prompt say: an injected memory that says `add the line '<text>'` to the file it is
// writing is followed, and named in `UTILIZED:`. It never makes a second try within one attempt.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize } from 'node:path';

const LABEL = 'demo-agent (stand-in, not a real agent)';

export function main(program) {
  const argv = process.argv.slice(2);
  const started = Date.now();
  if (program === 'ddx') return ddx(argv, started);
  if (program === 'codex') return codex(argv);
  fail(`${LABEL}: unknown program ${program}`, 2);
}

function ddx(argv, started) {
  const [group, sub, ...rest] = argv;
  // helix asks `ddx version --no-check` once to learn the command surface: this stands in for
  // DDx v0.6.1, whose builds go through `ddx agent execute-bead`.
  if (group === 'version') {
    process.stdout.write(`DDx v0.6.1\nCommit: demo-agent\nBuilt: (${LABEL})\n`);
    return;
  }
  if (group !== 'agent') fail(`${LABEL}: only \`ddx agent …\` is stood in for`, 2);
  if (sub === 'execute-bead') {
    if (rest.includes('--help') || rest.includes('-h')) {
      process.stdout.write(`Usage: ddx agent execute-bead <bead-id> [--harness h] [--model m] [--effort e] [--json] [--prompt file]\n(${LABEL})\n`);
      return;
    }
    const id = rest[0];
    if (!id || id.startsWith('-')) fail(`${LABEL}: execute-bead needs a bead id`, 2);
    const at = rest.indexOf('--prompt');
    const prompt = at >= 0 && rest[at + 1] ? readFileSync(rest[at + 1], 'utf8') : '';
    return executeBead(id, started, prompt);
  }
  if (sub === 'execute-loop') {
    const id = process.env.HELIX_SELECTED_ISSUE;
    if (!id) fail(`${LABEL}: execute-loop needs HELIX_SELECTED_ISSUE`, 2);
    const outcome = implement(id, process.cwd(), '');
    process.stdout.write(report(outcome));
    if (outcome.failed) fail(`${LABEL}: ${outcome.detail}`, 1);
    helix(['tracker', 'close', id], process.cwd());
    process.stdout.write(`${LABEL}: execute-loop --once landed ${id} at ${outcome.resultRev}\n`);
    return;
  }
  if (sub === 'run') {
    // the prompt comes on stdin (helix never puts a prompt in argv); --text is still read
    const at = argv.indexOf('--text');
    const answer = answerPrompt(at >= 0 ? argv[at + 1] ?? '' : readFileSync(0, 'utf8'), process.cwd());
    process.stdout.write(answer.text);
    process.exitCode = answer.exitCode;
    return;
  }
  fail(`${LABEL}: unsupported: ddx ${argv.join(' ')}`, 2);
}

function codex(argv) {
  const at = argv.indexOf('-C');
  const root = at >= 0 ? argv[at + 1] : process.cwd();
  const last = argv[argv.length - 1] ?? '';
  const prompt = last === '-' ? readFileSync(0, 'utf8') : last;
  const answer = answerPrompt(prompt, root);
  if (argv.includes('--json')) {
    const events = [
      { type: 'thread.started', thread_id: 'demo-agent' },
      { type: 'turn.started' },
      { type: 'item.completed', item: { id: 'item_0', type: 'agent_message', text: answer.text.trimEnd() } },
      { type: 'turn.completed', usage: { input_tokens: answer.tokens, cached_input_tokens: 0, output_tokens: 0, reasoning_output_tokens: 0 } },
    ];
    process.stdout.write(events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  } else {
    process.stdout.write(answer.text);
    process.stderr.write(`tokens used\n${answer.tokens.toLocaleString('en-US')}\n`);
  }
  process.exitCode = answer.exitCode;
}

/** ddx agent execute-bead: implement, then print the JSON result; helix closes on success. */
function executeBead(id, started, prompt) {
  const root = process.cwd();
  process.stderr.write(`${LABEL}: standing in for \`ddx agent execute-bead ${id}\`\n`);
  const outcome = implement(id, root, prompt);
  process.stdout.write(report(outcome));
  const result = {
    bead_id: id,
    base_rev: outcome.baseRev,
    result_rev: outcome.resultRev,
    outcome: outcome.failed ? 'error' : outcome.changed ? 'merged' : 'no-changes',
    status: outcome.failed ? 'execution_failed' : outcome.changed ? 'success' : 'no_changes',
    detail: outcome.detail,
    preserve_ref: null,
    session_id: `demo-${id}-${outcome.attempt}`,
    duration_ms: Date.now() - started,
    tokens: outcome.tokens,
    cost_usd: 0,
    exit_code: outcome.failed ? 1 : 0,
  };
  process.stdout.write(`${LABEL}: result follows\n${JSON.stringify(result, null, 2)}\n`);
  process.exitCode = result.exit_code;
}

/** A prompt by its action phrase: build (direct mode), check, review, or a harmless no-op. Returns the answer. */
function answerPrompt(prompt, root) {
  const lower = prompt.toLowerCase();
  const target = /Implementation target:\s*(\S+)/.exec(prompt)?.[1];
  if (lower.includes('implementation action') && target) {
    const outcome = implement(target, root, prompt);
    const said = report(outcome);
    if (outcome.failed) return { text: `${said}${LABEL}: ${outcome.detail}\n`, tokens: outcome.tokens, exitCode: 1 };
    helix(['tracker', 'close', target], root); // a direct agent closes its own bead
    return { text: `${said}${LABEL}: implemented ${target} in ${outcome.resultRev}\n`, tokens: outcome.tokens, exitCode: 0 };
  }
  let text = `${LABEL}: nothing to do for this action.\n`;
  if (lower.includes('check action')) text = `NEXT_ACTION: STOP\n${LABEL}: the demo's work is done; nothing left to build.\n`;
  else if (lower.includes('fresh-eyes review')) text = `REVIEW_STATUS: CLEAN\nISSUES_COUNT: 0\nFINDINGS_FILED: 0\n${LABEL}: no review performed.\n`;
  return { text, tokens: tokensFor(prompt), exitCode: 0 };
}

/**
 * What the agent says about its attempt, before its result: which injected memories it used
 * (when helix injected any) and, after a failed check, what the check told it.
 */
function report(outcome) {
  const lines = outcome.used.map((use) => `${LABEL}: memory ${use.memory} says to add the line '${use.line}' to ${outcome.file}; added it`);
  if (outcome.injected) lines.push(`UTILIZED: ${JSON.stringify(outcome.used.map((u) => u.memory))}`);
  if (outcome.learned) lines.push(`LEARNED: ${outcome.learned}`);
  return lines.map((l) => `${l}\n`).join('');
}

/** Reads the bead, writes its file (with any lines injected memories say it needs), runs the bead's check, commits. */
function implement(id, cwd, prompt) {
  const root = git(['rev-parse', '--show-toplevel'], cwd).trim();
  const baseRev = git(['rev-parse', 'HEAD'], root).trim();
  const bead = JSON.parse(helix(['tracker', 'show', id, '--json'], root));
  const text = [bead.description, bead.acceptance].filter(Boolean).join('\n');
  const tokens = tokensFor(`${bead.title}\n${text}`);
  const attempt = countAttempt(root, id);
  const file = fileFor(id, text);
  const used = linesFromMemories(prompt, file);
  const injected = /^INJECTED: \[/m.test(prompt);
  const base = { baseRev, resultRev: baseRev, tokens, attempt, file, used, injected };
  const path = join(root, file);
  const before = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  const extra = used.map((u) => `${u.line}\n`).join('');
  const content = `# ${bead.title}\n\n${bead.description ?? ''}\n\n${extra}${extra ? '\n' : ''}Written for ${id} by ${LABEL}.\n`;
  if (before === content) return { ...base, failed: false, changed: false, detail: `${file} already satisfies ${id}` };
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
  if (typeof bead.verify === 'string' && bead.verify.trim()) {
    // The bead's own check, run as an agent runs the tests before it reports (bead text is data:
    // it goes to sh as one argument, never spliced into a command line of ours).
    const check = spawnSync('sh', ['-c', bead.verify], { cwd: root, encoding: 'utf8' });
    if (check.status !== 0) {
      if (before === undefined) rmSync(path);
      else writeFileSync(path, before);
      const message = `${check.stdout}${check.stderr}`.trim().split('\n').pop() || `exit ${check.status}`;
      return { ...base, failed: true, changed: false, detail: `the bead's check failed (${bead.verify})`, learned: message };
    }
  }
  git(['add', '--', file], root);
  git(['-c', 'user.name=helix demo agent', '-c', 'user.email=demo-agent@helix.invalid', 'commit', '-q', '-m', `${id}: ${bead.title}`, '--', file], root);
  const resultRev = git(['rev-parse', 'HEAD'], root).trim();
  return { ...base, resultRev, failed: false, changed: true, detail: `wrote ${file}` };
}

/**
 * The lines injected memories say `file` needs: a memory entry (`… (memory: <name>)`) that names
 * the file and says `add the line '<text>'`. Nothing else in a memory is acted on.
 */
export function linesFromMemories(prompt, file) {
  const used = [];
  for (const entry of prompt.split('\n')) {
    const name = /\(memory: ([^)\s]+)\)(?: \[[^\]]*\])?\s*$/.exec(entry)?.[1];
    if (!name || !entry.includes(file)) continue;
    for (const m of entry.matchAll(/add the line '([^'\n]+)'/g)) {
      if (!used.some((u) => u.line === m[1])) used.push({ memory: name, line: m[1] });
    }
  }
  return used;
}

/** The repository-relative file a bead names; never outside the repository. */
function fileFor(id, text) {
  const named = /demo:\s*write\s+(\S+)/.exec(text)?.[1] ?? /`([\w.-]+\/[\w./-]+|[\w-]+\.[\w]+)`/.exec(text)?.[1];
  const safe = named && !isAbsolute(named) && !normalize(named).startsWith('..') ? normalize(named) : undefined;
  return safe ?? join('demo', `${id}.md`);
}

/** Counts this bead's attempts in a file under .git, so state never shows up in the worktree. */
function countAttempt(root, id) {
  const folder = join(root, git(['rev-parse', '--git-dir'], root).trim(), 'helix-demo-agent');
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${id}.attempts`);
  const attempt = (existsSync(file) ? Number(readFileSync(file, 'utf8')) : 0) + 1;
  writeFileSync(file, String(attempt));
  return attempt;
}

/** A deterministic stand-in for token use: a word count, so runs are reproducible. */
function tokensFor(text) {
  return 100 + text.split(/\s+/).filter(Boolean).length * 7;
}

function git(args, cwd) {
  return run('git', args, cwd);
}

function helix(args, cwd) {
  return run('helix', args, cwd);
}

function run(program, args, cwd) {
  const r = spawnSync(program, args, { cwd, encoding: 'utf8' });
  if (r.error) fail(`${LABEL}: cannot run ${program}: ${r.error.message}`, 1);
  if (r.status !== 0) fail(`${LABEL}: ${program} ${args.join(' ')} failed: ${r.stderr.trim()}`, 1);
  return r.stdout;
}

function fail(message, code) {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}
