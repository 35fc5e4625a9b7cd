// Spend caps as pure decisions (src/supervisor/core/budget.ts): run caps between attempts, "cost
// unknown" never letting a cost cap silently pass, and the bead's `budget:<USD>` label read as DDx
// reads it — its number by Go's strconv.ParseFloat, checked against Go's own answers
// (tests/fixtures/go-golden.json, printed by tests/fixtures/go-golden/main.go).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HelixError } from '../../../src/errors.js';
import { NO_SPEND, type Spend, addSpend, beadBudgetStop, beadBudgetUsd, budgetStop, describeSpend, parseBudgetFlags, parseGoFloat } from '../../../src/supervisor/core/budget.js';

const golden = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'fixtures', 'go-golden.json'), 'utf8')) as {
  parseFloat: Array<{ in: string; value?: string; err?: string }>;
};

const spend = (attempts: Array<{ tokens: number; costUsd?: number }>): Spend => attempts.reduce(addSpend, NO_SPEND);

describe('addSpend / describeSpend', () => {
  it('sums reported costs and tokens; an attempt without a cost is counted as unknown, not as free', () => {
    const s = spend([{ tokens: 1000, costUsd: 0.25 }, { tokens: 500 }, { tokens: 200, costUsd: 0 }]);
    expect(s).toEqual({ costUsd: 0.25, tokens: 1700, unknownCostCalls: 1 });
    expect(describeSpend(s)).toBe('$0.25 spent (+ 1 agent call of unknown cost), 1700 tokens');
    expect(describeSpend(spend([{ tokens: 7, costUsd: 0.0042 }]))).toBe('$0.0042 spent, 7 tokens');
  });
});

describe('budgetStop: run caps, checked between attempts', () => {
  const caps = { maxCostUsd: 1, maxTokens: 10_000, maxDurationMs: 3_600_000 };
  it.each([
    ['below every cap', spend([{ tokens: 100, costUsd: 0.5 }]), 60_000, undefined],
    ['cost reached (spent >= cap, as DDx)', spend([{ tokens: 100, costUsd: 0.6 }, { tokens: 100, costUsd: 0.4 }]), 0, 'cost'],
    ['tokens reached', spend([{ tokens: 10_000, costUsd: 0.1 }]), 0, 'tokens'],
    ['duration reached', spend([{ tokens: 1, costUsd: 0 }]), 3_600_000, 'duration'],
  ])('%s', (_name, s, elapsed, cap) => {
    expect(budgetStop(caps, s, elapsed)?.cap).toBe(cap);
  });

  it('lines say the cap and what was spent', () => {
    expect(budgetStop({ maxCostUsd: 1 }, spend([{ tokens: 3000, costUsd: 1.5 }]), 0)?.line).toBe('--max-cost $1.00 reached: $1.50 spent, 3000 tokens');
    expect(budgetStop({ maxTokens: 100 }, spend([{ tokens: 150 }]), 0)?.line).toBe('--max-tokens 100 reached: $0.00 spent (+ 1 agent call of unknown cost), 150 tokens');
    expect(budgetStop({ maxDurationMs: 5_400_000 }, NO_SPEND, 5_460_000)?.line).toBe('--max-duration 1h30m reached after 1h31m: $0.00 spent, 0 tokens');
  });

  it('--max-cost with an attempt of unknown cost stops the run and says why; without --max-cost, unknown cost stops nothing', () => {
    const s = spend([{ tokens: 2046 }]); // a codex attempt: tokens, no cost
    expect(budgetStop({ maxCostUsd: 5 }, s, 0)).toEqual({
      cap: 'cost',
      line: '--max-cost $5.00 cannot be checked: 1 agent call reported no cost (codex never does); $0.00 spent (+ 1 agent call of unknown cost), 2046 tokens. Use --max-tokens to cap an agent that reports no cost.',
    });
    expect(budgetStop({ maxTokens: 100_000 }, s, 0)).toBeUndefined();
    expect(budgetStop({}, s, 1e12)).toBeUndefined();
  });
});

