// Spend caps for a run (`--max-cost USD`, `--max-tokens N`, `--max-duration D`) and for a bead (a
// `budget:<USD>` label, read exactly as DDx reads it), as pure decisions the run loop asks between
// attempts. The rule that matters: a cap must never silently fail to fire. codex reports no cost,
// and a DDx path may not either; such an attempt is counted as "cost unknown", and a cost cap with
// unknown spend behind it stops the run (reason `budget`) with a line that says why, instead of
// letting it run on as if that attempt had been free.
import { formatDuration, parseDurationFlag } from '../../durations.js';
import { parseNumber } from '../../numbers.js';

export interface BudgetCaps {
  /** `--max-cost`: stop once this many US dollars are spent. */
  maxCostUsd?: number;
  /** `--max-tokens`: stop once this many tokens (input + output) are spent. */
  maxTokens?: number;
  /** `--max-duration`: start no attempt once the run is this old. */
  maxDurationMs?: number;
}

/** What a run (or one bead) has spent so far. */
export interface Spend {
  /** The sum of the costs attempts reported. */
  costUsd: number;
  tokens: number;
  /** Attempts that reported no cost: their cost is not in `costUsd`. */
  unknownCostCalls: number;
}

export const NO_SPEND: Spend = Object.freeze({ costUsd: 0, tokens: 0, unknownCostCalls: 0 });

/** One attempt's spend: tokens always (0 when unreported), cost only when the agent reported one. */
export interface AttemptSpend {
  tokens: number;
  costUsd?: number;
}

export function addSpend(spend: Spend, attempt: AttemptSpend): Spend {
  const known = attempt.costUsd !== undefined && Number.isFinite(attempt.costUsd) && attempt.costUsd >= 0;
  return {
    costUsd: spend.costUsd + (known ? (attempt.costUsd as number) : 0),
    tokens: spend.tokens + Math.max(0, attempt.tokens),
    unknownCostCalls: spend.unknownCostCalls + (known ? 0 : 1),
  };
}

export type CapName = 'cost' | 'tokens' | 'duration';

/** A cap that was reached: which one, and one line saying what was spent against it. */
export interface BudgetStop {
  cap: CapName;
  line: string;
}

/** `$1.2345 spent (+ 2 attempts of unknown cost), 12345 tokens`: the spend as the lines and status say it. */
export function describeSpend(spend: Spend): string {
  const unknown = spend.unknownCostCalls > 0 ? ` (+ ${plural(spend.unknownCostCalls, 'agent call')} of unknown cost)` : '';
  return `${usd(spend.costUsd)} spent${unknown}, ${spend.tokens} tokens`;
}

/**
 * The first run cap that is reached, or undefined: checked between attempts, so the attempt that
 * crosses a cap finishes and no new one starts (DDx's --max-cost works the same way: spent >= cap).
 * With --max-cost, an attempt of unknown cost stops the run too: its spend cannot be checked.
 */
export function budgetStop(caps: BudgetCaps, spend: Spend, elapsedMs: number): BudgetStop | undefined {
  if (caps.maxCostUsd !== undefined && spend.unknownCostCalls > 0) {
    return {
      cap: 'cost',
      line: `--max-cost ${usd(caps.maxCostUsd)} cannot be checked: ${plural(spend.unknownCostCalls, 'agent call')} reported no cost (codex never does); ${describeSpend(spend)}. Use --max-tokens to cap an agent that reports no cost.`,
    };
  }
  if (caps.maxCostUsd !== undefined && spend.costUsd >= caps.maxCostUsd) {
    return { cap: 'cost', line: `--max-cost ${usd(caps.maxCostUsd)} reached: ${describeSpend(spend)}` };
  }
  if (caps.maxTokens !== undefined && spend.tokens >= caps.maxTokens) {
    return { cap: 'tokens', line: `--max-tokens ${caps.maxTokens} reached: ${describeSpend(spend)}` };
  }
  if (caps.maxDurationMs !== undefined && elapsedMs >= caps.maxDurationMs) {
    return { cap: 'duration', line: `--max-duration ${formatDuration(caps.maxDurationMs)} reached after ${formatDuration(elapsedMs)}: ${describeSpend(spend)}` };
  }
  return undefined;
}

/**
 * A --max-cost that no call of this run can be checked against: its builds run on an agent that
 * reports no cost (codex, called directly). Said before the first call — the run would stop
 * after its first build anyway (budgetStop), with that build's spend unchecked.
 */
export function uncheckableCostCap(caps: BudgetCaps, noCostAgent: string | undefined): BudgetStop | undefined {
  if (caps.maxCostUsd === undefined || noCostAgent === undefined) return undefined;
  return {
    cap: 'cost',
    line: `--max-cost ${usd(caps.maxCostUsd)} cannot be checked: the builds run on ${noCostAgent}, which reports no cost; nothing was started. Use --max-tokens to cap ${noCostAgent}.`,
  };
}

/**
 * The caps from the command line. 0 means no cap, as DDx's `--max-cost 0`; a bad value is one
 * line and exit 7. The cost is plain decimal dollars (helix's number rule, numbers.ts), the tokens
 * a whole number, the duration Go's syntax (durations.ts).
 */
