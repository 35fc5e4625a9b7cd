// How deep a review chain is, and whether a review may file more (docs/contract/cli.md §6.5).
import { describe, expect, it } from 'vitest';
import { MAX_REVIEW_CHAIN_DEPTH } from '../../../src/supervisor/core/policy.js';
import { chainDepthOf, reviewChainStep } from '../../../src/supervisor/core/review-chain.js';
import { bead } from '../../helpers/bead.js';

const at = (depth: unknown) => bead({ id: 'hx-00000001', 'helix-review-depth': depth });

describe('the review chain', () => {
  it('is at most 3 findings deep', () => {
    expect(MAX_REVIEW_CHAIN_DEPTH).toBe(3);
  });

  it.each([
    ['a bead a person filed', bead({ id: 'hx-00000001' }), 0],
    ['no bead (a commit range, a spec)', undefined, 0],
    ['depth 2', at(2), 2],
    ['depth 2 as text (ddx bead update --set)', at('2'), 2],
    ['past the limit', at(7), 7],
    ['unreadable: counts as the limit, never as a new chain', at('deep'), 3],
    ['negative', at(-1), 3],
    ['a fraction', at(1.5), 3],
  ])('depth of %s', (_what, reviewed, depth) => {
    expect(chainDepthOf(reviewed)).toBe(depth);
  });

  it.each([
    [undefined, { file: true, depth: 0, findingDepth: 1, limit: 3 }],
    [at(1), { file: true, depth: 1, findingDepth: 2, limit: 3 }],
    [at(2), { file: true, depth: 2, findingDepth: 3, limit: 3 }],
    [at(3), { file: false, depth: 3, findingDepth: 4, limit: 3 }],
    [at(9), { file: false, depth: 9, findingDepth: 10, limit: 3 }],
    [at('x'), { file: false, depth: 3, findingDepth: 4, limit: 3 }],
  ])('a review of %o files its findings one deeper, until the limit', (reviewed, step) => {
    expect(reviewChainStep(reviewed)).toEqual(step);
  });

  it('takes another limit', () => {
    expect(reviewChainStep(at(1), 1)).toEqual({ file: false, depth: 1, findingDepth: 2, limit: 1 });
  });
});
