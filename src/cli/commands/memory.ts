// `helix memory <sub>`: the memory store's commands (docs/contract/memory.md). Thin wiring:
// parse flags, open the store (lazy import of src/memory), print one JSON document on stdout.
import { Option } from 'commander';
import { HelixError } from '../../errors.js';
import { type NumberBounds, parseNumber, plural } from '../../numbers.js';
import { type CommandContext, NO_AGENT_FLAGS, printJson, withCommonFlags, type HelixCommand } from '../program.js';

type Store = import('../../memory/index.js').MemoryStore;

interface GroupOptions {
  db?: string;
}

async function withStore<T>(ctx: CommandContext, command: HelixCommand, work: (store: Store) => Promise<T> | T, print: (io: CommandContext['io'], value: T) => void = printJson): Promise<void> {
  const { openMemoryStore, resolveDbPath } = await import('../../memory/index.js');
  const { db } = command.optsWithGlobals<GroupOptions>();
  const dbPath = db ?? resolveDbPath(ctx.cwd, ctx.env);
  const store = openMemoryStore({ dbPath });
  try {
    print(ctx.io, await work(store));
  } finally {
    store.close();
  }
}

/** `list` for a person: one memory a line. */
function printList(io: CommandContext['io'], rows: Array<Record<string, unknown>>): void {
  const cut = (text: unknown, n: number) => (String(text).length > n ? `${String(text).slice(0, n - 1)}…` : String(text));
  for (const r of rows) {
    const detail = 'reason' in r ? `archived ${String(r.archived_at).slice(0, 10)}: ${r.reason}` : `${Math.round(Number(r.effectiveness) * 100)}% of ${Number(r.helped) + Number(r.failed)} uses`;
    io.stdout(`${String(r.name).padEnd(50)} ${String(r.type).padEnd(8)} ${detail.padEnd(28)} ${cut(r.trigger, 70)}\n`);
  }
  io.stdout(`${plural(rows.length, 'memory', 'memories')}\n`);
}

/** `show` for a person: the memory's fields, files, edges and archived versions. */
function printShown(io: CommandContext['io'], m: Awaited<ReturnType<Store['show']>>): void {
  const lines = [
    `${m.name} (${m.type}${m.repeats !== undefined ? `, seen ${m.repeats + 3} times` : ''})`,
    `  trigger:    ${m.trigger}`,
    `  resolution: ${m.resolution}`,
    `  helped ${m.helped}, failed ${m.failed}, effectiveness ${m.effectiveness}; used in ${m.session_uses} sessions (unverified)`,
    `  created ${m.created_at}, last used ${m.last_used ?? 'never'}; source ${m.source || '-'}; tags ${m.tags.join(', ') || '-'}`,
    `  files: ${m.files.join(', ') || '-'}`,
    ...m.edges.map((e) => `  edge: ${e.from} -${e.rel_type}-> ${e.to} (${e.weight})`),
    ...m.archived_versions.map((v) => `  archived ${v.archived_at} (${v.reason}): ${v.trigger} -> ${v.resolution}`),
  ];
  io.stdout(`${lines.join('\n')}\n`);
}

function jsonList(flag: string, text: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HelixError('validation', `helix memory: ${flag} must be a JSON list of strings`);
  }
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw new HelixError('validation', `helix memory: ${flag} must be a JSON list of strings`);
  }
  return value as string[];
}

// Every numeric flag through the one bounded parser (src/numbers.ts), in the memory commands' voice.
const bounded = (flag: string, bounds: NumberBounds) => (text: string): number => parseNumber(flag, text, bounds, 'helix memory:');
/** How many memories: more than any store here holds, and exact. */
const count = (flag: string) => bounded(flag, { min: 1, max: 100_000 });
/** Effectiveness, relevance and cosine thresholds live in [0, 1]. */
const fraction = (flag: string) => bounded(flag, { min: 0, max: 1, fraction: true });
/** Days back: a century covers any store. */
const days = (flag: string) => bounded(flag, { min: 0, max: 36_500, fraction: true });
/** Feedback amounts and edge weights: signed, and far from where sums lose precision. */
const amount = (flag: string) => bounded(flag, { min: -1_000_000, max: 1_000_000, fraction: true });

function boolean(flag: string, text: string): boolean {
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw new HelixError('validation', `helix memory: ${flag} must be true or false (got ${text})`);
}