export function parseBudgetFlags(flags: { maxCost?: string; maxTokens?: string; maxDuration?: string }): BudgetCaps {
  const caps: BudgetCaps = {};
  if (flags.maxCost !== undefined) {
    const value = parseNumber('--max-cost', flags.maxCost, { min: 0, max: Number.MAX_SAFE_INTEGER, fraction: true });
    if (value > 0) caps.maxCostUsd = value;
  }
  if (flags.maxTokens !== undefined) {
    const value = parseNumber('--max-tokens', flags.maxTokens, { min: 0, max: Number.MAX_SAFE_INTEGER });
    if (value > 0) caps.maxTokens = value;
  }
  if (flags.maxDuration !== undefined) {
    const value = parseDurationFlag('--max-duration', flags.maxDuration);
    if (value > 0) caps.maxDurationMs = value;
  }
  return caps;
}

// ── a bead's own budget: the `budget:<USD>` label (DDx internal/escalation/infrastructure.go) ──

const BUDGET_LABEL = 'budget:';

/**
 * The cap a bead's labels set, as DDx's ParseBeadBudgetLabel reads them: the FIRST label starting
 * `budget:` decides; its rest is read by Go's strconv.ParseFloat; unreadable or negative means no
 * cap from the label (DDx then falls back to its --max-bead-cost, helix to none); 0 means no cap.
 * `budget:NaN` is a cap every spend reaches, as in DDx (`spent < NaN` is false).
 */
export function beadBudgetUsd(labels: readonly string[] | undefined): number | undefined {
  const label = labels?.find((l) => l.startsWith(BUDGET_LABEL));
  if (label === undefined) return undefined;
  const value = parseGoFloat(label.slice(BUDGET_LABEL.length));
  if (value === undefined || value < 0) return undefined;
  return value === 0 ? undefined : value;
}

/** The bead's `budget:<USD>` cap when its spend reached it (or cannot be checked), else undefined. */
export function beadBudgetStop(labels: readonly string[] | undefined, beadSpend: Spend): BudgetStop | undefined {
  const cap = beadBudgetUsd(labels);
  if (cap === undefined) return undefined;
  if (beadSpend.unknownCostCalls > 0) {
    return { cap: 'cost', line: `budget:${labelValue(cap)} cannot be checked: ${plural(beadSpend.unknownCostCalls, 'agent call')} reported no cost; ${describeSpend(beadSpend)}` };
  }
  if (!(beadSpend.costUsd < cap)) return { cap: 'cost', line: `budget:${labelValue(cap)} reached: ${describeSpend(beadSpend)}` };
  return undefined;
}

/**
 * Go's strconv.ParseFloat(s, 64): decimal or hexadecimal (`0x1p4`, the exponent required) with
 * optional sign and exponent, `_` only between digits (Go literal rules), `inf`/`infinity`/`nan`
 * in any case; undefined where Go returns an error, out of range (`1e400`) included. Checked
 * against Go's own answers in tests/supervisor/core/budget.test.ts.
 */
export function parseGoFloat(text: string): number | undefined {
  const special = /^([+-]?)(inf|infinity)$/i.exec(text);
  if (special) return special[1] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  if (/^nan$/i.test(text)) return Number.NaN;
  const hex = /^([+-]?)0[xX]([0-9a-fA-F_]*)(?:\.([0-9a-fA-F_]*))?[pP]([+-]?[0-9_]+)$/.exec(text);
  const decimal = /^[+-]?([0-9_]*)(?:\.([0-9_]*))?(?:[eE][+-]?[0-9_]+)?$/.exec(text);
  if (!hex && !decimal) return undefined;
  if (!underscoreOk(text)) return undefined;
  let value: number;
  if (hex) {
    const [, sign, whole = '', fraction = '', exponent = ''] = hex;
    const digits = (whole + fraction).replace(/_/g, '');
    if (digits === '') return undefined;
    value = Number(BigInt(`0x${digits}`)) * 2 ** (Number(exponent.replace(/_/g, '')) - 4 * fraction.replace(/_/g, '').length);
    if (sign === '-') value = -value;
  } else {
    const [, whole = '', fraction = ''] = decimal ?? [];
    if (`${whole}${fraction}`.replace(/_/g, '') === '') return undefined;
    value = Number(text.replace(/_/g, ''));
  }
  return Number.isFinite(value) ? value : undefined;
}

/** Go's underscoreOK: `_` only between digits, or between a base prefix and a digit. */
function underscoreOk(text: string): boolean {
  let s = /^[+-]/.test(text) ? text.slice(1) : text;
  let saw = '^';
  let hex = false;
  if (/^0[bBoOxX]/.test(s)) {
    saw = '0';
    hex = /^0[xX]/.test(s);
    s = s.slice(2);
  }
  for (const c of s) {
    if (/[0-9]/.test(c) || (hex && /[a-fA-F]/.test(c))) saw = '0';
    else if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
    } else {
      if (saw === '_') return false;
      saw = '!';
    }
  }
  return saw !== '_';
}

const usd = (value: number) => `$${value.toFixed(value !== 0 && Math.abs(value) < 0.01 ? 4 : 2)}`;
const labelValue = (value: number) => (Number.isNaN(value) ? 'NaN' : String(value));
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
