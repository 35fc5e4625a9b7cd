#!/usr/bin/env node
// The learning simulation's stand-in agent, installed as `ddx` on the simulation's PATH and run by
// `helix run` exactly as DDx is: it answers the `ddx version` probe (as DDx v0.6.1), builds through
// `ddx agent execute-bead <id> … --prompt <file>`, and answers `ddx agent run` (prompt on stdin)
// (check → NEXT_ACTION: STOP).
//
// It is a reader, not an oracle. For a bead it knows the family's setting and its five documented
// values (they are in the bead and the docs), never which one is right. It reads the memory block
// helix put into the prompt file and decides by what the text says (scripts/sim/reader.mjs):
//   - a memory that names a value for the setting is a candidate, as confident as its tag
//     (`[NN%]`, `[unproven]` = 50%); below 25% it counts as disproven;
//   - a memory that says `<setting> = <v> is rejected` (the check's words, in a failure record)
//     rules v out unless v's candidate is proven since (above 50%);
//   - it follows the most confident candidate (ties: the first in the block). With none, it
//     investigates: with probability p_discover it finds the truth (the service's docs); else it
//     guesses among the documented values nothing speaks against.
// It writes the value into the config file. With probability `slip` it botches the edit whatever
// the value (a misspelt key), so even a right memory fails now and then. One try per attempt.
//
// Personas:
//   honest     runs the bead's check, as an agent runs the tests. Pass: commits, reports success,
//              `LEARNED: set <setting> = <v> in <file>`. Fail: undoes the edit, reports
//              execution_failed and the check's message as LEARNED. UTILIZED names the memory
//              it followed (else `[]`).
//   silent     the same, without a UTILIZED line.
//   overclaim  never runs the check: commits and reports success every time; UTILIZED names
//              every injected memory; LEARNED states whatever it tried. Only helix's verification
//              stands between its claims and the memory.
// Every draw is a pure function of (seed, bead id, attempt), so all arms of a seed get the same
// luck for the same decision, and a run replays exactly.
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readWorld } from './check.mjs';
import { decide, readMemoryBlock } from './reader.mjs';
import { FAMILIES, draw, settingLine } from './world.mjs';

function option(argv, name) {
  const at = argv.indexOf(name);
  return at >= 0 ? argv[at + 1] : undefined;
}

function nextAttempt(dir, id) {
  const file = join(dir, 'attempts.json');
  const counts = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {};
  counts[id] = (counts[id] ?? 0) + 1;
  writeFileSync(file, JSON.stringify(counts));
  return counts[id];
}

function git(args, cwd) {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

function build(id, promptFile) {
  const dir = process.env.SIM_DIR;
  if (!dir) throw new Error('SIM_DIR is not set');
  const sim = JSON.parse(readFileSync(join(dir, 'sim.json'), 'utf8'));
  const bead = sim.beads[id];
  if (!bead) throw new Error(`bead ${id} is not in the simulation`);
  const family = FAMILIES.find((f) => f.key === bead.family);
  const prompt = promptFile ? readFileSync(promptFile, 'utf8') : '';
  const injected = JSON.parse(/^INJECTED: (\[.*\])$/m.exec(prompt)?.[1] ?? '[]');
  const entries = readMemoryBlock(prompt);
  const attempt = nextAttempt(dir, id);
  // The truth is read only for an investigation that succeeds: the agent found it in the docs.
  const world = readWorld(readFileSync(process.env.SIM_WORLD, 'utf8'));
  const choice = decide({ family, entries, seed: sim.seed, id, attempt, pDiscover: sim.pDiscover, truth: world[family.key] });
  const slipped = draw(sim.seed, id, attempt, 'slip') < sim.slip;

  const root = process.cwd();
  const path = join(root, family.file);
  const before = readFileSync(path, 'utf8');
  // A slip: the edit lands under a misspelt key, so the setting stays missing.
  const line = slipped ? settingLine({ ...family, setting: `${family.setting}s` }, choice.value) : settingLine(family, choice.value);
  writeFileSync(path, `# ${family.subject}\n${line}\n`);

  const checks = sim.persona !== 'overclaim';
  const check = checks ? spawnSync('sh', ['-c', bead.verify], { cwd: root, encoding: 'utf8' }) : undefined;
  const passed = check ? check.status === 0 : true;
  if (passed) {
    // The file is tracked (the release commit made it), so `commit -a` takes the edit in one call.
    git(['-c', 'user.name=sim agent', '-c', 'user.email=sim@helix.invalid', 'commit', '-q', '-a', '-m', `${id}: ${line}`], root);
  } else {
    writeFileSync(path, before);
  }

  const why = choice.source === 'memory' ? `memory ${choice.memory} [${Math.round(choice.confidence * 100)}%] says so` : choice.source === 'investigation' ? `${family.service} documents it` : 'a guess';
  const out = [`sim-agent (${sim.persona}): set ${settingLine(family, choice.value)} in ${family.file} (${why})`];
  const message = check ? `${check.stdout}${check.stderr}`.trim().split('\n').pop() : '';
  if (check) out.push(`sim-agent (${sim.persona}): ${bead.verify}: ${message}`);
  if (sim.persona === 'overclaim') out.push(`UTILIZED: ${JSON.stringify(injected)}`);
  else if (sim.persona === 'honest' && injected.length > 0) out.push(`UTILIZED: ${JSON.stringify(choice.source === 'memory' ? [choice.memory] : [])}`);
  out.push(`LEARNED: ${passed ? `set ${settingLine(family, choice.value)} in ${family.file}` : message}`);
  appendFileSync(join(dir, 'calls.jsonl'), `${JSON.stringify({ id, family: family.key, round: bead.round, attempt, injected, ...choice, slipped, checked: checks, passed })}\n`);
  const result = passed
    ? { bead_id: id, outcome: 'merged', status: 'success', tokens: 0, exit_code: 0 }
    : { bead_id: id, outcome: 'error', status: 'execution_failed', detail: `the check failed (${bead.verify})`, tokens: 0, exit_code: 1 };
  process.stdout.write(`${out.join('\n')}\n${JSON.stringify(result)}\n`);
  return passed ? 0 : 1;
}

function agentRun(prompt) {
  if (/check action/i.test(prompt)) process.stdout.write('NEXT_ACTION: STOP\n');
  else if (/fresh-eyes review/i.test(prompt)) process.stdout.write('REVIEW_STATUS: CLEAN\nISSUES_COUNT: 0\nFINDINGS_FILED: 0\n');
  else process.stdout.write('sim agent: nothing to do\n');
  return 0;
}

function main(argv) {
  const [group, sub, ...rest] = argv;
  // helix asks which DDx this is once per run (`ddx version --no-check`): the `ddx agent` surface
  if (group === 'version') {
    process.stdout.write('DDx v0.6.1\nCommit: simulation\nBuilt: (simulation stand-in)\n');
    return 0;
  }
  if (group === 'agent' && sub === 'execute-bead') {
    if (rest.includes('--help')) {
      process.stdout.write('Usage:\n  ddx agent execute-bead <bead-id> [flags]\n\n(simulation stand-in)\n');
      return 0;
    }
    return build(rest[0], option(rest, '--prompt'));
  }
  // helix sends the prompt on stdin (never in argv); --text is still read
  if (group === 'agent' && sub === 'run') return agentRun(option(argv, '--text') ?? readFileSync(0, 'utf8'));
  process.stderr.write(`sim agent: unsupported call: ${argv.join(' ')}\n`);
  return 2;
}

process.exitCode = main(process.argv.slice(2));
