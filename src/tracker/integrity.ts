// Tracker integrity: what `tracker doctor` reports, and the `--fix` that makes the file writable
// again without losing a byte — bad lines and earlier copies of duplicate ids move verbatim to
// `beads.quarantine.jsonl` after the file is backed up, and each copy it chose is reported.
import { appendFileSync, constants, copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Bead, allDependencyIds } from './bead.js';
import { type BeadCopy, chooseCopies, conflictSides, describeChoice } from './conflicts.js';
import { createUniquely } from '../unique-path.js';
import { allCycles } from './deps.js';
import { QUARANTINE_FILE } from './tracker-dir.js';
import { type StaleClaim, type StaleClaimFacts, claimAheadSec, staleClaims } from './stale.js';
import { type BeadStore, type StoreProblem, Draft, parseBeads } from './bead-store.js';
import { releaseOrphan } from './orphans.js';
import { repairSchema, schemaProblems } from './schema.js';
import { encodeBeadsText } from './bytes.js';

export interface DoctorReport {
  healthy: boolean;
  total: number;
  problems: StoreProblem[];
  dangling: Array<{ id: string; depends_on_id: string }>;
  cycles: string[][];
  stale_claims: StaleClaim[];
  /** Known fields DDx's next rewrite would drop or change (string-form deps, wrong types). */
  ddx_damage: Array<{ id: string; problem: string }>;
  /** in_progress beads whose claim is dated in the future (stale ones are also in stale_claims, and --fix releases them). */
  future_claims: Array<{ id: string; ahead_sec: number }>;
  /** Lines starting with a UTF-8 byte order mark: DDx drops such a line on its next read (`--fix` removes the mark). */
  bom_lines: number[];
}

export function diagnose(beads: Bead[], problems: StoreProblem[], facts: StaleClaimFacts, bomLines: number[] = []): DoctorReport {
  const ids = new Set(beads.map((b) => b.id));
  const dangling = beads.flatMap((b) => allDependencyIds(b).filter((d) => !ids.has(d)).map((d) => ({ id: b.id, depends_on_id: d })));
  const cycles = allCycles(beads);
  const stale = staleClaims(beads, facts);
  const damage = beads.flatMap((b) => schemaProblems(b).map((problem) => ({ id: b.id, problem })));
  const future = beads.flatMap((b) => {
    const ahead = claimAheadSec(b, facts.now);
    return ahead === undefined ? [] : [{ id: b.id, ahead_sec: ahead }];
  });
  return {
    healthy: problems.length === 0 && dangling.length === 0 && cycles.length === 0 && stale.length === 0 && damage.length === 0 && future.length === 0 && bomLines.length === 0,
    total: beads.length,
    problems,
    dangling,
    cycles,
    stale_claims: stale,
    ddx_damage: damage,
    future_claims: future,
    bom_lines: bomLines,
  };
}

export interface FixResult {
  backup: string | undefined;
  quarantined: number;
  released: string[];
  /** Released claims whose attempt had injected memories: the names stay on the bead for the next run's feedback. */
  unsettled: Array<{ id: string; names: number }>;
  /** Records whose string-form dependencies, labels string or numeric-string priority were repaired. */
  repaired: string[];
  /** One line per bead the fix had to choose a copy of (a git conflict, a duplicate id). */
  choices: string[];
}

