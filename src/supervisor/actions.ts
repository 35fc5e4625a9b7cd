// The one-shot HELIX actions (contract §2, §8): align, design/plan, polish, review, backfill,
// experiment. Each builds its prompt, runs one agent call (or prints it under --dry-run) and
// judges the answer by the trailers the action file demands.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { type Trailers, formatDryRun, parseTrailers } from '../agents/index.js';
import { EXIT, HelixError } from '../errors.js';
import { type Bead, type BeadStore, claimBead, createBead, idPrefix, labelsOf, staleClaimOf, unclaimBead, orphanThresholdSec } from '../tracker/index.js';
import { type SessionOutput, SessionOutput as Output } from './output.js';
import { defaultSettings } from './policy.js';
import { type ActionName, actionPrompt } from './prompts.js';
import { Supervisor } from './runner.js';
import { type SessionFlags, prepareSession } from './session.js';
import type { OutputMode } from './output.js';

export type OneShotAction = Exclude<ActionName, 'implementation' | 'check'>;

export interface ActionOptions extends SessionFlags {
  cwd: string;
  env: NodeJS.ProcessEnv;
  mode: OutputMode;
  dryRun?: boolean;
  scope?: string;
  rounds?: number;
  close?: boolean;
}

/** Default scope and rounds per action (contract §2). */
export const ACTION_DEFAULTS: Record<OneShotAction, { scope: string; rounds?: number }> = {
  align: { scope: 'repo' },
  design: { scope: 'repo', rounds: 5 },
  polish: { scope: 'repo', rounds: 6 },
  review: { scope: 'last-commit' },
  backfill: { scope: 'repo' },
  experiment: { scope: 'repo' },
};

export const ALIGN_LABELS = ['kind:planning', 'action:align'];

/**
 * The governing bead an alignment runs under: an open one for the scope is reused, a live one in
 * progress refuses, a stale one (dead claimer, old claim) is reclaimed, else one is created.
 */
export function governingBead(store: BeadStore, scope: string, now: Date, env: NodeJS.ProcessEnv): Bead {
  return store.mutate((draft) => {
    const isAlignFor = (b: Bead) => ALIGN_LABELS.every((l) => labelsOf(b).includes(l)) && (b['helix-scope'] ?? 'repo') === scope && b.status !== 'closed';
    const existing = draft.beads.find(isAlignFor);
    if (existing?.status === 'in_progress') {
      if (!staleClaimOf(existing, { now, thresholdSec: orphanThresholdSec(env) })) {
        throw new HelixError('conflict', `helix: alignment for ${scope} is already in progress (${existing.id}, pid ${String(existing['claimed-pid'] ?? '?')})`);
      }
      unclaimBead(draft, existing.id, { now });
    }
    const bead = existing ?? createBead(draft, { title: `Alignment: ${scope}`, labels: ALIGN_LABELS, set: [`helix-scope=${scope}`] }, idPrefix(store.dir), now);
    return claimBead(draft, bead.id, { pid: process.pid, now });
  });
}

export interface ActionVerdict {
  ok: boolean;
  lines: string[];
}

/** Judges an action's answer by its trailers (review and backfill are routed on; the others log). */
export function judgeAction(action: OneShotAction, exitCode: number, trailers: Trailers, root: string): ActionVerdict {
  if (action === 'review') {
    if (!trailers.reviewStatus || (trailers.reviewStatus === 'ISSUES_FOUND' && trailers.issuesCount === undefined)) {
      return { ok: false, lines: ['helix: review output missing REVIEW_STATUS trailer'] };
    }
    if (trailers.reviewStatus === 'CLEAN') return { ok: true, lines: ['helix: review CLEAN'] };
    return { ok: true, lines: [`helix: review found ${trailers.issuesCount} issue(s)${trailers.findingsFiled !== undefined ? `, ${trailers.findingsFiled} filed` : ''}`] };
  }
  if (action === 'backfill') {
    const lines: string[] = [];
    if (trailers.researchEpic) lines.push(`helix: research epic=${trailers.researchEpic}`);
    if (trailers.backfillReport) lines.push(`helix: backfill report=${trailers.backfillReport}`);
    if (!trailers.backfillStatus) return { ok: false, lines: [...lines, 'helix: backfill output missing BACKFILL_STATUS trailer'] };
    if (!trailers.backfillReport) return { ok: false, lines: [...lines, 'helix: backfill output missing BACKFILL_REPORT trailer'] };
    if (!existsSync(resolve(root, trailers.backfillReport))) return { ok: false, lines: [...lines, `helix: backfill report not found: ${trailers.backfillReport}`] };
    if (trailers.backfillStatus === 'BLOCKED') return { ok: false, lines: [...lines, 'helix: backfill BLOCKED'] };
    return { ok: true, lines: [...lines, `helix: backfill ${trailers.backfillStatus}`] };
  }
  const status = trailers.planStatus ?? trailers.polishStatus;
  return { ok: exitCode === 0, lines: status ? [`helix: ${action} status ${status}`] : [] };
}

function worktreeDirty(root: string): boolean {
  const status = spawnSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' });
  return status.status === 0 && status.stdout.trim() !== '';
}

export async function runOneShotAction(action: OneShotAction, options: ActionOptions): Promise<number> {
  const session = await prepareSession(options.cwd, options.env, options, !options.dryRun);
  const defaults = ACTION_DEFAULTS[action];
  const scope = options.scope ?? defaults.scope;
  if (action === 'experiment' && worktreeDirty(session.root)) {
    throw new HelixError('error', 'helix: experiment refuses a dirty worktree: commit or stash your changes first');
  }
  const silent = { mode: 'quiet', logName: '-', summary() {}, verbose() {}, agentOutputSink: () => ({ append() {}, range: () => ({ first: 0, last: 0 }) }) };
  const output: SessionOutput = options.dryRun ? (silent as unknown as SessionOutput) : new Output(session.root, options.mode === 'normal' ? 'quiet' : options.mode);
  const supervisor = new Supervisor({ ...session, env: options.env, settings: defaultSettings(options.env), output });
  const governing = action === 'align' && !options.dryRun ? governingBead(session.store, scope, new Date(), options.env) : undefined;
  try {
    const prompt = actionPrompt(action, {
      scope,
      rounds: options.rounds ?? defaults.rounds,
      governingBead: governing?.id,
      extra: action === 'experiment' && options.close ? ['When the experiment is decided, close its bead (--close).'] : undefined,
      env: options.env,
    });
    const { command } = supervisor.actionCommand(action, prompt);
    if (options.dryRun) {
      process.stdout.write(`${formatDryRun(command)}\n`);
      return EXIT.ok;
    }
    const run = await supervisor.runAgent(command, action);
    process.stdout.write(run.output.endsWith('\n') || !run.output ? run.output : `${run.output}\n`);
    const verdict = judgeAction(action, run.exitCode, parseTrailers(run.output), session.root);
    for (const line of verdict.lines) process.stderr.write(`${line}\n`);
    if (run.exitCode !== 0 && verdict.ok) {
      process.stderr.write(`helix: ${action} failed (rc=${run.exitCode})\n`);
      return EXIT.error;
    }
    return verdict.ok ? EXIT.ok : EXIT.error;
  } finally {
    if (governing) {
      const current = session.store.read().byId.get(governing.id);
      if (current?.status === 'in_progress') session.store.mutate((d) => unclaimBead(d, governing.id, { token: String(governing['claim-token']) }));
    }
  }
}
