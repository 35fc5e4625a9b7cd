// Feedback closes the learning loop. `feedback` applies a signed delta by hand; `feedbackVerify`
// is the supervisor's rule (docs/contract/design.md §3): verification, not the agent's claim, decides whether an
// injected memory helped.
import { VERIFY_FEEDBACK_STEP } from './constants.js';
import type { MemoryContext } from './store-context.js';
import { HelixError } from '../errors.js';
import type { MemoryRow } from './rows.js';

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
}

/**
 * The verdict per injected memory. Without a claim every injected memory shares the task's
 * outcome. With one: pass+utilized helped; fail+utilized failed (the claim led nowhere);
 * pass+not utilized failed (it did not help); fail+not utilized is no evidence either way.
 * A utilized name that was never injected is ignored: the agent cannot credit what it was not given.
 */
export function verifyVerdicts(input: Omit<VerifyFeedback, 'taskId'>): { helped: string[]; unhelpful: string[] } {
  const injected = unique(input.injected);
  if (input.utilized === undefined) {
    return input.verifyPassed ? { helped: injected, unhelpful: [] } : { helped: [], unhelpful: injected };
  }
  const utilized = new Set(input.utilized);
  const used = injected.filter((n) => utilized.has(n));
  const unused = injected.filter((n) => !utilized.has(n));
  return input.verifyPassed ? { helped: used, unhelpful: unused } : { helped: [], unhelpful: used };
}

export function feedbackVerify(ctx: MemoryContext, input: VerifyFeedback) {
  const verdicts = verifyVerdicts(input);
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
  };
}
