// The governing bead an alignment runs under (docs/contract/bash-interface.md §5, docs/contract/design.md §1: "acquire the
// kind:planning,action:align bead, then run the stored prompt"). One per scope, found by its exact
// title `align: <scope>` and the labels kind:planning + action:align — the way the action file
// finds it too. It is planning, not buildable work: never execution-eligible.
//
// Acquire (under the tracker lock, so nothing changes between the reads and the write):
// an open one is claimed for this process; an in_progress one held by this very process is reused;
// one whose claimer is gone (pid dead or reused on this machine) is reclaimed — at once when no
// process of its calls is left, else once the claim is older than HELIX_ORPHAN_THRESHOLD; one held by anyone else is refused. With none, it is created and left open for the
// agent to claim. When the alignment finishes helix settles it (docs/contract/cli.md §6.5, where
// the Bash CLI left it claimed for the action to close): a finished alignment closes it, one that
// failed or was cut short leaves it open and unclaimed for the next — so no claim on it outlives
// the run, and a scope has at most one governing bead that is not closed.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HelixError } from '../../errors.js';
import {
  type Bead,
  type BeadStore,
  claimBead,
  claimedPidOf,
  claimerAlive,
  closeBead,
  createBead,
  idPrefix,
  nothingLeftOf,
  labelsOf,
  orphanThresholdSec,
  thisMachine,
  timeOf,
  unclaimBead,
} from '../../tracker/index.js';
import { GOVERNING, type Say } from '../text/lines.js';
import { claimerCallsGone } from './claimer-calls.js';
import type { GoverningMode } from '../text/prompts.js';

/** The labels every governing bead carries, in this order, before its scope's area labels. */
export const GOVERNING_LABELS = ['helix', 'phase:review', 'kind:planning', 'action:align'];
const IDENTITY_LABELS = ['kind:planning', 'action:align'];

export const governingTitle = (scope: string) => `align: ${scope}`;
export const GOVERNING_ACCEPTANCE = 'Alignment review complete; all gaps classified; execution issues created for real gaps; traceability matrix produced';

/** Areas a repo-wide alignment covers when the project names none (docs/contract/bash-interface.md §5.2). */
const DEFAULT_AREAS = ['area:ui', 'area:api', 'area:data', 'area:infra', 'area:cli'];

