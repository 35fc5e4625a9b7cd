#!/usr/bin/env node
// The learning simulation's stand-in agent, installed as `ddx` on the simulation's PATH and run by
// `helix run` exactly as DDx is: it answers the `ddx version` probe (as DDx v0.6.1), builds through
// `ddx agent execute-bead <id> … --prompt <file>`, and answers `ddx agent run` (prompt on stdin)
// (check → NEXT_ACTION: STOP).
//
// A build succeeds with probability p_base, or p_help when its family's useful memory is named on
// the prompt's `INJECTED: [...]` line. The draw is a pure function of (seed, bead id, attempt), so
// every arm sees the same luck for the same bead and attempt and a run replays exactly. It reports
// `UTILIZED:` honestly (the useful memory when it was injected, else none) or, in the dishonest
// arm, claims every injected memory helped. Success prints an execute-bead success result (helix
// verifies and closes the bead); failure prints `execution_failed` and exits 1.
//
// Configuration: $SIM_DIR/sim.json = { seed, pBase, pHelp, honesty: "honest"|"dishonest",
// beads: { <id>: <family> }, useful: { <family>: <memory name> } }. Each build appends one line to
// $SIM_DIR/calls.jsonl; attempt numbers live in $SIM_DIR/attempts.json (helix runs one build at a
// time, so a plain read-modify-write is enough).
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Uniform in [0, 1) from (seed, bead id, attempt): 32 bits of SHA-256. */
function draw(seed, id, attempt) {
  const digest = createHash('sha256').update(`${seed}:${id}:${attempt}`).digest();
  return digest.readUInt32BE(0) / 2 ** 32;
}

/** The names on the prompt's `INJECTED: [...]` line (none when memory was off or empty). */
function injectedNames(prompt) {
  const line = /^INJECTED: (\[.*\])\s*$/m.exec(prompt);
  if (!line) return [];
  try {
    const names = JSON.parse(line[1]);
    return Array.isArray(names) ? names.filter((n) => typeof n === 'string') : [];
  } catch {
    return [];
  }
}

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

function build(id, promptFile) {
  const dir = process.env.SIM_DIR;
  if (!dir) throw new Error('SIM_DIR is not set');
  const sim = JSON.parse(readFileSync(join(dir, 'sim.json'), 'utf8'));
  const family = sim.beads[id];
  if (family === undefined) throw new Error(`bead ${id} is not in the simulation`);
  const prompt = promptFile ? readFileSync(promptFile, 'utf8') : '';
  const injected = injectedNames(prompt);
  const useful = sim.useful[family];
  const usefulInjected = injected.includes(useful);
  const attempt = nextAttempt(dir, id);
  const success = draw(sim.seed, id, attempt) < (usefulInjected ? sim.pHelp : sim.pBase);
  const utilized = sim.honesty === 'dishonest' ? injected : usefulInjected ? [useful] : [];
  appendFileSync(join(dir, 'calls.jsonl'), `${JSON.stringify({ id, family, attempt, injected, usefulInjected, success })}\n`);

  if (injected.length > 0) process.stdout.write(`UTILIZED: ${JSON.stringify(utilized)}\n`);
  const result = success
    ? { bead_id: id, outcome: 'merged', status: 'success', tokens: 0, exit_code: 0 }
    : { bead_id: id, outcome: 'error', status: 'execution_failed', detail: 'the stand-in agent gave up', tokens: 0, exit_code: 1 };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  return success ? 0 : 1;
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
