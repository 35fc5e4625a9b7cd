// Feedback closes the learning loop. `feedback` applies a signed delta by hand; `feedbackVerify`
// is the supervisor's rule (docs/contract/design.md §3): verification, not the agent's claim, decides whether an
// injected memory helped.
import { VERIFY_FEEDBACK_STEP } from './constants.js';
import type { MemoryContext } from './store-context.js';
import { HelixError } from '../errors.js';
import type { MemoryRow } from './rows.js';
import { ABOUT_TASK, addressesTask, triggerCoverage, type TaskText } from './match.js';
import { namedIdentifiers } from './values.js';

const unique = (names: string[]): string[] => [...new Set(names)];

function bump(ctx: MemoryContext, name: string, column: 'helped' | 'failed', amount: number): boolean {
  const row = ctx.sql('SELECT id FROM memories WHERE name = ?').get(name) as Pick<MemoryRow, 'id'> | undefined;
  if (!row) return false;
  ctx
    .sql(`UPDATE memories SET ${column} = ${column} + ?, last_used = ? WHERE id = ?`)
    .run(amount, ctx.now().toISOString(), row.id);
  return true;
}

/** D > 0 adds D to helped, D < 0 adds |D| to failed; unknown names are skipped. */
export function feedback(ctx: MemoryContext, names: string[], delta: number) {
  if (!Number.isFinite(delta) || delta === 0) throw new HelixError('validation', 'helix memory: --delta must be a non-zero number');
  const updated = ctx.write(() =>
    unique(names).filter((name) => bump(ctx, name, delta > 0 ? 'helped' : 'failed', Math.abs(delta))),
  );
  return { updated: updated.length, delta, names: updated };
}

export interface VerifyFeedback {
  taskId: string;
  verifyPassed: boolean;
  injected: string[];
  /** The agent's UTILIZED claim; undefined when it made none. */
  utilized?: string[];
  /**
   * The task's text (the bead's words and files): only memories about it (match.ts: ABOUT_TASK, addressesTask)
   * are moved by what the agent did not use. Without it every injected memory counts as about it.
   */
  task?: TaskText;
}

/**
 * The verdict per injected memory (fair credit, issue #25). A memory the agent used is about the
 * task by its own account: pass+utilized helped; fail+utilized failed (the claim led nowhere).
 * A memory it did not use moves only when it is about the task (`about`; undefined: all are):
 * pass+not utilized failed (it did not help where it applied); without a claim it shares the
 * task's outcome. An unrelated memory that was injected and not used is left alone — its not
 * helping a task it is not about says nothing of it. fail+not utilized is no evidence either way.
 * A utilized name that was never injected is ignored: the agent cannot credit what it was not given.
 */
export function verifyVerdicts(input: Omit<VerifyFeedback, 'taskId' | 'task'> & { about?: Set<string> }): { helped: string[]; unhelpful: string[]; left_alone: string[] } {
  const injected = unique(input.injected);
  const about = (n: string) => input.about === undefined || input.about.has(n);
  if (input.utilized === undefined) {
    const moved = injected.filter(about);
    const leftAlone = injected.filter((n) => !about(n));
    return input.verifyPassed ? { helped: moved, unhelpful: [], left_alone: leftAlone } : { helped: [], unhelpful: moved, left_alone: leftAlone };
  }
  const utilized = new Set(input.utilized);
  const used = injected.filter((n) => utilized.has(n));
  const unused = injected.filter((n) => !utilized.has(n));
  if (!input.verifyPassed) return { helped: [], unhelpful: used, left_alone: [] };
  return { helped: used, unhelpful: unused.filter(about), left_alone: unused.filter((n) => !about(n)) };
}

/**
 * The injected memories that are about the task (undefined when no task text was given): those
 * whose situation the task's text covers and whose subject is the task's (match.ts: ABOUT_TASK,
 * addressesTask), and those this same task wrote (`source` helix-run:<task id>: a failure
 * record's trigger carries the check's words, not the task's).
 */
function aboutOf(ctx: MemoryContext, input: VerifyFeedback): Set<string> | undefined {
  if (!input.task) return undefined;
  const rows = unique(input.injected).flatMap((name) => ctx.rowByName(name) ?? []);
  const taskNames = namedIdentifiers(input.task.objective);
  const about = new Set<string>();
  for (const [row, share] of triggerCoverage(ctx, input.task, rows)) {
    if (row.source === `helix-run:${input.taskId}` || (share >= ABOUT_TASK && addressesTask(row, taskNames))) about.add(row.name);
  }
  return about;
}

export function feedbackVerify(ctx: MemoryContext, input: VerifyFeedback) {
  const verdicts = verifyVerdicts({ ...input, about: aboutOf(ctx, input) });
  const applied = ctx.write(() => ({
    helped: verdicts.helped.filter((n) => bump(ctx, n, 'helped', VERIFY_FEEDBACK_STEP)),
    unhelpful: verdicts.unhelpful.filter((n) => bump(ctx, n, 'failed', VERIFY_FEEDBACK_STEP)),
  }));
  return {
    credited: input.verifyPassed ? applied.helped.length : 0,
    task_id: input.taskId,
    verify_passed: input.verifyPassed,
    injected_count: input.injected.length,
    helped: applied.helped,
    unhelpful: applied.unhelpful,
    left_alone: verdicts.left_alone,
  };
}