describe('parseBudgetFlags', () => {
  it('values as given; 0 means no cap (as DDx --max-cost 0)', () => {
    expect(parseBudgetFlags({ maxCost: '2.50', maxTokens: '500000', maxDuration: '8h' })).toEqual({ maxCostUsd: 2.5, maxTokens: 500_000, maxDurationMs: 28_800_000 });
    expect(parseBudgetFlags({ maxCost: '0', maxTokens: '0', maxDuration: '0' })).toEqual({});
    expect(parseBudgetFlags({})).toEqual({});
  });

  it.each([
    [{ maxCost: '$5' }, 'helix: --max-cost must be a number from 0 to 9007199254740991, got "$5"'],
    [{ maxCost: '-1' }, 'helix: --max-cost must be a number from 0 to 9007199254740991, got "-1"'],
    [{ maxTokens: '1.5' }, 'helix: --max-tokens must be a whole number from 0 to 9007199254740991, got "1.5"'],
    [{ maxDuration: '1d' }, 'helix: --max-duration must be a duration such as 90s, 45m or 1h30m (time: unknown unit "d" in duration "1d")'],
  ])('%j: one line, exit 7', (flags, message) => {
    expect(() => parseBudgetFlags(flags)).toThrow(new HelixError('validation', message));
    try {
      parseBudgetFlags(flags);
    } catch (error) {
      expect((error as HelixError).exitCode).toBe(7);
    }
  });
});

describe('parseGoFloat: strconv.ParseFloat(s, 64), case by case', () => {
  it.each(golden.parseFloat.map((c) => [c.in, c] as const))('%j', (input, c) => {
    const value = parseGoFloat(input);
    if (c.err !== undefined) expect(value).toBeUndefined();
    else expect(value).toBe(Number(c.value));
  });
});

describe('the budget:<USD> label, as DDx reads it (ParseBeadBudgetLabel)', () => {
  it.each([
    [['budget:25.0'], 25],
    [['area:cli', 'budget:2.5'], 2.5],
    [['budget:1e1'], 10],
    [['budget:0x1p4'], 16],
    [['budget:0'], undefined], // 0: no cap
    [['budget:-3'], undefined], // negative: ignored
    [['budget:$5'], undefined], // unreadable: ignored
    [['budget:abc', 'budget:5'], undefined], // the FIRST budget: label decides, even when unreadable
    [['Budget:5', 'budget :5'], undefined], // the prefix is exact
    [['budget:Inf'], Number.POSITIVE_INFINITY],
    [[], undefined],
    [undefined, undefined],
  ])('%j → %s', (labels, usd) => {
    expect(beadBudgetUsd(labels)).toBe(usd);
  });

  it('a bead stops once its spend reaches its label; unknown cost cannot be checked; budget:NaN is always reached (as in DDx)', () => {
    expect(beadBudgetStop(['budget:1'], spend([{ tokens: 10, costUsd: 0.5 }]))).toBeUndefined();
    expect(beadBudgetStop(['budget:1'], spend([{ tokens: 10, costUsd: 0.5 }, { tokens: 10, costUsd: 0.5 }]))).toEqual({ cap: 'cost', line: 'budget:1 reached: $1.00 spent, 20 tokens' });
    expect(beadBudgetStop(['budget:1'], spend([{ tokens: 10 }]))?.line).toBe('budget:1 cannot be checked: 1 agent call reported no cost; $0.00 spent (+ 1 agent call of unknown cost), 10 tokens');
    expect(beadBudgetStop(['budget:NaN'], NO_SPEND)?.line).toBe('budget:NaN reached: $0.00 spent, 0 tokens');
    expect(beadBudgetStop(['budget:0'], spend([{ tokens: 10, costUsd: 99 }]))).toBeUndefined();
  });
});