function tasksList(text: string) {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HelixError('validation', 'helix memory: --tasks must be a JSON list of objectives');
  }
  if (!Array.isArray(value)) throw new HelixError('validation', 'helix memory: --tasks must be a JSON list of objectives');
  return value.map((task) => {
    if (typeof task === 'string') return { objective: task };
    const t = task as { objective?: unknown; files?: unknown };
    if (task && typeof t.objective === 'string') {
      return { objective: t.objective, files: Array.isArray(t.files) ? t.files.map(String) : [] };
    }
    throw new HelixError('validation', 'helix memory: each task must be a string or {"objective", "files"}');
  });
}

/** A `helix memory` subcommand with the common flags (docs/contract/cli.md §3: the old harness passes --quiet to all). */
type Sub = (name: string, description: string) => HelixCommand;

export function register(program: HelixCommand, ctx: CommandContext): void {
  const memory = withCommonFlags(program.command('memory'), NO_AGENT_FLAGS)
    .description('the memory store: failures and patterns ranked by relevance, effectiveness and recency')
    .addOption(new Option('--db <path>', 'database file (default: HELIX_DB_PATH, else .helix/helix.db in the project)'));
  const sub: Sub = (name, description) => withCommonFlags(memory.command(name).description(description), NO_AGENT_FLAGS);
  // in the order `helix memory --help` lists them
  memoryCommands(sub, ctx);
  learningCommands(sub, ctx);
  promptCommands(sub, ctx);
  curationCommands(sub, ctx);
}

/** Store, recall and get one memory, and link memories. */
function memoryCommands(sub: Sub, ctx: CommandContext): void {
  sub('store', 'store a failure, pattern or systemic memory')
    .requiredOption('--trigger <text>', 'the situation that should recall this memory')
    .requiredOption('--resolution <text>', 'what to do about it')
    .option('--type <type>', 'failure | pattern | systemic', 'failure')
    .option('--source <source>', 'where it came from', '')
    .option('--tags <json>', 'JSON list of tags', '[]')
    .action(async function (this: HelixCommand, o: { trigger: string; resolution: string; type: string; source: string; tags: string }) {
      const tags = jsonList('--tags', o.tags);
      await withStore(ctx, this, (s) => s.store({ trigger: o.trigger, resolution: o.resolution, type: o.type, source: o.source, tags }));
    });

  sub('recall', 'memories for a query, best first')
    .argument('<query>')
    .option('--type <type>', 'only this type')
    .option('--limit <n>', 'how many', count('--limit'), 5)
    .option('--min-effectiveness <x>', 'drop memories below this effectiveness', fraction('--min-effectiveness'), 0)
    .option('--min-relevance <x>', 'drop memories below this relevance (relative to the best hit)', fraction('--min-relevance'))
    .option('--min-match <x>', 'drop memories that answer less of the query than this (absolute: the gate)', fraction('--min-match'))
    .option('--expand', 'add 1-hop graph neighbours marked _via_edge')
    .action(async function (this: HelixCommand, query: string, o: { type?: string; limit: number; minEffectiveness: number; minRelevance?: number; minMatch?: number; expand?: boolean }) {
      await withStore(ctx, this, (s) => s.recall(query, o));
    });

  sub('get', 'one memory by name')
    .argument('<name>')
    .action(async function (this: HelixCommand, name: string) {
      const { openMemoryStore, resolveDbPath } = await import('../../memory/index.js');
      const dbPath = this.optsWithGlobals<GroupOptions>().db ?? resolveDbPath(ctx.cwd, ctx.env);
      const store = openMemoryStore({ dbPath });
      const found = store.get(name);
      store.close();
      if (!found) {
        printJson(ctx.io, { error: 'not found' });
        throw new HelixError('notFound', `helix memory: not found: ${name}`);
      }
      printJson(ctx.io, found);
    });

  sub('edge', 'link two memories (the same link again adds to its weight)')
    .requiredOption('--from <name>')
    .requiredOption('--to <name>')
    .requiredOption('--rel <rel>', 'solves | co_occurs | similar | causes')
    .option('--weight <w>', 'weight to add', amount('--weight'), 1.0)
    .action(async function (this: HelixCommand, o: { from: string; to: string; rel: string; weight: number }) {
      await withStore(ctx, this, (s) => s.edge(o.from, o.to, o.rel, o.weight));
    });

  sub('edges', 'list edges')
    .option('--name <name>', 'edges touching this memory')
    .option('--rel <rel>', 'only this relation')
    .action(async function (this: HelixCommand, o: { name?: string; rel?: string }) {
      await withStore(ctx, this, (s) => s.edges(o));
    });
}

