// One simulated project ("arm") through the REAL helix: bin/helix run in a real temp git repo,
// its tracker, its SQLite memory store, and each bead's real `verify` command
// (scripts/sim/check.mjs). The stand-in agent (scripts/sim/agent.mjs) is `ddx` on PATH.
//
// Per round: the project's config files are reset (a new release breaks the settings again), one
// bead per family is added, and `helix run` drains the queue (a failed bead is retried up to 4
// times, as always). At the change round the world's truth changes for some families. After
// each round the memories' counts are read from the store, so the claims can look at how they
// moved. Nothing here touches the store while helix runs, and helix is never told what is right.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { FAMILIES, familyBead, makeWorld, misleadingMemories, neighbourMemories } from './world.mjs';
import { ablationImports } from './ablations.mjs';
import { checkScript, worldText } from './check.mjs';

const ROOT = resolve(import.meta.dirname, '..', '..');
const HELIX = join(ROOT, 'bin', 'helix');
const AGENT = join(ROOT, 'scripts', 'sim', 'agent.mjs');

/** Day 0 of the simulated calendar; round r runs on day r (HELIX_NOW), so recency moves. */
const DAY0 = Date.parse('2026-01-05T12:00:00.000Z');
const DAY_MS = 86_400_000;

/**
 * The arms: memory off, and memory on with three ways of reporting; `crowded` is the honest agent
 * in a world with more misleading notes than the prompt has slots (its own `misleading` count);
 * `neighbours` is the honest agent in a realistic store that also holds valid notes about other
 * settings of each family's file (fair credit: they must not be worn down by tasks they are not about).
 */
export const ARMS = [
  { key: 'off', persona: 'honest', memory: false, label: 'memory off' },
  { key: 'honest', persona: 'honest', memory: true, label: 'honest agent' },
  { key: 'overclaim', persona: 'overclaim', memory: true, label: 'over-claiming agent' },
  { key: 'silent', persona: 'silent', memory: true, label: 'agent without UTILIZED' },
  { key: 'crowded', persona: 'honest', memory: true, label: 'honest, crowded', crowded: true },
  { key: 'neighbours', persona: 'honest', memory: true, label: 'honest, valid neighbours', neighbours: true },
];

/** Bead ids are a function of (seed, round, family): every arm works on the same beads. */
export function beadId(seed, round, family) {
  return `sim-${createHash('sha256').update(`${seed}:${round}:${family}`).digest('hex').slice(0, 8)}`;
}

function run(file, args, options) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolvePromise({ status, stdout, stderr }));
  });
}

function git(args, cwd) {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
}

/** After a round: counts closed beads, and takes the open ones out of the queue for good. */
function retireRound(file, ids) {
  const beads = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  let closed = 0;
  for (const bead of beads) {
    if (!ids.includes(bead.id)) continue;
    if (bead.status === 'closed') closed++;
    else bead['execution-eligible'] = false;
  }
  writeFileSync(file, `${beads.map((b) => JSON.stringify(b)).join('\n')}\n`);
  return closed;
}

/** Every memory's text and counts, read straight from the SQLite file. */
function readMemories(dbPath) {
  if (!existsSync(dbPath)) return [];
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT name, type, trigger, resolution, helped, failed, source FROM memories ORDER BY id').all();
  } finally {
    db.close();
  }
}

/**
 * Runs one arm and returns what happened: per round helix's attempted/completed, the agent's
 * call log (what it was shown, what it tried and why), and the memories after every round.
 */