function backupStamp(now: Date): string {
  return now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

/**
 * Backs up, quarantines bad lines and conflict markers, keeps one copy of each id (the newer edit
 * inside a git conflict, the last line otherwise; see conflicts.ts) and releases stale claims.
 * Every line it drops goes verbatim to the quarantine file, and every choice is reported.
 */
export function fixStore(store: BeadStore, facts: StaleClaimFacts): FixResult {
  return store.withLock(() => {
    const text = store.readText();
    const snapshot = parseBeads(text);
    const stale = staleClaims(snapshot.beads, facts);
    const needsRepair = snapshot.beads.some((b) => repairSchema(b) !== undefined);
    if (snapshot.problems.length === 0 && stale.length === 0 && !needsRepair && snapshot.bomLines.length === 0) return { backup: undefined, quarantined: 0, released: [], unsettled: [], repaired: [], choices: [] };
    mkdirSync(store.dir, { recursive: true });
    // Never over an earlier backup: two fixes in one second keep both originals.
    const backup = createUniquely(join(store.dir, `beads.jsonl.bak-${backupStamp(facts.now)}`), '', (path) => copyFileSync(store.file, path, constants.COPYFILE_EXCL));
    const { kept, moved, choices } = sortLines(text, snapshot.problems);
    if (moved.length > 0) appendFileSync(join(store.dir, QUARANTINE_FILE), encodeBeadsText(moved.map((raw) => `${raw}\n`).join('')));
    const draft = new Draft(parseBeads(kept));
    const repaired: string[] = [];
    for (const bead of draft.beads) {
      const fixed = repairSchema(bead);
      if (!fixed) continue;
      draft.change(fixed.id, (b) => Object.assign(b, fixed));
      repaired.push(fixed.id);
    }
    const released: string[] = [];
    const unsettled: FixResult['unsettled'] = [];
    for (const { id } of staleClaims(draft.beads, facts)) {
      const orphan = releaseOrphan(draft, id, facts, 'later');
      if (!orphan) continue;
      released.push(id);
      if (orphan.injected.length > 0) unsettled.push({ id, names: orphan.injected.length });
    }
    store.writeLocked(draft.serialise());
    return { backup, quarantined: moved.length, released, unsettled, repaired, choices };
  });
}

/** Splits the file into the lines to keep and the lines to quarantine, with the copy choices made. */
function sortLines(text: string, problems: StoreProblem[]): { kept: string; moved: string[]; choices: string[] } {
  const lines = text.split('\n');
  const sides = conflictSides(lines);
  const bad = new Set(problems.filter((p) => p.kind !== 'duplicate').map((p) => p.line));
  const copies = new Map<string, BeadCopy[]>();
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? '';
    if (!raw.trim() || bad.has(i + 1)) continue;
    const bead = JSON.parse(raw.trim()) as Bead; // parseBeads accepted every line not in `bad`
    const copy: BeadCopy = { line: i + 1, raw, updatedAt: typeof bead.updated_at === 'string' ? bead.updated_at : undefined, side: sides[i]?.side, label: sides[i]?.label };
    copies.set(bead.id, [...(copies.get(bead.id) ?? []), copy]);
  }
  const movedLines = new Set(bad);
  const choices: string[] = [];
  for (const choice of chooseCopies(copies)) {
    for (const copy of choice.moved) movedLines.add(copy.line);
    choices.push(describeChoice(choice, QUARANTINE_FILE));
  }
  // a bead only in a diff3 base section was deleted on both sides
  for (const [id, [only, ...more]] of copies) {
    if (only && more.length === 0 && only.side === 'base') {
      movedLines.add(only.line);
      choices.push(`git conflict: ${id} is only in the common ancestor (line ${only.line}), deleted on both sides; moved to ${QUARANTINE_FILE}`);
    }
  }
  const kept: string[] = [];
  const moved: string[] = [];
  lines.forEach((raw, i) => {
    if (!raw.trim()) return;
    (movedLines.has(i + 1) ? moved : kept).push(raw);
  });
  return { kept: kept.map((l) => `${l}\n`).join(''), moved, choices };
}

/** `age=Ns`, or how far in the future a claim is dated. */
export function claimAge(stale: { ageSec: number; aheadSec?: number }): string {
  return stale.aheadSec !== undefined ? `dated ${stale.aheadSec}s in the future` : `age=${stale.ageSec}s`;
}

/** What doctor says about a linked bead file (DDx 93be5c8cb2 store.go:418, ae663ca012 store.go:519: os.Rename over the path). */
export function linkNote(file: string, target: string): string {
  return `note: ${file} is a link to ${target}: helix writes through it, but DDx replaces the link with a plain file on its next write, and the two then diverge`;
}