/** The learning loop's side: feedback, decay, prune, consolidate, health. */
function learningCommands(sub: Sub, ctx: CommandContext): void {
  sub('feedback', 'add to helped (delta > 0) or failed (delta < 0)')
    .requiredOption('--names <json>', 'JSON list of memory names')
    .requiredOption('--delta <d>', 'signed amount', amount('--delta'))
    .action(async function (this: HelixCommand, o: { names: string; delta: number }) {
      const names = jsonList('--names', o.names);
      await withStore(ctx, this, (s) => s.feedback(names, o.delta));
    });

  sub('feedback-verify', 'feedback from a task\'s verification result')
    .requiredOption('--task-id <id>')
    .requiredOption('--verify-passed <bool>', 'true | false')
    .requiredOption('--injected <json>', 'JSON list of injected memory names')
    .option('--utilized <json>', 'JSON list of names the agent reported as UTILIZED')
    .option('--objective <text>', "the task's text: unused memories it is not about are left alone")
    .option('--files <json>', 'JSON list of files the task touches (with --objective)', '[]')
    .action(async function (this: HelixCommand, o: { taskId: string; verifyPassed: string; injected: string; utilized?: string; objective?: string; files: string }) {
      const input = {
        taskId: o.taskId,
        verifyPassed: boolean('--verify-passed', o.verifyPassed),
        injected: jsonList('--injected', o.injected),
        ...(o.utilized !== undefined ? { utilized: jsonList('--utilized', o.utilized) } : {}),
        ...(o.objective !== undefined ? { task: { objective: o.objective, files: jsonList('--files', o.files) } } : {}),
      };
      await withStore(ctx, this, (s) => s.feedbackVerify(input));
    });

  sub('decay', 'halve the counts of dormant, little-used memories')
    .option('--days <n>', 'unused for this many days', days('--days'), 30)
    .option('--min-uses <n>', 'with fewer uses than this', bounded('--min-uses', { min: 0, max: 1_000_000 }), 2)
    .action(async function (this: HelixCommand, o: { days: number; minUses: number }) {
      await withStore(ctx, this, (s) => s.decay(o.days, o.minUses));
    });

  sub('prune', 'remove memories that keep failing')
    .option('--threshold <x>', 'effectiveness strictly below this', fraction('--threshold'), 0.25)
    .option('--min-uses <n>', 'with at least this many uses', bounded('--min-uses', { min: 0, max: 1_000_000 }), 3)
    .action(async function (this: HelixCommand, o: { threshold: number; minUses: number }) {
      await withStore(ctx, this, (s) => s.prune(o.threshold, o.minUses));
    });

  sub('consolidate', 'merge near-duplicate memories')
    .option('--threshold <x>', "cosine at or above which two merge (default: the embedder's, 0.9 for MiniLM)", fraction('--threshold'))
    .action(async function (this: HelixCommand, o: { threshold?: number }) {
      await withStore(ctx, this, (s) => s.consolidate(o.threshold));
    });

  sub('health', 'store status and whether the learning loop is closed').action(async function (this: HelixCommand) {
    await withStore(ctx, this, (s) => s.health());
  });
}

