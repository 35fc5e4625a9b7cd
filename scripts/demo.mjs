#!/usr/bin/env node
// `npm run demo`: helix's main job, for real, on a fresh machine. It creates a temporary git
// project with a handful of beads (dependencies, an epic with children), puts the STAND-IN agent
// from examples/demo-agent on PATH (it honours the real `ddx agent execute-bead` contract and
// makes real commits, but it is not an AI), runs `helix run --summary` to completion, then
// `helix status`, shows what the memory did, and ends with `helix report`: the night as one page,
// kept in the temp folder when the project goes.
//
// One bead needs a fact its text does not give: the project's CLI spec check
// (check/cli-spec.sh, the bead's `verify` command) wants a line in src/args.txt that only the
// check's message names. The stand-in's first attempt fails that check; helix stores the failure
// as a memory whose resolution is the agent's LEARNED line (the check's message); on the retry
// helix injects that memory, the stand-in adds the line because the memory says so, prints what
// it used (UTILIZED), and the check passes. With `--no-memory` the retry has nothing to go on and
// the bead is skipped after 4 attempts.
//
//   npm run demo                 stand-in agent, backoff shortened to 2 s
//   npm run demo -- --keep       keep the demo project and print where it is
//   npm run demo -- --no-memory  the same run without memory (the control)
//   npm run demo -- --real       use the ddx / codex / claude found on PATH instead of the stand-in
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, delimiter, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const args = new Set(process.argv.slice(2));
const real = args.has('--real');
const noMemory = args.has('--no-memory');
const project = mkdtempSync(join(tmpdir(), 'helix-demo-'));
const shims = join(project, '.git-shims');

const say = (text) => process.stdout.write(`\n\x1b[1m${text}\x1b[0m\n`);

function sh(cmd, argv, options = {}) {
  const result = spawnSync(cmd, argv, { cwd: project, encoding: 'utf8', env, ...options });
  if (result.status !== 0 && !options.allowFail) {
    process.stderr.write(result.stderr ?? '');
    throw new Error(`${cmd} ${argv.join(' ')} failed (${result.status})`);
  }
  return (result.stdout ?? '').trim();
}

// `helix` on PATH for the agent (it reads beads with `helix tracker show`), and the stand-in agent.
mkdirSync(shims);
symlinkSync(join(root, 'bin', 'helix'), join(shims, 'helix'));
const pathParts = [shims, ...(real ? [] : [join(root, 'examples', 'demo-agent')]), process.env.PATH ?? ''];
const env = {
  ...process.env,
  PATH: pathParts.join(delimiter),
  HELIX_BACKOFF_SLEEP: process.env.HELIX_BACKOFF_SLEEP ?? '2',
  GIT_AUTHOR_NAME: 'helix demo',
  GIT_AUTHOR_EMAIL: 'demo@helix.invalid',
  GIT_COMMITTER_NAME: 'helix demo',
  GIT_COMMITTER_EMAIL: 'demo@helix.invalid',
};
const helix = (...argv) => sh(process.execPath, [join(root, 'bin', 'helix'), ...argv]);

say(`helix demo — project ${project}`);
process.stdout.write(real ? 'Using the real agents found on PATH.\n' : 'Agent: examples/demo-agent — a STAND-IN that writes the file each bead names and commits it. Not an AI.\n');

sh('git', ['init', '-q', '-b', 'main']);
writeFileSync(join(project, 'README.md'), '# demo project\n');
writeFileSync(join(project, 'AGENTS.md'), '# Agents\n\n## Quick Reference\n\n- build: `true`\n- test: `test -f docs/overview.md`\n');
mkdirSync(join(project, 'check'));
writeFileSync(
  join(project, 'check', 'cli-spec.sh'),
  "#!/bin/sh\n# SPEC-CLI §2: the argument parser runs in strict mode.\ngrep -qx 'strict: true' src/args.txt 2>/dev/null && exit 0\necho \"src/args.txt: SPEC-CLI §2 says the parser runs in strict mode: add the line 'strict: true'\"\nexit 1\n",
);
// Committed with the project: an uncommitted file would be swept into DDx v0.6.1's checkpoint commit
// (helix warns about that before the first build).
writeFileSync(join(project, '.gitignore'), '.git-shims\n');
sh('git', ['add', '.']);
sh('git', ['commit', '-q', '-m', 'demo project']);

