// The arithmetic and the plumbing of the relevance-gate evals (issue #33), shared by
// `npm run eval:gate` (the synthetic sets) and `npm run eval:memory -- --real` (the real trackers):
// a real store in a temp folder; beads sent through the run's own injection path (the
// supervisor's memory port: objective and files as the run reads them from a bead, the
// exploration slot, the character budget); file edits through the edit hook's own code; honest
// rounds of feedback through the port; and the figures the issue asks for — precision, silence
// (beads and hooks apart), gold recall, erosion, and where each systemic row went.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The issue's goals (issue #33). */
export const GOALS = { precision: 0.8, beadSilence: 12 / 15, hookSilence: 6 / 7, beadRecall: 0.85, eroded: 0 };

/** The modules of a built helix (`dist/`): this checkout's, or another's for a "before" figure. */
export async function helixModules(helix) {
  return {
    memory: await import(join(helix, 'dist/memory/index.js')),
    hooks: await import(join(helix, 'dist/installer/hook-memory.js')),
    port: await import(join(helix, 'dist/supervisor/shell/memory-port.js')),
  };
}

/**
 * A real store in a temp folder holding `memories` ({id, type, trigger, resolution, at?}): each is
 * stored at its own `at` (ms) or `spacing` after the previous one. The store may merge two of
 * them (real data): `idsOf` maps a stored name to every item id it stands for.
 */
export async function buildStore(mods, choice, memories, { start, spacing = 3_600_000, strict = true } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'helix-eval-gate-'));
  const dbPath = join(dir, '.helix', 'helix.db');
  let at = start ?? memories[0]?.at ?? Date.now();
  const warnings = [];
  const env = { HELIX_EMBEDDER: choice };
  const store = mods.memory.openMemoryStore({ dbPath, env, now: () => new Date(at), warn: (m) => warnings.push(m) });
  const embedderId = await store.embedderId();
  const done = () => rmSync(dir, { recursive: true, force: true });
  if (warnings.length || (choice !== 'lexical' && embedderId.startsWith('lexical'))) {
    store.close();
    done();
    return { skipped: warnings.join('; ') || 'fell back to lexical' };
  }
  const idsOf = new Map();
  const statuses = { added: 0, merged: 0, rejected: 0 };
  for (const m of memories) {
    if (m.at !== undefined) at = m.at;
    const r = await store.store({ trigger: m.trigger, resolution: m.resolution, type: m.type, source: m.source ?? 'eval' });
    statuses[r.status]++;
    if (strict && r.status !== 'added') throw new Error(`${m.id}: ${r.status} ${r.reason}`);
    if (r.status !== 'rejected') idsOf.set(r.name, new Set([...(idsOf.get(r.name) ?? []), m.id]));
    if (m.at === undefined) at += spacing;
  }
  return { dir, dbPath, env, store, embedderId, idsOf, statuses, at: () => at, done };
}

/**
 * A synthetic set's items (eval/memory-gate.json, eval/memory-beads.json) as beads (what the port
 * reads) and edits (what the hook gets). #25's tasks — an objective and the files the task names —
 * become a bead's title and relevant_files.
 */
export function syntheticItems(set, filter = () => true) {
  const beads = [];
  const edits = [];
  for (const q of set.queries.filter(filter)) {
    if (q.file !== undefined) edits.push({ id: q.id, kind: 'hook', file: q.file, relevant: q.relevant });
    else if (q.title !== undefined) beads.push({ id: q.id, kind: 'bead', relevant: q.relevant, bead: { id: q.id, title: q.title, description: q.description, acceptance: q.acceptance, status: 'open' } });
    else beads.push({ id: q.id, kind: 'bead', relevant: q.relevant, bead: { id: q.id, title: q.objective, relevant_files: q.files ?? [], status: 'open' } });
  }
  return { beads, edits };
}

/** The synthetic sets: memory-gate.json's split is chosen by the caller; memory-beads.json is a test set, always whole. */
export const SYNTHETIC_START = Date.parse('2026-02-02T09:00:00Z');
export const SYNTHETIC_SPACING = 12 * 3_600_000;
export const inSplit = (split) => (q) => split === 'all' || (split === 'heldout') === Boolean(q.heldout);