/** What reaches a prompt: similar, suggested edges, inject, batch-inject, strategic recall, chunk, connected. */
function promptCommands(sub: Sub, ctx: CommandContext): void {
  sub('similar-recent', 'recent memories similar to a trigger')
    .argument('<trigger>')
    .option('--threshold <x>', "cosine at or above (default: the embedder's systemic threshold, 0.7 for MiniLM)", fraction('--threshold'))
    .option('--days <n>', 'created within this many days', days('--days'), 7)
    .option('--type <type>', 'memory type', 'failure')
    .action(async function (this: HelixCommand, trigger: string, o: { threshold?: number; days: number; type: string }) {
      await withStore(ctx, this, (s) => s.similarRecent(trigger, o));
    });

  sub('suggest-edges', 'edges worth adding for a memory')
    .argument('<name>')
    .option('--limit <n>', 'how many', count('--limit'), 5)
    .action(async function (this: HelixCommand, name: string, o: { limit: number }) {
      await withStore(ctx, this, (s) => s.suggestEdges(name, o.limit));
    });

  sub('inject', 'the memory block for a task prompt')
    .requiredOption('--objective <text>')
    .option('--files <json>', 'JSON list of files the task touches', '[]')
    .option('--limit <n>', 'how many', count('--limit'), 5)
    .option('--min-match <x>', "the gate: how much of the task a memory must answer (default: the embedder's)", fraction('--min-match'))
    .action(async function (this: HelixCommand, o: { objective: string; files: string; limit: number; minMatch?: number }) {
      const files = jsonList('--files', o.files);
      await withStore(ctx, this, (s) => s.inject({ objective: o.objective, files, limit: o.limit, ...(o.minMatch === undefined ? {} : { minMatch: o.minMatch }) }));
    });

  sub('batch-inject', 'memory blocks for a wave of tasks, no memory given twice')
    .requiredOption('--tasks <json>', 'JSON list of objectives (or {"objective","files"})')
    .option('--limit <n>', 'per task', count('--limit'), 3)
    .action(async function (this: HelixCommand, o: { tasks: string; limit: number }) {
      const tasks = tasksList(o.tasks);
      await withStore(ctx, this, (s) => s.batchInject(tasks, o.limit));
    });

  sub('strategic-recall', 'what the store knows about an objective, with a summary')
    .argument('<objective>')
    .option('--limit <n>', 'how many', count('--limit'), 15)
    .action(async function (this: HelixCommand, objective: string, o: { limit: number }) {
      await withStore(ctx, this, (s) => s.strategicRecall(objective, o.limit));
    });

  sub('why', 'what would be injected for a bead, why each passed the gate, and what was left out just under the line')
    .argument('<bead>', 'a bead id of this project\'s tracker')
    .option('--json', 'one JSON document')
    .action(async function (this: HelixCommand, id: string, o: { json?: boolean }) {
      const bead = await trackerBead(ctx, id);
      await withStore(ctx, this, (s) => whyInjected(s, bead), o.json ? printJson : printWhy);
    });

  sub('chunk', 'turn a successful approach into a pattern')
    .requiredOption('--task <text>')
    .requiredOption('--outcome <text>')
    .requiredOption('--approach <text>')
    .action(async function (this: HelixCommand, o: { task: string; outcome: string; approach: string }) {
      await withStore(ctx, this, (s) => s.chunk(o));
    });

  sub('connected', 'memories reachable over edges')
    .argument('<name>')
    .option('--hops <n>', 'at most this many edges away', bounded('--hops', { min: 1, max: 20 }), 2)
    .action(async function (this: HelixCommand, name: string, o: { hops: number }) {
      await withStore(ctx, this, (s) => s.connected(name, o.hops));
    });
}

/** The store the user curates: list, show, edit, forget, restore, export, import (and edge decay). */
function curationCommands(sub: Sub, ctx: CommandContext): void {
  sub('list', 'every memory, one a line (--archived: the archive)')
    .option('--type <type>', 'only this type')
    .option('--archived', 'what prune, consolidate, merges, edit and forget archived')
    .option('--json', 'one JSON document')
    .action(async function (this: HelixCommand, o: { type?: string; archived?: boolean; json?: boolean }) {
      await withStore(ctx, this, (s) => s.list(o), o.json ? printJson : printList);
    });

  sub('show', 'one memory with its files, edges and archived versions')
    .argument('<name>')
    .option('--json', 'one JSON document')
    .action(async function (this: HelixCommand, name: string, o: { json?: boolean }) {
      await withStore(ctx, this, (s) => s.show(name), o.json ? printJson : printShown);
    });

  sub('edit', 'new text for a memory (the old version is archived)')
    .argument('<name>')
    .option('--trigger <text>')
    .option('--resolution <text>')
    .option('--type <type>', 'failure | pattern | systemic')
    .option('--tags <json>', 'JSON list of tags (replaces them)')
    .action(async function (this: HelixCommand, name: string, o: { trigger?: string; resolution?: string; type?: string; tags?: string }) {
      const tags = o.tags === undefined ? undefined : jsonList('--tags', o.tags);
      await withStore(ctx, this, (s) => s.edit(name, { trigger: o.trigger, resolution: o.resolution, type: o.type, tags }));
    });

  sub('forget', 'move memories to the archive (restore brings them back)')
    .argument('<names...>')
    .action(async function (this: HelixCommand, names: string[]) {
      await withStore(ctx, this, (s) => s.forget(names));
    });

  sub('restore', 'bring back the newest archived version of a memory')
    .argument('<name>')
    .action(async function (this: HelixCommand, name: string) {
      await withStore(ctx, this, (s) => s.restore(name));
    });

  sub('export', 'every memory as JSONL, one a line, with its counters and edges')
    .action(async function (this: HelixCommand) {
      await withStore(ctx, this, (s) => s.exportStore(), (io, text) => io.stdout(text));
    });

  sub('import', 'memories from an export (FILE, or - for stdin): duplicates and refused ones are skipped and listed')
    .argument('<file>')
    .action(async function (this: HelixCommand, file: string) {
      const text = file === '-' ? await readAll(process.stdin) : await readImportFile(file);
      await withStore(ctx, this, (s) => s.importStore(text));
    });

  sub('decay-edges', 'halve edges between dormant memories')
    .option('--days <n>', 'both ends unused this many days', days('--days'), 60)
    .action(async function (this: HelixCommand, o: { days: number }) {
      await withStore(ctx, this, (s) => s.decayEdges(o.days));
    });
}