helix('tracker', 'init');
const overview = helix('tracker', 'create', 'Write the project overview', '-p', '1', '--description', 'demo: write docs/overview.md', '--acceptance', 'docs/overview.md exists');
const epic = helix('tracker', 'create', 'Command-line interface', '--type', 'epic', '-p', '2');
const parser = helix('tracker', 'create', 'Argument parser', '--parent', epic, '--deps', overview, '--description', 'demo: write src/args.txt', '--spec-id', 'SPEC-CLI', '--set', 'verify=sh check/cli-spec.sh');
helix('tracker', 'create', 'Help text', '--parent', epic, '--deps', parser, '--description', 'demo: write src/help.txt', '--spec-id', 'SPEC-CLI');
helix('tracker', 'create', 'Changelog entry', '-p', '3', '--description', 'demo: write CHANGELOG.md');
process.stdout.write(`Seeded 5 beads (an epic with two children, dependencies; "Argument parser" is verified by check/cli-spec.sh, which wants a line its text does not mention):\n`);
process.stdout.write(`${helix('tracker', 'list')}\n`);

const runArgs = ['run', '--summary', ...(noMemory ? ['--no-memory'] : [])];
say(`$ helix ${runArgs.join(' ')}`);
const run = spawnSync(process.execPath, [join(root, 'bin', 'helix'), ...runArgs], { cwd: project, env, stdio: 'inherit' });

say('$ helix status');
spawnSync(process.execPath, [join(root, 'bin', 'helix'), 'status'], { cwd: project, env, stdio: 'inherit' });

say('$ git log --oneline');
process.stdout.write(`${sh('git', ['log', '--oneline'])}\n`);

if (!real) {
  // helix's session log keeps the agent's own output: the lines that show what it knew and used.
  say('The session log (.helix-logs/), the lines about memory:');
  const logs = readdirSync(join(project, '.helix-logs')).filter((f) => /^helix-.*\.log$/.test(f));
  const log = logs.map((f) => readFileSync(join(project, '.helix-logs', f), 'utf8')).join('\n');
  const about = /cycle \d+: (?!injected 0)|UTILIZED: |LEARNED: |memory \S+ says |verifying: |attempt \d+ failed/;
  process.stdout.write(`${log.split('\n').filter((l) => about.test(l) && !/ complete \(rc=/.test(l)).join('\n')}\n`);
  if (!noMemory) {
    say(`$ helix memory recall "${'Argument parser'}" --limit 1`);
    const [memory] = JSON.parse(helix('memory', 'recall', 'Argument parser', '--limit', '1'));
    if (memory) {
      process.stdout.write(`${memory.type} memory ${memory.name}\n  trigger:    ${memory.trigger}\n  resolution: ${memory.resolution}\n  helped ${memory.helped}, failed ${memory.failed}, effectiveness ${memory.effectiveness}\n`);
    }
  }
}

// the night as one page: the run wrote it beside its log; `helix report` draws it again (any run, any time)
say('$ helix report');
const page = helix('report');
process.stdout.write(`${page}\n`);
// kept beside the temp folder when the demo project goes
const kept = args.has('--keep') ? page : join(tmpdir(), `helix-demo-${basename(page)}`);
if (!args.has('--keep')) copyFileSync(page, kept);
process.stdout.write(`The night's page (a lane per slot, each attempt coloured by its outcome, a row per bead; one file, no network) — open it in a browser:\n${kept}\n`);

if (args.has('--keep')) process.stdout.write(`\nDemo project kept at ${project}\n`);
else rmSync(project, { recursive: true, force: true });
process.exit(run.status ?? 1);