/** The environment a port or hook opened on the built store sees (its clock fixed at `now`). */
const envFor = (built, now) => ({ ...built.env, HELIX_DB_PATH: built.dbPath, HELIX_NOW: new Date(now ?? built.at()).toISOString() });

/** Ids an injection stands for (a merged memory stands for each item merged into it). */
const idsOfNames = (built, names) => names.flatMap((n) => [...(built.idsOf.get(n) ?? [n])]);

/**
 * What each bead gets through the run's injection path. Default: the port itself
 * (`openMemoryPort(...).inject(bead)`). With `minMatch` (a sweep): the same steps the port takes
 * — the store's entries for the bead's objective and files, the exploration slot, the budget —
 * with that gate instead of the embedder's.
 */
export async function beadInjections(mods, built, beads, { minMatch, now } = {}) {
  const { port } = mods;
  const out = [];
  if (minMatch === undefined) {
    const memoryPort = await port.openMemoryPort(built.dir, envFor(built, now), (line) => {
      throw new Error(line);
    });
    try {
      for (const item of beads) out.push({ ...item, names: (await memoryPort.inject(item.bead)).names });
    } finally {
      memoryPort.close?.();
    }
  } else {
    for (const item of beads) {
      const ranked = await built.store.injectEntries({ objective: port.beadObjective(item.bead), files: port.beadFiles(item.bead), limit: port.EXPLORATION_POOL, minMatch });
      const uses = (name) => {
        const m = built.store.get(name);
        return m ? m.helped + m.failed : 0;
      };
      const chosen = port.chooseWithExploration(ranked.injected.map((name) => ({ name, uses: uses(name) })));
      out.push({ ...item, names: port.renderChosen(ranked, chosen).names });
    }
  }
  return out.map((item) => ({ ...item, injected: idsOfNames(built, item.names) }));
}

/**
 * What each file edit gets through the edit hook's code (`openHookMemory(...).recallForFile`, no
 * session: every event is judged alone). With `minMatch`: the hook's query with that gate.
 */
export async function hookInjections(mods, built, edits, { minMatch, now, limit = 5 } = {}) {
  const out = [];
  for (const item of edits) {
    let names;
    if (minMatch === undefined) {
      const hook = await mods.hooks.openHookMemory(built.dbPath, built.dir, envFor(built, now));
      try {
        names = (await hook.recallForFile(item.file, limit)).map((m) => m.name);
      } finally {
        hook.close();
      }
    } else {
      names = (await built.store.inject({ objective: item.file, files: [item.file], limit, minMatch })).injected;
    }
    out.push({ ...item, names, injected: idsOfNames(built, names) });
  }
  return out;
}

/** The most memories one bead or edit is given (the port's and the hook's limit). */
export const INJECTION_LIMIT = 5;

/**
 * Precision, silence and recall of items with their injections (`relevant` empty: nothing fits).
 * Recall counts at most INJECTION_LIMIT gold memories per item: found / min(5, gold).
 */
export function injectionFigures(items) {
  let injected = 0, right = 0, gold = 0, found = 0, silent = 0, nothing = 0;
  for (const q of items) {
    const relevant = new Set(q.relevant);
    const got = new Set(q.injected);
    injected += got.size;
    right += [...got].filter((id) => relevant.has(id)).length;
    if (relevant.size === 0) {
      nothing++;
      if (got.size === 0) silent++;
    } else {
      // At most INJECTION_LIMIT of a bead's gold memories can reach it (real data: a bead may have dozens).
      gold += Math.min(relevant.size, INJECTION_LIMIT);
      found += Math.min([...relevant].filter((id) => got.has(id)).length, INJECTION_LIMIT);
    }
  }
  return { n: items.length, injected, right, precision: injected ? right / injected : NaN, nothing, silent, silence: nothing ? silent / nothing : NaN, gold, found, recall: gold ? found / gold : NaN };
}

/**
 * Honest rounds through the port: each bead is injected, the agent names as UTILIZED exactly the
 * injected memories that fit it, verification passes; after `rounds` rounds, which gold memories
 * (relevant to some bead) sit under the prune line. The store is changed: run it last.
 */
