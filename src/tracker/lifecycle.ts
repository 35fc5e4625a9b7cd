// Bead statuses and the transitions between them, as current DDx enforces them
// (DDx ae663ca012 cli/internal/bead/lifecycle.go: ValidateLifecycleTransition and
// lifecycleTransitionAllowed). Six statuses are read and kept; only `closed` satisfies dependents.
// DDx v0.6.1 knows only open / in_progress / closed and never writes the other three.
import { HelixError } from '../errors.js';

export const STATUSES = ['open', 'in_progress', 'closed', 'blocked', 'proposed', 'cancelled'] as const;
export type BeadStatus = (typeof STATUSES)[number];

export function isStatus(value: unknown): value is BeadStatus {
  return typeof value === 'string' && (STATUSES as readonly string[]).includes(value);
}

/** The facts a transition may need (DDx's LifecycleTransitionOptions). */
export interface TransitionFacts {
  /** `tracker close`: open / in_progress / blocked / proposed → closed. */
  manualClose?: boolean;
  /** `tracker reopen`: closed → open. */
  manualReopen?: boolean;
  /** `blocked` needs a reason naming the external blocker. */
  externalBlockerReason?: string;
  /** Only an operator flow may move work to `proposed`; no tracker command sets it. */
  operatorRequired?: boolean;
}

/** Where DDx keeps the reason of a `blocked` bead (ExtraLifecycleExternalBlockerReason). */
export const EXTERNAL_BLOCKER_REASON_KEY = 'lifecycle-external-blocker-reason';

const ALLOWED: Record<string, readonly string[]> = {
  proposed: ['open', 'cancelled'],
  open: ['in_progress', 'blocked', 'proposed', 'cancelled'],
  in_progress: ['open', 'closed', 'blocked', 'proposed'],
  blocked: ['open', 'proposed', 'cancelled'],
};

/** Why DDx would refuse `from → to`, in DDx's own words, or undefined when it is allowed. */
export function transitionProblem(from: string, to: string, facts: TransitionFacts = {}): string | undefined {
  if (!isStatus(from)) return `invalid_status: ${JSON.stringify(from)}`;
  if (!isStatus(to)) return `invalid_status: ${JSON.stringify(to)}`;
  if (from === to) return undefined;
  if (to === 'closed' && facts.manualClose && ['open', 'in_progress', 'blocked', 'proposed'].includes(from)) return undefined;
  if (from === 'closed' && to === 'open' && facts.manualReopen) return undefined;
  if (from === 'closed' || from === 'cancelled') return `transition_from_terminal: ${from} -> ${to}`;
  if (to === 'proposed' && !facts.operatorRequired) return `transition_requires_operator: ${from} -> ${to}`;
  if (to === 'blocked' && !facts.externalBlockerReason?.trim()) return `transition_requires_external_blocker: ${from} -> ${to}`;
  if (ALLOWED[from]?.includes(to)) return undefined;
  return `transition_unsupported: ${from} -> ${to}`;
}

/** Throws the one-line validation error (exit 7) DDx would give for a refused transition. */
export function assertTransition(id: string, from: unknown, to: string, facts: TransitionFacts = {}): void {
  const fromText = typeof from === 'string' ? from : JSON.stringify(from);
  if (!isStatus(to)) {
    throw new HelixError('validation', `bead: invalid status ${JSON.stringify(to)}: must be one of ${STATUSES.join(', ')}`);
  }
  const problem = transitionProblem(fromText, to, facts);
  if (problem) throw new HelixError('validation', `bead: ${id}: lifecycle transition ${fromText} -> ${to} rejected: ${problem}`);
}