/** The area labels a path implies (§5.2); several rules can apply. */
export function areaLabelsOfPath(raw: string): string[] {
  const path = raw.replace(/^\.\//, '');
  const labels: string[] = [];
  if (path.startsWith('website/')) labels.push('area:site');
  if (path.startsWith('docs/demos/')) labels.push('area:demo');
  if (path.startsWith('docs/')) labels.push('area:docs');
  if (path.startsWith('tests/')) labels.push('area:testing');
  if (path.startsWith('scripts/') || path.startsWith('bin/')) labels.push('area:cli');
  if (path.startsWith('workflows/') || path.startsWith('.ddx/')) labels.push('area:workflow');
  if (path.includes('/artifacts/') || path.endsWith('/artifacts')) labels.push('area:artifacts');
  return labels;
}

/** The `area:*` labels of a scope, without duplicates, in order (§5.2). */
export function scopeAreaLabels(root: string, scope: string): string[] {
  if (scope === 'repo') {
    const concerns = join(root, 'docs', 'helix', '01-frame', 'concerns.md');
    const text = existsSync(concerns) ? readFileSync(concerns, 'utf8') : '';
    if (!text) return DEFAULT_AREAS;
    // every backquoted `area:<name>` token, in order of first appearance
    return unique([...text.matchAll(/`(area:[^`]+)`/g)].map((m) => m[1] as string));
  }
  return unique([...(scope.startsWith('area:') ? [scope] : []), ...areaLabelsOfPath(scope)]);
}

const unique = (values: string[]) => [...new Set(values)];

/** The governing bead's spec-id: the scope itself when it names an artifact id. */
export function inferredSpecId(scope: string): string | undefined {
  return /^(FEAT|US|SD|TD|TP|ADR|CONTRACT)-/.test(scope) ? scope : undefined;
}

export function governingDescription(scope: string, areas: string[]): string {
  const lines = [`Top-down reconciliation review for ${scope}.`, `Scope: ${scope}.`];
  if (areas.length > 0) lines.push(`Scope areas: ${areas.map((a) => a.slice('area:'.length)).join(', ')}.`);
  return lines.join('\n');
}

export function isGoverningBeadFor(bead: Bead, scope: string): boolean {
  return bead.title === governingTitle(scope) && IDENTITY_LABELS.every((l) => labelsOf(bead).includes(l));
}

export interface Governing {
  bead: Bead;
  mode: GoverningMode;
}

export interface AcquireOptions {
  root: string;
  now?: Date;
  env?: NodeJS.ProcessEnv;
  /** Narrative lines (a reclaim). */
  say?: (line: Say) => void;
}

/**
 * Why a held claim cannot be taken over: its claimer runs (same pid and start time), or it is
 * younger than the threshold while something of its claimer's calls may still run.
 */
function heldBecause(bead: Bead, now: Date, thresholdSec: number): { why: 'pid_alive' | 'fresh'; age: number } | { age: number; pid: number | undefined } {
  const pid = claimedPidOf(bead);
  const machine = bead['claimed-machine'];
  const elsewhere = typeof machine === 'string' && machine !== '' && machine !== thisMachine();
  const claimedAt = timeOf(bead['claimed-at']) ?? timeOf(bead.updated_at);
  const age = claimedAt === undefined ? 0 : Math.max(0, Math.floor((now.getTime() - claimedAt) / 1000));
  // A claim from another host cannot be checked from here: it counts as alive.
  if (elsewhere || claimerAlive(bead)) return { why: 'pid_alive', age };
  // Its claimer is gone and nothing of its calls is left (claimer-calls.ts): no need to wait.
  if (nothingLeftOf(bead, { callsGone: claimerCallsGone })) return { age, pid };
  // A bead with no claim time at all is reclaimable.
  if (claimedAt !== undefined && age < thresholdSec) return { why: 'fresh', age };
  return { age, pid };
}

/**
 * Acquires the governing bead for `scope` (see the file comment). Refuses with exit 1 and the
 * Bash line `alignment already active for <scope> …` while someone else holds it.
 */
export function acquireGoverningBead(store: BeadStore, scope: string, options: AcquireOptions): Governing {
  const now = options.now ?? new Date();
  const thresholdSec = orphanThresholdSec(options.env ?? process.env);
  const areas = scopeAreaLabels(options.root, scope);
  const labels = unique([...GOVERNING_LABELS, ...areas]);
  const mergeLabels = (bead: Bead) => {
    const merged = unique([...labelsOf(bead), ...labels]);
    if (merged.length !== labelsOf(bead).length) bead.labels = merged;
  };
  const said: Say[] = [];
  const governing = store.mutate((draft): Governing => {
    const candidates = draft.beads.filter((b) => isGoverningBeadFor(b, scope));
    const open = candidates.find((b) => b.status === 'open');
    if (open) {
      draft.change(open.id, mergeLabels);
      return { bead: { ...claimBead(draft, open.id, { pid: process.pid, now }) }, mode: 'claimed' };
    }
    const active = candidates.find((b) => b.status === 'in_progress');
    if (active) {
      if (claimedPidOf(active) === process.pid) {
        draft.change(active.id, mergeLabels);
        return { bead: { ...(draft.get(active.id) as Bead) }, mode: 'reused' };
      }
      const held = heldBecause(active, now, thresholdSec);
      if ('why' in held) {
        const owner = typeof active.owner === 'string' && active.owner ? active.owner : undefined;
        throw new HelixError('error', GOVERNING.alreadyActive(scope, active.id, owner));
      }
      said.push(GOVERNING.reclaiming(active.id, scope, held.age, held.pid));
      unclaimBead(draft, active.id, { now });
      draft.change(active.id, mergeLabels);
      return { bead: { ...claimBead(draft, active.id, { pid: process.pid, now }) }, mode: 'claimed' };
    }
    const created = createBead(
      draft,
      {
        title: governingTitle(scope),
        type: 'task',
        labels,
        specId: inferredSpecId(scope),
        description: governingDescription(scope, areas),
        acceptance: GOVERNING_ACCEPTANCE,
        // planning work: never a build target (a triaged bead without a build phase label is not)
        set: ['execution-eligible=false'],
        createdBy: 'helix',
      },
      idPrefix(store.dir),
      now,
    );
    return { bead: { ...created }, mode: 'created' };
  });
  for (const line of said) options.say?.(line);
  return governing;
}

/** What settling left of the governing bead: closed, released (open again), or as it was. */
export type GoverningSettled = 'closed' | 'released' | 'untouched';

/**
 * Ends an alignment's hold on its governing bead `id` (see the file comment): `finished` closes
 * it unless it is closed already; otherwise a claim on it — this process's, or one the agent took
 * and left with its process gone — is released, and the bead stays open for the next alignment.
 */
export function settleGoverningBead(store: BeadStore, id: string, finished: boolean, now: Date = new Date()): GoverningSettled {
  return store.mutate((draft): GoverningSettled => {
    const bead = draft.get(id);
    if (!bead) return 'untouched';
    if (finished && (bead.status === 'open' || bead.status === 'in_progress')) {
      // planning work has no build dependencies to wait for: the alignment is what it tracked
      closeBead(draft, id, { force: true, now });
      return 'closed';
    }
    const ours = claimedPidOf(bead) === process.pid;
    if (bead.status === 'in_progress' && (ours || !claimerAlive(bead))) {
      unclaimBead(draft, id, { now });
      return 'released';
    }
    return 'untouched';
  });
}