export async function runArm(arm, config, work, memory, binDir = join(work, 'bin')) {
  const families = FAMILIES.slice(0, config.families);
  const world = makeWorld(config.seed, families, config.changeShare);
  const repo = join(work, arm.key);
  const agentDir = join(work, `${arm.key}-agent`);
  const worldFile = join(agentDir, 'world.env');
  mkdirSync(join(repo, '.ddx'), { recursive: true });
  mkdirSync(agentDir, { recursive: true });
  git(['init', '-q', '-b', 'main'], repo);
  const resetConfig = (round) => {
    for (const family of families) {
      mkdirSync(dirname(join(repo, family.file)), { recursive: true });
      writeFileSync(join(repo, family.file), `# ${family.subject}: ${family.setting} to be set (release ${round})\n`);
    }
    git(['add', '-A'], repo);
    git(['-c', 'user.name=sim', '-c', 'user.email=sim@helix.invalid', 'commit', '-q', '--allow-empty', '-m', `release ${round}`], repo);
  };
  writeFileSync(join(repo, '.gitignore'), '.helix/\n.helix-logs/\n');
  resetConfig(0);

  const env = { HELIX_EMBEDDER: config.embedder, HELIX_NOW: new Date(DAY0).toISOString() };
  const dbPath = join(repo, '.helix', 'helix.db');
  const seeded = [];
  const neighbours = [];
  if (arm.neighbours) {
    const store = memory.openMemoryStore({ dbPath, env, warn: () => undefined });
    try {
      for (const family of families) {
        for (const input of neighbourMemories(family, config.neighbours)) {
          const stored = await store.store(input);
          if (stored.status !== 'added') throw new Error(`seeding ${family.key} neighbours: ${stored.status} ${stored.reason} (${input.trigger})`);
          neighbours.push({ name: stored.name, family: family.key });
        }
      }
    } finally {
      store.close();
    }
  }
  if (config.misleading > 0) {
    // Imported notes: wrong facts, seeded through the memory library as `helix memory store` would.
    const store = memory.openMemoryStore({ dbPath, env, warn: () => undefined });
    try {
      for (const family of families) {
        for (const input of misleadingMemories(family, world, config.misleading, config.seed)) {
          const { value, ...rest } = input;
          const stored = await store.store(rest);
          if (stored.status !== 'added') throw new Error(`seeding ${family.key}: ${stored.status} ${stored.reason} (${rest.trigger})`);
          seeded.push({ name: stored.name, family: family.key, value });
        }
      }
    } finally {
      store.close();
    }
  }

  const sim = { seed: config.seed, persona: arm.persona, pDiscover: config.pDiscover, slip: config.slip, beads: {} };
  const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(HELIX_|DDX_|SIM_)/.test(k)));
  const flags = ['run', '--summary', '--no-auto-review', '--no-auto-align', '--review-every', '0'];
  if (!arm.memory) flags.push('--no-memory');
  const nodeArgs = [...ablationImports(config.ablate), HELIX, ...flags];

  const rounds = [];
  const snapshots = [];
  const current = { ...world.truth };
  for (let round = 1; round <= config.rounds; round++) {
    if (round === config.changeAt) Object.assign(current, world.changed);
    writeFileSync(worldFile, worldText(current));
    resetConfig(round);
    const ids = families.map((f) => beadId(config.seed, round, f.key));
    const at = new Date(DAY0 + round * DAY_MS).toISOString();
    const lines = families.map((family, i) => {
      const verify = `sim-check ${family.key}`;
      sim.beads[ids[i]] = { family: family.key, round, verify };
      return JSON.stringify({ id: ids[i], ...familyBead(family), status: 'open', priority: 2, issue_type: 'task', verify, created_at: at, updated_at: at });
    });
    appendFileSync(join(repo, '.ddx', 'beads.jsonl'), `${lines.join('\n')}\n`);
    writeFileSync(join(agentDir, 'sim.json'), JSON.stringify(sim));

    const runEnv = {
      ...baseEnv,
      PATH: `${binDir}:${process.env.PATH}`,
      SIM_DIR: agentDir,
      SIM_WORLD: worldFile,
      HELIX_BACKOFF_SLEEP: '0',
      HELIX_ALT_AGENT: 'none',
      HELIX_AUTO_ALIGN: '0',
      ...env,
      HELIX_NOW: at,
    };
    const result = await run(process.execPath, nodeArgs, { cwd: repo, env: runEnv });
    if (result.status !== 0) throw new Error(`${arm.key} round ${round}: helix run exited ${result.status}\n${result.stderr.slice(-3000)}`);
    const line = /run complete: (\d+) attempted, (\d+) completed/.exec(result.stderr);
    if (!line) throw new Error(`${arm.key} round ${round}: no run-complete line\n${result.stderr.slice(-2000)}`);
    const attempted = Number(line[1]);
    const completed = Number(line[2]);
    // helix's count must agree with the tracker: a success is a bead it closed.
    const closed = retireRound(join(repo, '.ddx', 'beads.jsonl'), ids);
    if (closed !== completed) throw new Error(`${arm.key} round ${round}: helix says ${completed} completed, the tracker has ${closed} closed`);
    rounds.push({ round, attempted, completed });
    snapshots.push(readMemories(dbPath));
  }

  const calls = existsSync(join(agentDir, 'calls.jsonl'))
    ? readFileSync(join(agentDir, 'calls.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l))
    : [];
  // The memory-off arm must not have touched its store: nothing added, nothing rated.
  if (!arm.memory) {
    const last = snapshots.at(-1);
    if (last.length !== seeded.length || last.some((m) => m.helped + m.failed > 0)) throw new Error('the memory-off arm changed its store');
  }
  return { arm: arm.key, world, seeded, neighbours, rounds, calls, snapshots };
}

/** The stand-in agent (as `ddx`) and the check (`sim-check`) on a PATH of their own. */
export function installAgent(work, families = FAMILIES) {
  mkdirSync(join(work, 'bin'), { recursive: true });
  writeFileSync(join(work, 'bin', 'sim-check'), checkScript(families), { mode: 0o755 });
  const ddx = join(work, 'bin', 'ddx');
  writeFileSync(ddx, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(AGENT)} "$@"\n`, { mode: 0o755 });
}
