// Tracker integrity: what `tracker doctor` reports, and the `--fix` that makes the file writable
// again without losing a byte — bad lines and earlier copies of duplicate ids move verbatim to
// `beads.quarantine.jsonl` after the file is backed up.
import { appendFileSync, copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Bead, allDependencyIds } from './bead.js';
import { allCycles } from './deps.js';
import { QUARANTINE_FILE } from './paths.js';
import { type StaleClaim, type StaleClaimFacts, staleClaims } from './stale.js';
import { type BeadStore, type StoreProblem, Draft, parseBeads } from './store.js';
import { unclaimBead } from './claim.js';
import { repairSchema, schemaProblems } from './schema.js';

export interface DoctorReport {
  healthy: boolean;
  total: number;
  problems: StoreProblem[];
  dangling: Array<{ id: string; depends_on_id: string }>;
  cycles: string[][];
  stale_claims: StaleClaim[];
  /** Known fields DDx's next rewrite would drop or change (string-form deps, wrong types). */
  ddx_damage: Array<{ id: string; problem: string }>;
}

export function diagnose(beads: Bead[], problems: StoreProblem[], facts: StaleClaimFacts): DoctorReport {
  const ids = new Set(beads.map((b) => b.id));
  const dangling = beads.flatMap((b) => allDependencyIds(b).filter((d) => !ids.has(d)).map((d) => ({ id: b.id, depends_on_id: d })));
  const cycles = allCycles(beads);
  const stale = staleClaims(beads, facts);
  const damage = beads.flatMap((b) => schemaProblems(b).map((problem) => ({ id: b.id, problem })));
  return {
    healthy: problems.length === 0 && dangling.length === 0 && cycles.length === 0 && stale.length === 0 && damage.length === 0,
    total: beads.length,
    problems,
    dangling,
    cycles,
    stale_claims: stale,
    ddx_damage: damage,
  };
}

export interface FixResult {
  backup: string | undefined;
  quarantined: number;
  released: string[];
  /** Records whose string-form dependencies, labels string or numeric-string priority were repaired. */
  repaired: string[];
}

function backupName(now: Date): string {
  return `beads.jsonl.bak-${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}`;
}

/** Backs up, quarantines bad lines, folds duplicates (last wins) and releases stale claims. */
export function fixStore(store: BeadStore, facts: StaleClaimFacts): FixResult {
  return store.withLock(() => {
    const text = store.readText();
    const snapshot = parseBeads(text);
    const stale = staleClaims(snapshot.beads, facts);
    const repairs = snapshot.beads.flatMap((b) => {
      const fixed = repairSchema(b);
      return fixed ? [fixed] : [];
    });
    if (snapshot.problems.length === 0 && stale.length === 0 && repairs.length === 0) return { backup: undefined, quarantined: 0, released: [], repaired: [] };
    mkdirSync(store.dir, { recursive: true });
    const backup = join(store.dir, backupName(facts.now));
    copyFileSync(store.file, backup);
    if (snapshot.problems.length > 0) {
      const lines = snapshot.problems.map((p) => `${p.raw}\n`).join('');
      appendFileSync(join(store.dir, QUARANTINE_FILE), lines);
    }
    const draft = new Draft(snapshot);
    for (const fixed of repairs) draft.change(fixed.id, (b) => Object.assign(b, fixed));
    for (const claim of stale) unclaimBead(draft, claim.id, { now: facts.now });
    store.writeLocked(draft.serialise());
    return { backup, quarantined: snapshot.problems.length, released: stale.map((s) => s.id), repaired: repairs.map((b) => b.id) };
  });
}