export async function erosion(mods, built, beads, { rounds = 6, now } = {}) {
  const memoryPort = await mods.port.openMemoryPort(built.dir, envFor(built, now), (line) => {
    throw new Error(line);
  });
  try {
    for (let round = 0; round < rounds; round++) {
      for (const item of beads) {
        const { names } = await memoryPort.inject(item.bead);
        const relevant = new Set(item.relevant);
        const used = names.filter((n) => idsOfNames(built, [n]).some((id) => relevant.has(id)));
        await memoryPort.feedback({ bead: item.bead, injected: names, verified: true, output: used.length ? `done\nUTILIZED: [${used.join(', ')}]\n` : 'done\n' });
      }
    }
  } finally {
    memoryPort.close?.();
  }
  const goldIds = new Set(beads.flatMap((b) => b.relevant));
  const { PRUNE_MIN_USES, PRUNE_THRESHOLD } = mods.memory;
  const eroded = [];
  let goldMemories = 0;
  for (const [name, ids] of built.idsOf) {
    if (![...ids].some((id) => goldIds.has(id))) continue;
    goldMemories++;
    const m = built.store.get(name);
    if (m && m.helped + m.failed >= PRUNE_MIN_USES && m.effectiveness < PRUNE_THRESHOLD) eroded.push(name);
  }
  return { rounds, goldMemories, eroded };
}

/** Where each systemic row went: the items it was injected into, and whether it fit each. */
export function systemicPlacement(items, systemicIds) {
  return systemicIds.map((id) => {
    const where = items.filter((q) => q.injected.includes(id));
    const fits = items.filter((q) => q.relevant.includes(id));
    return { id, injectedInto: where.map((q) => `${q.id}${q.relevant.includes(id) ? '' : ' (does not fit)'}`), fits: fits.length, reached: where.filter((q) => q.relevant.includes(id)).length, misplaced: where.filter((q) => !q.relevant.includes(id)).length };
  });
}

/**
 * One set through everything: a store of `memories`, the beads through the port, the edits through
 * the hook, then the honest rounds (last: they change the store). Returns the items with what
 * they got, the figures, and the erosion.
 */
export async function evaluateSet(mods, choice, { memories, beads, edits, start, spacing, strict = true, now, rounds = 6 }) {
  const built = await buildStore(mods, choice, memories, { start, spacing, strict });
  if (built.skipped) return built;
  try {
    const beadItems = await beadInjections(mods, built, beads, { now });
    const hookItems = await hookInjections(mods, built, edits, { now });
    const eroded = await erosion(mods, built, beads, { rounds, now });
    return { embedderId: built.embedderId, statuses: built.statuses, beadItems, hookItems, bf: injectionFigures(beadItems), hf: injectionFigures(hookItems), eroded };
  } finally {
    built.store.close();
    built.done();
  }
}

export const f3 = (x) => (Number.isFinite(x) ? x.toFixed(3) : '–');
const mark = (ok) => (ok ? ' ✓' : ' ✗');

/** One table row per item group: precision, silence, recall, and each against its goal. */
export function figuresTable(rows) {
  const out = ['| items | precision | silence (nothing fits, nothing injected) | gold recall | injected |', '|---|---|---|---|---|'];
  for (const { label, figures: f, kind } of rows) {
    const silenceGoal = kind === 'hooks' ? GOALS.hookSilence : GOALS.beadSilence;
    const silence = f.nothing ? `${f.silent}/${f.nothing} = ${f3(f.silence)}${mark(f.silence >= silenceGoal - 1e-9)}` : '–';
    const recall = f.gold ? `${f.found}/${f.gold} = ${f3(f.recall)}${kind === 'beads' ? mark(f.recall >= GOALS.beadRecall - 1e-9) : ''}` : '–';
    out.push(`| ${label} | ${f.injected ? `${f.right}/${f.injected} = ${f3(f.precision)}${mark(f.precision >= GOALS.precision - 1e-9)}` : '– (none injected)'} | ${silence} | ${recall} | ${f.injected} |`);
  }
  return out.join('\n');
}