type Bead = import('../../tracker/index.js').Bead;

/** One bead of the project's tracker, or exit 3 with one line. */
async function trackerBead(ctx: CommandContext, id: string): Promise<Bead> {
  const [{ BeadStore }, { trackerDir }, { assertJsonlBackend }] = await Promise.all([import('../../tracker/bead-store.js'), import('../../tracker/tracker-dir.js'), import('../../tracker/backend.js')]);
  const dir = trackerDir(ctx.cwd, ctx.env);
  assertJsonlBackend(dir, ctx.env);
  const bead = new BeadStore(dir, ctx.env).read().byId.get(id);
  if (!bead) throw new HelixError('notFound', `helix memory why: no bead ${id} in ${dir}`);
  return bead;
}

/**
 * `why`: the run's own injection for the bead (memory-port's injectionFor: the gate, the
 * exploration slot, the budget) beside the gate's reasons for every candidate that passed and the
 * best of those left out.
 */
async function whyInjected(store: Store, bead: Bead) {
  const port = await import('../../supervisor/shell/memory-port.js');
  const task = { objective: port.beadObjective(bead), files: port.beadFiles(bead) };
  const explained = await store.explainInjection({ ...task, limit: port.EXPLORATION_POOL, below: 3 });
  const { names } = await port.injectionFor(store, bead);
  const byName = new Map(explained.passed.map((m) => [m.name, m]));
  return {
    bead: bead.id,
    title: bead.title,
    files: task.files,
    gate: explained.gate,
    leader: explained.leader,
    injected: names.flatMap((n) => byName.get(n) ?? []),
    passed_not_injected: explained.passed.filter((m) => !names.includes(m.name)),
    below: explained.below,
  };
}

type Why = Awaited<ReturnType<typeof whyInjected>>;
type Explained = Why['injected'][number];

/** What a candidate's match rests on, in words. */
function evidence(m: Explained): string {
  const list = (xs: string[]) => `${xs.slice(0, 8).join(', ')}${xs.length > 8 ? ', …' : ''}`;
  if (m.side === 'file') return `names the task's file ${m.files.join(', ')}`;
  const words = m.words.length ? (m.side === 'trigger' ? `the task holds ${m.words.length} words of its trigger: ${list(m.words)}` : `it holds ${m.words.length} of the task's words: ${list(m.words)}`) : 'no words shared';
  return m.files.length ? `${words}; both name ${m.files.join(', ')}` : words;
}

function printWhy(io: CommandContext['io'], why: Why): void {
  const line = (m: Explained, verdict: string) => `  ${m.name} [${m.type}] score ${m.score.toFixed(3)}, match ${m.match.toFixed(3)} ${verdict}: ${evidence(m)}`;
  const passed = (m: Explained) => (m.reason === 'leader' ? `(the clear best answer: ≥ ${why.leader.floor.toFixed(2)} and ${why.leader.ratio}× the runner-up)` : `(≥ ${why.gate.toFixed(2)})`);
  const out = [
    `${why.bead}: ${why.title}`,
    `files: ${why.files.join(', ') || 'none named'}`,
    `gate: match ≥ ${why.gate.toFixed(2)}, or the task's clear best answer (≥ ${why.leader.floor.toFixed(2)} and ${why.leader.ratio}× the runner-up)`,
    '',
    why.injected.length ? `would be injected (${why.injected.length}):` : 'would be injected: nothing',
    ...why.injected.map((m) => line(m, passed(m))),
  ];
  if (why.passed_not_injected.length) out.push('', 'passed the gate, not injected (the run shows 5 within its character budget, the last slot for the least tried):', ...why.passed_not_injected.map((m) => line(m, passed(m))));
  out.push('', why.below.length ? 'left out, just under the line:' : 'left out: no other memory shares anything with the bead', ...why.below.map((m) => line(m, `< ${why.gate.toFixed(2)}`)));
  io.stdout(`${out.join('\n')}\n`);
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function readImportFile(file: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new HelixError('notFound', `helix memory import: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
